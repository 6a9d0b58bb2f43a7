// Numerical checks (double precision) of the gradients in
// client/gradients/sparse_grad.cc: sparse segment reductions, GatherNd and
// ScatterNd, UnsortedSegmentMax/Min, DynamicPartition and DynamicStitch.
// Index inputs are fixed, valid constants.
#include <boost/test/unit_test.hpp>

#include "client/client_session.h"
#include "grad_test_util.h"

namespace af {
namespace {

using testing::GradientError;
using testing::RandomTensor;

constexpr double kTol = 1e-6;

// y = build(x) for one placeholder x of `shape` holding `value` (random
// when empty).
template <typename Build>
double Check(const TensorShape& shape, Build build, Tensor value = Tensor()) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape(shape));
  Output y = build(root, Output(x));
  if (!value.IsInitialized()) value = RandomTensor(DT_DOUBLE, shape);
  return GradientError(root, {x}, {value}, {y});
}

// Runs the gradient of sum(w * y) with respect to x (y of rank 2), for
// checks of exact values (ties) and of graphs whose shapes are known only
// in the step, which a numerical Jacobian cannot make.
std::vector<double> GradOfWeightedSum(const Scope& root, const Output& x, const Tensor& x_value,
                                      const Output& y, const Output& w) {
  auto loss = ops::Sum(root, ops::Mul(root, y, w), {0, 1});
  std::vector<Output> grads;
  Status st = AddSymbolicGradients(root, {loss}, {x}, &grads);
  BOOST_TEST_REQUIRE(st.ok(), st);
  ClientSession session(root);
  std::vector<Tensor> out;
  st = session.Run({{x, x_value}}, {grads[0]}, &out);
  BOOST_TEST_REQUIRE(st.ok(), st);
  return std::vector<double>(out[0].data<double>(), out[0].data<double>() + out[0].NumElements());
}

BOOST_AUTO_TEST_SUITE(sparse_grad)

BOOST_AUTO_TEST_CASE(sparse_segment_reductions) {
  // Row 2 is picked twice, row 3 never; segment 2 is empty.
  const Input indices = {0, 2, 2, 4, 1};
  const Input ids = {0, 0, 1, 3, 3};
  BOOST_TEST(Check({5, 3}, [&](const Scope& s, const Output& x) -> Output {
               return ops::Reshape(s, ops::SparseSegmentSum(s, x, indices, ids), {4, 3});
             }) < kTol);
  BOOST_TEST(Check({5, 3}, [&](const Scope& s, const Output& x) -> Output {
               return ops::Reshape(s, ops::SparseSegmentMean(s, x, indices, ids), {4, 3});
             }) < kTol);
  BOOST_TEST(Check({5, 3}, [&](const Scope& s, const Output& x) -> Output {
               return ops::Reshape(s, ops::SparseSegmentSqrtN(s, x, indices, ids), {4, 3});
             }) < kTol);
  BOOST_TEST(Check({5, 3}, [&](const Scope& s, const Output& x) -> Output {
               return ops::SparseSegmentSumWithNumSegments(s, x, indices, ids, 6);
             }) < kTol);
  BOOST_TEST(Check({5, 3}, [&](const Scope& s, const Output& x) -> Output {
               return ops::SparseSegmentMeanWithNumSegments(s, x, indices, ids, 5);
             }) < kTol);
  BOOST_TEST(Check({5, 2, 2}, [&](const Scope& s, const Output& x) -> Output {
               return ops::SparseSegmentSqrtNWithNumSegments(
                   s, x, Input({int64_t{4}, int64_t{4}, int64_t{0}}), Input({0, 0, 1}), int64_t{3});
             }) < kTol);
}

// data's row count unknown while the graph is built: output_dim0 is
// computed in the step.
BOOST_AUTO_TEST_CASE(sparse_segment_sum_with_unknown_rows) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({-1, 2}));
  auto y = ops::SparseSegmentSumWithNumSegments(root, x, {1, 1, 3}, {0, 1, 1}, 2);
  auto w = ops::Const(root, {{1.0, 2.0}, {3.0, 4.0}});
  const std::vector<double> got = GradOfWeightedSum(
      root, x, Tensor::FromVector<double>({0, 0, 0, 0, 0, 0, 0, 0}, {4, 2}), y, w);
  const std::vector<double> want = {0, 0, 4, 6, 0, 0, 3, 4};
  BOOST_TEST(got == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(gather_nd_and_scatter_nd) {
  // Element gathers with a repeat, then slice gathers.
  BOOST_TEST(Check({3, 4}, [](const Scope& s, const Output& x) -> Output {
               return ops::GatherNd(s, x, {{0, 1}, {2, 3}, {0, 1}});
             }) < kTol);
  BOOST_TEST(Check({3, 4}, [](const Scope& s, const Output& x) -> Output {
               return ops::GatherNd(s, x, {{{2}, {0}}, {{2}, {1}}});
             }) < kTol);
  BOOST_TEST(Check({2, 3, 2}, [](const Scope& s, const Output& x) -> Output {
               return ops::GatherNd(s, x, Input({int64_t{1}, int64_t{2}}));
             }) < kTol);
  // Repeated indices add their updates.
  BOOST_TEST(Check({3, 2}, [](const Scope& s, const Output& u) -> Output {
               return ops::ScatterNd(s, Input({{1}, {3}, {1}}), u, {4, 2});
             }) < kTol);
  BOOST_TEST(Check({2}, [](const Scope& s, const Output& u) -> Output {
               return ops::ScatterNd(s, Input({{0, 1}, {1, 0}}), u, {2, 2});
             }) < kTol);
}

// Values far apart, so that no step of the numerical check changes which
// entry is the max or min of its segment; the row with id -1 is dropped.
BOOST_AUTO_TEST_CASE(unsorted_segment_max_and_min) {
  const Tensor data = Tensor::FromVector<double>(
      {0.3, -1.2, 2.5, 0.7, -0.4, 1.9, 3.1, -2.2, 1.1, 0.1, -0.9, 2.8}, {6, 2});
  const Input ids = {0, 2, 0, -1, 1, 2};
  BOOST_TEST(Check(
                 {6, 2},
                 [&](const Scope& s, const Output& x) -> Output {
                   return ops::UnsortedSegmentMax(s, x, ids, 3);
                 },
                 data) < kTol);
  BOOST_TEST(Check(
                 {6, 2},
                 [&](const Scope& s, const Output& x) -> Output {
                   return ops::UnsortedSegmentMin(s, x, ids, 3);
                 },
                 data) < kTol);
  // ids of rank 2 over data of rank 3.
  BOOST_TEST(Check(
                 {2, 3, 2},
                 [](const Scope& s, const Output& x) -> Output {
                   return ops::UnsortedSegmentMax(s, x, {{1, 0, 1}, {0, -1, 1}}, 2);
                 },
                 Tensor::FromVector<double>(
                     {0.3, -1.2, 2.5, 0.7, -0.4, 1.9, 3.1, -2.2, 1.1, 0.1, -0.9, 2.8}, {2, 3, 2})) <
             kTol);
}

// Ties share the gradient evenly, as TensorFlow splits it; ids and ranks
// known only in the step.
BOOST_AUTO_TEST_CASE(unsorted_segment_max_splits_ties) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE);
  auto y = ops::UnsortedSegmentMax(root, x, ops::Const(root, {0, 0, 0, 1, -1}), 2);
  auto w = ops::Const(root, {{2.0}, {10.0}});
  const std::vector<double> got =
      GradOfWeightedSum(root, x, Tensor::FromVector<double>({1, 1, 0, 4, 9}, {5, 1}), y, w);
  const std::vector<double> want = {1, 1, 0, 10, 0};
  BOOST_TEST(got == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(dynamic_partition) {
  // Every output used, each reshaped to its known row count.
  {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({4, 2}));
    auto parts = ops::DynamicPartition(root, x, {1, 0, 1, 2}, 3);
    auto y0 = ops::Reshape(root, parts[0], {1, 2});
    auto y1 = ops::Square(root, ops::Reshape(root, parts[1], {2, 2}));
    auto y2 = ops::Reshape(root, parts[2], {1, 2});
    BOOST_TEST(GradientError(root, {x}, {RandomTensor(DT_DOUBLE, {4, 2})}, {y0, y1, y2}) < kTol);
  }
  // Partitions of rank 2; one output unused gets zeros.
  BOOST_TEST(Check({2, 2, 3}, [](const Scope& s, const Output& x) -> Output {
               auto parts = ops::DynamicPartition(s, x, {{0, 1}, {1, 1}}, 2);
               return ops::Reshape(s, parts[1], {3, 3});
             }) < kTol);
}

// No index repeats, so every data entry reaches the output.
BOOST_AUTO_TEST_CASE(dynamic_stitch) {
  for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
    BOOST_TEST_CONTEXT(op) {
      Scope root = Scope::NewRootScope();
      auto a = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 2}));
      auto b = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({3, 2}));
      const InputList indices = std::vector<Input>{Input({0, 3}), Input({1, 2, 4})};
      Output y = std::string(op) == "DynamicStitch"
                     ? Output(ops::DynamicStitch(root, indices, {a, ops::Square(root, b)}))
                     : Output(ops::ParallelDynamicStitch(root, indices, {a, b}));
      BOOST_TEST(GradientError(root, {a, b},
                               {RandomTensor(DT_DOUBLE, {2, 2}, -1, 1, 1),
                                RandomTensor(DT_DOUBLE, {3, 2}, -1, 1, 2)},
                               {y}) < kTol);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
