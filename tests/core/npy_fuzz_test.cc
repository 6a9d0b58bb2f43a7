// Damaged .npy images must parse to OK or a clean error, never crash (this
// also runs under ASan/UBSan) and never allocate more than the image holds.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/npy.h"
#include "serialization_test_util.h"

namespace af {
namespace {

// Bytes that keep a header dict looking plausible while changing its meaning.
// (The sv literal keeps the embedded NUL.)
using namespace std::string_view_literals;
constexpr std::string_view kHeaderBytes = "0123456789(),:'\"<>|={}[] \nLTFfiucbO?-\x00\xff"sv;

std::vector<std::string> SeedImages() {
  std::vector<std::string> seeds;
  const std::pair<DataType, TensorShape> tensors[] = {
      {DT_FLOAT, TensorShape{2, 3}},  {DT_BOOL, TensorShape{5}},
      {DT_COMPLEX128, TensorShape{}}, {DT_INT8, TensorShape{0}},
      {DT_HALF, TensorShape{3, 1, 2}}, {DT_UINT64, TensorShape{1}},
  };
  for (const auto& [dtype, shape] : tensors) {
    std::string bytes;
    BOOST_REQUIRE(SerializeNpy(test::PatternTensor(dtype, shape), &bytes).ok());
    seeds.push_back(bytes);
  }
  // A version 2.0 header, whose length field is four bytes.
  std::string v2 = seeds[0];
  v2.replace(6, 4, std::string("\x02\x00\x76\x00\x00\x00", 6));
  seeds.push_back(v2);
  return seeds;
}

bool CleanNpyError(const Status& s) {
  return s.ok() || s.code() == Code::INVALID_ARGUMENT || s.code() == Code::DATA_LOSS;
}

BOOST_AUTO_TEST_SUITE(npy_fuzz)

BOOST_AUTO_TEST_CASE(mutated_images_fail_cleanly_without_absurd_allocations) {
  test::Rng rng(0x6e7079);
  test::RecordingAllocator alloc;
  int parsed = 0;
  int rejected = 0;
  for (const std::string& seed : SeedImages()) {
    Tensor original;
    BOOST_REQUIRE(ParseNpy(seed, &original).ok());
    for (int i = 0; i < 3000; ++i) {
      const std::string mutated = test::Mutate(seed, rng, kHeaderBytes);
      alloc.Reset();
      Tensor t;
      const Status s = ParseNpy(mutated, &t, &alloc);
      if (!CleanNpyError(s)) BOOST_FAIL("unexpected status " << s);
      // Storage never exceeds the bytes that were present (plus the
      // allocator's minimum for empty tensors).
      if (alloc.largest() > std::max<size_t>(mutated.size(), 64))
        BOOST_FAIL("allocated " << alloc.largest() << " bytes for a " << mutated.size()
                                << "-byte image");
      if (!s.ok()) {
        ++rejected;
        continue;
      }
      ++parsed;
      // Whatever parsed is a consistent tensor that serializes and parses again.
      std::string again;
      BOOST_REQUIRE(SerializeNpy(t, &again).ok());
      Tensor back;
      BOOST_REQUIRE(ParseNpy(again, &back).ok());
      BOOST_REQUIRE(test::SameTensor(back, t));
    }
  }
  BOOST_TEST_MESSAGE("npy fuzz: " << parsed << " parsed, " << rejected << " rejected");
  BOOST_TEST(parsed > 0);
  BOOST_TEST(rejected > 0);
}

BOOST_AUTO_TEST_CASE(every_truncation_of_every_seed_is_data_loss) {
  for (const std::string& seed : SeedImages()) {
    for (size_t n = 0; n < seed.size(); ++n) {
      Tensor t;
      const Status s = ParseNpy(std::string_view(seed).substr(0, n), &t);
      BOOST_REQUIRE_MESSAGE(s.code() == Code::DATA_LOSS, n << ": " << s);
    }
  }
}

BOOST_AUTO_TEST_CASE(mutated_files_fail_cleanly) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("af_npy_fuzz_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "mutated.npy").string();
  test::Rng rng(0x66696c65);
  test::RecordingAllocator alloc;
  for (const std::string& seed : SeedImages()) {
    for (int i = 0; i < 150; ++i) {
      const std::string mutated = test::Mutate(seed, rng, kHeaderBytes);
      std::ofstream(path, std::ios::binary | std::ios::trunc) << mutated;
      alloc.Reset();
      Tensor from_file;
      const Status s = ReadNpy(path, &from_file, &alloc);
      if (!CleanNpyError(s)) BOOST_FAIL("unexpected status " << s);
      BOOST_REQUIRE(alloc.largest() <= std::max<size_t>(mutated.size(), 64));
      // The file reader and the in-memory parser agree.
      Tensor from_bytes;
      const Status m = ParseNpy(mutated, &from_bytes);
      BOOST_REQUIRE_MESSAGE(m.code() == s.code(), m << " vs " << s);
      if (s.ok()) BOOST_REQUIRE(test::SameTensor(from_file, from_bytes));
    }
  }
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
