// Transpose (every fast path and the general case) and InvertPermutation
// against index-by-index reference loops.
#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "tests/kernels/array_test_util.h"

namespace af::test {
namespace {

// out[j] = in[i] where in's index at dim perm[d] is out's index at d.
std::vector<int64_t> ReferenceTranspose(const TensorShape& in, const std::vector<int64_t>& perm,
                                        TensorShape* out) {
  *out = TensorShape();
  for (int64_t p : perm) out->AddDim(in.dim_size(static_cast<int>(p)));
  std::vector<int64_t> source(static_cast<size_t>(out->num_elements()));
  for (int64_t j = 0; j < out->num_elements(); ++j) {
    const std::vector<int64_t> out_index = Unflatten(*out, j);
    std::vector<int64_t> in_index(perm.size());
    for (size_t d = 0; d < perm.size(); ++d) in_index[perm[d]] = out_index[d];
    source[static_cast<size_t>(j)] = Flatten(in, in_index);
  }
  return source;
}

void CheckTranspose(const Tensor& in, const std::vector<int64_t>& perm, DataType perm_type) {
  TensorShape want;
  const std::vector<int64_t> source = ReferenceTranspose(in.shape(), perm, &want);
  KernelRunner runner("Transpose");
  runner.Input(in).Input(Ints(perm, perm_type));
  auto out = runner.Run();
  AF_REQUIRE_OK(out.status());
  const Status s = CheckPicked((*out)[0], want, in, source);
  BOOST_CHECK_MESSAGE(s.ok(), s.ToString() << " for input " << in.shape().DebugString() << " perm "
                                           << Ints(perm).DebugString());
}

BOOST_AUTO_TEST_SUITE(transpose_ops)

BOOST_AUTO_TEST_CASE(random_permutations_of_random_shapes_match_the_reference) {
  std::mt19937 rng(42);
  uint32_t seed = 1;
  for (int rank = 0; rank <= 7; ++rank) {
    for (int trial = 0; trial < 6; ++trial) {
      const TensorShape shape = RandomShape(rng, rank, trial == 0 ? 0 : 1, rank > 4 ? 3 : 5);
      std::vector<int64_t> perm(static_cast<size_t>(rank));
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng);
      for (DataType dt : MovableTestTypes())
        CheckTranspose(RandomValues(dt, shape, seed++), perm, trial % 2 ? DT_INT32 : DT_INT64);
    }
  }
}

BOOST_AUTO_TEST_CASE(fast_paths_match_the_reference) {
  uint32_t seed = 500;
  struct Case {
    TensorShape shape;
    std::vector<int64_t> perm;
  };
  const std::vector<Case> cases = {
      {{37, 53}, {1, 0}},            // 2-D, several tiles, ragged edges
      {{1, 64}, {1, 0}},             // only moves a size-1 dim: shared
      {{3, 33, 17}, {0, 2, 1}},      // batched 2-D
      {{4, 5, 6, 7}, {1, 0, 2, 3}},  // keeps the last dims: row copies
      {{2, 3, 4, 5}, {2, 0, 1, 3}},  // keeps the last dim
      {{2, 3, 4}, {2, 1, 0}},        // general strided
      {{6, 1, 5, 1}, {3, 2, 1, 0}},  // size-1 dims dropped: 2-D
      {{2, 3, 4}, {0, 1, 2}},        // identity: shared
  };
  for (const Case& c : cases)
    for (DataType dt : MovableTestTypes())
      CheckTranspose(RandomValues(dt, c.shape, seed++), c.perm, DT_INT32);
}

BOOST_AUTO_TEST_CASE(permutations_that_move_no_data_share_the_buffer) {
  for (const auto& [shape, perm] : std::vector<std::pair<TensorShape, std::vector<int64_t>>>{
           {{2, 3, 4}, {0, 1, 2}}, {{1, 5}, {1, 0}}, {{3, 1, 1, 4}, {0, 2, 1, 3}}, {{}, {}}}) {
    Tensor in = RandomValues(DT_FLOAT, shape, 9);
    KernelRunner runner("Transpose");
    runner.Input(in).Input(Ints(perm));
    auto out = runner.Run();
    AF_REQUIRE_OK(out.status());
    BOOST_CHECK((*out)[0].SharesBufferWith(in));
  }
}

BOOST_AUTO_TEST_CASE(bad_permutations_are_rejected_naming_the_node) {
  struct Case {
    std::vector<int64_t> perm;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{0, 1}, "transpose expects a vector of size 3. But input(1) is a vector of size 2"},
      {{0, 1, 3}, "perm[2] = 3 is out of range [0, 3)"},
      {{0, -1, 2}, "perm[1] = -1 is out of range [0, 3)"},
      {{0, 2, 0}, "perm is not a permutation: 0 appears at both perm[0] and perm[2]"},
  };
  for (const Case& c : cases) {
    KernelRunner runner("Transpose", "tr");
    runner.Input(Tensor(DT_FLOAT, TensorShape{2, 3, 4})).Input(Ints(c.perm));
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(
        Contains(out.status().message(), "node 'tr' (op 'Transpose'): " + c.message),
        out.status().ToString());
  }
}

BOOST_AUTO_TEST_CASE(invert_permutation_inverts_and_rejects_non_permutations) {
  std::mt19937 rng(3);
  for (int n : {0, 1, 5, 40}) {
    std::vector<int64_t> perm(static_cast<size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<double> want(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) want[static_cast<size_t>(perm[i])] = i;
    for (DataType dt : {DT_INT32, DT_INT64}) {
      auto out = RunKernel("InvertPermutation", {Ints(perm, dt)});
      AF_REQUIRE_OK(out.status());
      AF_EXPECT_OK(CheckTensor((*out)[0], dt, {n}, want));
    }
  }
  struct Case {
    Tensor x;
    std::string message;
  };
  const std::vector<Case> cases = {
      {Ints({0, 3, 1}), "x[1] = 3 is not between 0 and 3"},
      {Ints({1, 1, 0}), "1 is duplicated in the input."},
      {IntsOfShape({0, 1}, {1, 2}), "invert_permutation expects a 1D vector"},
  };
  for (const Case& c : cases) {
    KernelRunner runner("InvertPermutation", "inv");
    runner.Input(c.x);
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(
        Contains(out.status().message(), "node 'inv' (op 'InvertPermutation'): " + c.message),
        out.status().ToString());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
