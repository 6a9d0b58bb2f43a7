// Numerical checks of the array gradients (double precision).
#include <boost/test/unit_test.hpp>

#include "client/client_session.h"
#include "grad_test_util.h"

namespace af {
namespace {

using testing::GradientError;
using testing::RandomTensor;

constexpr double kTol = 1e-6;

// y = build(x) for one placeholder x of `shape`.
template <typename Build>
double Check(const TensorShape& shape, Build build) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape(shape));
  Output y = build(root, Output(x));
  return GradientError(root, {x}, {RandomTensor(DT_DOUBLE, shape)}, {y});
}

BOOST_AUTO_TEST_SUITE(array_grad)

BOOST_AUTO_TEST_CASE(reshapes) {
  BOOST_TEST(Check({2, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::Reshape(s, x, {3, 2});
             }) < kTol);
  BOOST_TEST(Check({2, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::ExpandDims(s, x, 1);
             }) < kTol);
  BOOST_TEST(Check({2, 1, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::Squeeze(s, x);
             }) < kTol);
  BOOST_TEST(Check({2, 3, 4}, [](const Scope& s, const Output& x) -> Output {
               return ops::Transpose(s, x, {2, 0, 1});
             }) < kTol);
  BOOST_TEST(Check({3}, [](const Scope& s, const Output& x) -> Output {
               return ops::BroadcastTo(s, x, {2, 3});
             }) < kTol);
  BOOST_TEST(Check({2, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::Snapshot(s, x);
             }) < kTol);
  BOOST_TEST(Check({2, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::PlaceholderWithDefault(s, ops::Square(s, x), PartialTensorShape({2, 3}));
             }) < kTol);
  BOOST_TEST(Check({2, 3}, [](const Scope& s, const Output& x) -> Output {
               auto both = ops::IdentityN(s, {x, ops::Square(s, x)});
               return ops::Mul(s, both[0], both[1]);
             }) < kTol);
}

BOOST_AUTO_TEST_CASE(concat) {
  for (int axis : {0, 1, -1}) {
    BOOST_TEST_CONTEXT("axis " << axis) {
      Scope root = Scope::NewRootScope();
      const TensorShape as = axis == 0 ? TensorShape{1, 3} : TensorShape{2, 1};
      auto a = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape(as));
      auto b = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3}));
      auto v2 = ops::ConcatV2(root, {a, b}, axis);
      auto v1 = ops::Concat(root, axis, {b, a});
      BOOST_TEST(GradientError(root, {a, b},
                               {RandomTensor(DT_DOUBLE, as, -1, 1, 1),
                                RandomTensor(DT_DOUBLE, {2, 3}, -1, 1, 2)},
                               {v2, v1}) < kTol);
    }
  }
}

BOOST_AUTO_TEST_CASE(split) {
  BOOST_TEST(Check({4, 2}, [](const Scope& s, const Output& x) -> Output {
               auto parts = ops::Split(s, 0, x, 2);
               return ops::Sub(s, parts.output[0], ops::Square(s, parts.output[1]));
             }) < kTol);
  BOOST_TEST(Check({2, 5}, [](const Scope& s, const Output& x) -> Output {
               auto parts = ops::SplitV(s, x, {2, 3}, 1, 2);
               return ops::Sum(s, ops::Square(s, parts.output[1]), 1);
             }) < kTol);
}

BOOST_AUTO_TEST_CASE(slicing) {
  BOOST_TEST(Check({3, 4}, [](const Scope& s, const Output& x) -> Output {
               return ops::Slice(s, x, {1, 1}, {2, -1});
             }) < kTol);
  BOOST_TEST(Check({4, 5}, [](const Scope& s, const Output& x) -> Output {
               return ops::StridedSlice(s, x, {0, 4}, {4, 0}, {2, -2});
             }) < kTol);
  // shrink_axis_mask: x[1, :]
  BOOST_TEST(Check({3, 4}, [](const Scope& s, const Output& x) -> Output {
               return ops::StridedSlice(s, x, {1, 0}, {2, 0}, {1, 1},
                                        ops::StridedSlice::ShrinkAxisMask(1).EndMask(2));
             }) < kTol);
}

BOOST_AUTO_TEST_CASE(pack_and_unpack) {
  for (int axis : {0, 1}) {
    BOOST_TEST_CONTEXT("axis " << axis) {
      Scope root = Scope::NewRootScope();
      auto a = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3}));
      auto b = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3}));
      auto packed = ops::Pack(root, {a, ops::Square(root, b)}, ops::Pack::Axis(axis));
      BOOST_TEST(GradientError(root, {a, b},
                               {RandomTensor(DT_DOUBLE, {2, 3}, -1, 1, 1),
                                RandomTensor(DT_DOUBLE, {2, 3}, -1, 1, 2)},
                               {packed}) < kTol);
    }
  }
  BOOST_TEST(Check({3, 2}, [](const Scope& s, const Output& x) -> Output {
               auto parts = ops::Unpack(s, x, 2, ops::Unpack::Axis(1));
               return ops::Mul(s, parts.output[0], parts.output[1]);
             }) < kTol);
}

BOOST_AUTO_TEST_CASE(tile_and_pad) {
  BOOST_TEST(Check({2, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::Tile(s, x, {2, 3});
             }) < kTol);
  BOOST_TEST(Check({2, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::Pad(s, x, {{1, 0}, {2, 1}});
             }) < kTol);
  BOOST_TEST(Check({2, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::PadV2(s, x, {{0, 1}, {1, 1}}, 5.0);
             }) < kTol);
}

BOOST_AUTO_TEST_CASE(gather) {
  // Repeated indices sum their gradients.
  BOOST_TEST(Check({4, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::Gather(s, x, {2, 0, 2});
             }) < kTol);
  BOOST_TEST(Check({4, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::GatherV2(s, x, {{1, 3}, {3, 0}}, 0);
             }) < kTol);
  BOOST_TEST(Check({2, 4, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::GatherV2(s, x, {3, 1, 1}, 1);
             }) < kTol);
  BOOST_TEST(Check({2, 4, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::GatherV2(s, x, {2, 0}, -1);
             }) < kTol);
}

BOOST_AUTO_TEST_CASE(gather_with_batch_dims) {
  // Each batch row gathers from its own params row; repeats sum.
  BOOST_TEST(Check({2, 4, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::GatherV2(s, x, {{3, 1, 3}, {0, 0, 2}}, 1,
                                    ops::GatherV2::BatchDims(1));
             }) < kTol);
  // A gather axis after the batch dims, and int64 indices of rank 3.
  BOOST_TEST(Check({2, 3, 4}, [](const Scope& s, const Output& x) -> Output {
               Tensor idx(DT_INT64, TensorShape{2, 2, 2});
               const int64_t v[] = {3, 0, 1, 1, 2, 2, 0, 3};
               std::copy(v, v + 8, idx.data<int64_t>());
               return ops::GatherV2(s, x, ops::Const(s, Input::Initializer(idx)), 2,
                                    ops::GatherV2::BatchDims(1));
             }) < kTol);
  // Two batch dims, negative batch_dims and axis.
  BOOST_TEST(Check({2, 2, 3, 2}, [](const Scope& s, const Output& x) -> Output {
               return ops::GatherV2(s, x, {{{2, 0}, {1, 1}}, {{0, 2}, {2, 2}}}, -2,
                                    ops::GatherV2::BatchDims(-1));
             }) < kTol);
}

BOOST_AUTO_TEST_CASE(unsorted_segment_sum) {
  // A negative id drops its row, which gets no gradient.
  BOOST_TEST(Check({4, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::UnsortedSegmentSum(s, x, {0, 2, 0, -1}, 3);
             }) < kTol);
  BOOST_TEST(Check({2, 2, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::UnsortedSegmentSum(s, x, {{1, 0}, {1, -1}}, 2);
             }) < kTol);
}

// Ranks unknown while the graph is built: the mask's shape is computed in
// the step. d sum(w * UnsortedSegmentSum(x, ids)) / dx[i] = w[ids[i]] (0 for
// a dropped row).
BOOST_AUTO_TEST_CASE(unsorted_segment_sum_with_unknown_ranks) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE);
  auto ids = ops::Placeholder(root, DT_INT32);
  auto sums = ops::UnsortedSegmentSum(root, x, ids, 3);
  auto w = ops::Const(root, {{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
  auto loss = ops::Sum(root, ops::Mul(root, sums, w), {0, 1});
  std::vector<Output> grads;
  Status st = AddSymbolicGradients(root, {loss}, {x}, &grads);
  BOOST_TEST_REQUIRE(st.ok(), st);
  ClientSession session(root);
  std::vector<Tensor> out;
  st = session.Run({{x, Tensor::FromVector<double>({1, 1, 1, 1, 1, 1, 1, 1}, {4, 2})},
                    {ids, Tensor::FromVector<int32_t>({2, 0, -1, 2})}},
                   {grads[0]}, &out);
  BOOST_TEST_REQUIRE(st.ok(), st);
  const std::vector<double> want = {5, 6, 1, 2, 0, 0, 5, 6};
  for (size_t i = 0; i < want.size(); ++i) BOOST_TEST(out[0].data<double>()[i] == want[i]);
}

BOOST_AUTO_TEST_CASE(fill_value) {
  Scope root = Scope::NewRootScope();
  auto v = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({}));
  auto y = ops::Mul(root, ops::Fill(root, {2, 3}, v), ops::Const(root, 0.5, TensorShape{2, 3}));
  BOOST_TEST(GradientError(root, {v}, {Tensor::Scalar<double>(0.3)}, {y}) < kTol);
}

// CheckNumerics and Print pass the gradient through (CheckNumerics checks it).
BOOST_AUTO_TEST_CASE(check_numerics_and_print) {
  auto check = [](const Scope& s, const Output& x) -> Output {
    return ops::CheckNumerics(s, ops::Square(s, x), "squares");
  };
  BOOST_TEST(testing::UnaryGradientError(DT_DOUBLE, {2, 3}, check) < kTol);
  auto print = [](const Scope& s, const Output& x) -> Output {
    return ops::Print(s, ops::Square(s, x), {x}, ops::Print::FirstN(0));
  };
  BOOST_TEST(testing::UnaryGradientError(DT_DOUBLE, {3}, print) < kTol);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
