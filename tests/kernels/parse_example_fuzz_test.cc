// A seeded fuzz loop: random and mutated serialized Examples through
// ParseExample and ParseExampleV2. Every run must end in OK or
// INVALID_ARGUMENT — never a crash, a hang or another code — and an OK run
// must give outputs of the promised shapes.
#include <boost/test/unit_test.hpp>
#include <random>
#include <string>
#include <vector>

#include "tests/kernels/example_test_util.h"

namespace af::test {
namespace {

ParseSpec FuzzSpec() {
  ParseSpec spec;
  spec.sparse.push_back({"ids", DT_INT64});
  spec.sparse.push_back({"words", DT_STRING});
  spec.dense.push_back(
      {"x", DT_FLOAT, PartialTensorShape{1}, Tensor::FromVector<float>({0}, TensorShape{1})});
  spec.dense.push_back({"v", DT_FLOAT, PartialTensorShape{-1}, Tensor::Scalar<float>(0)});
  spec.ragged.push_back({"r", DT_INT64, DT_INT32});
  return spec;
}

std::string RandomSeedRecord(std::mt19937* rng) {
  ExampleBuilder b;
  std::uniform_int_distribution<int> len(0, 4);
  if ((*rng)() % 2) b.Floats("x", {static_cast<float>((*rng)() % 100)});
  std::vector<int64_t> ids(static_cast<size_t>(len(*rng)));
  for (auto& id : ids) id = static_cast<int64_t>((*rng)()) - (1LL << 31);
  b.Int64s("ids", ids);
  b.Bytes("words", {"w", std::string((*rng)() % 5, 'z')});
  std::vector<float> v(static_cast<size_t>(len(*rng)), 1.5f);
  b.Floats("v", v);
  b.Int64s("r", ids);
  return b.Serialize();
}

// One of: flip bits, overwrite a byte, truncate, insert random bytes,
// duplicate a slice, or pure noise.
std::string Mutate(std::string s, std::mt19937* rng) {
  const int kind = static_cast<int>((*rng)() % 6);
  auto pos = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>((*rng)() % n); };
  switch (kind) {
    case 0:
      if (!s.empty()) s[pos(s.size())] ^= static_cast<char>(1u << ((*rng)() % 8));
      break;
    case 1:
      if (!s.empty()) s[pos(s.size())] = static_cast<char>((*rng)() & 0xff);
      break;
    case 2:
      s.resize(pos(s.size() + 1));
      break;
    case 3: {
      std::string noise((*rng)() % 8, '\0');
      for (char& c : noise) c = static_cast<char>((*rng)() & 0xff);
      s.insert(pos(s.size() + 1), noise);
      break;
    }
    case 4:
      if (!s.empty()) {
        const size_t a = pos(s.size());
        s.insert(pos(s.size() + 1), s.substr(a, (*rng)() % 16));
      }
      break;
    default: {
      s.assign((*rng)() % 64, '\0');
      for (char& c : s) c = static_cast<char>((*rng)() & 0xff);
      break;
    }
  }
  return s;
}

BOOST_AUTO_TEST_SUITE(parse_example_fuzz)

BOOST_AUTO_TEST_CASE(mutated_records_never_crash) {
  std::mt19937 rng(20261129);
  const ParseSpec spec = FuzzSpec();
  ParseSpec v1_spec = spec;
  v1_spec.ragged.clear();
  int ok = 0, rejected = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::vector<std::string> batch;
    const int n = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < n; ++i) {
      std::string rec = RandomSeedRecord(&rng);
      const int mutations = static_cast<int>(rng() % 4);
      for (int m = 0; m < mutations; ++m) rec = Mutate(std::move(rec), &rng);
      batch.push_back(std::move(rec));
    }
    auto out = (iter % 2) ? RunParseExample(v1_spec, StringVector(batch))
                          : RunParseExampleV2(spec, StringVector(batch));
    if (out.ok()) {
      ++ok;
      const auto& t = out.value();
      const size_t dense_at = 6;  // after 2 indices, 2 values, 2 shapes
      BOOST_REQUIRE_GT(t.size(), dense_at);
      BOOST_CHECK(t[dense_at].shape() == (TensorShape{n, 1}));
      BOOST_CHECK_EQUAL(t[0].shape().dim_size(0), t[2].NumElements());
      BOOST_CHECK_EQUAL(t[1].shape().dim_size(0), t[3].NumElements());
    } else {
      ++rejected;
      BOOST_CHECK_MESSAGE(errors::IsInvalidArgument(out.status()), out.status().ToString());
    }
  }
  BOOST_TEST_MESSAGE("fuzz: " << ok << " parsed, " << rejected << " rejected");
  BOOST_CHECK_GT(ok, 0);
  BOOST_CHECK_GT(rejected, 0);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
