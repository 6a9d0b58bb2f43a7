// ConditionalAccumulator through a ClientSession (real accumulator actors
// and kernels): means and sums against double-precision reference loops,
// stale gradients dropped and counted, the global step, TensorFlow's
// AccumulatorSetGlobalStep semantics, errors that name the node, and both
// handle kinds (TF1 Ref(string) and Resource*).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "tests/actors/accumulator_test_util.h"

namespace af::testing {
namespace {

// Gradient g of `count`, element i: spread over signs and magnitudes.
std::vector<float> Gradient(int g, int64_t count) {
  std::vector<float> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    v[i] = static_cast<float>(std::sin(0.7 * g + 1.3 * i) * std::pow(10.0, (i % 5) - 2));
  }
  return v;
}

BOOST_AUTO_TEST_SUITE(accumulator_dense)

BOOST_AUTO_TEST_CASE(mean_and_sum_of_several_gradients_match_a_double_reference) {
  constexpr int kGradients = 5;
  for (const std::string reduction : {"MEAN", "SUM"}) {
    DenseAccumulator acc(PartialTensorShape({3, 4}), "dense_ref_" + reduction, reduction);
    ClientSession session(acc.root);
    for (int g = 0; g < kGradients; ++g) {
      Status s = acc.Apply(session, 0, Tensor::FromVector<float>(Gradient(g, 12), {3, 4}));
      BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
    }
    BOOST_TEST(acc.Num(session) == kGradients);
    Tensor out;
    Status s = acc.Take(session, kGradients, &out);
    BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
    BOOST_TEST(out.shape() == TensorShape({3, 4}));
    const std::vector<float> got = FloatsOf(out);
    for (int64_t i = 0; i < 12; ++i) {
      double want = 0;
      for (int g = 0; g < kGradients; ++g) want += Gradient(g, 12)[i];
      if (reduction == "MEAN") want /= kGradients;
      BOOST_TEST(std::abs(got[i] - want) <= 1e-6 * (1 + std::abs(want)),
                 reduction << " " << i << ": " << got[i] << " vs " << want);
    }
    BOOST_TEST(acc.Num(session) == 0);
    BOOST_REQUIRE(session.Reset({}).ok());
  }
}

BOOST_AUTO_TEST_CASE(a_stale_gradient_is_dropped_and_counted) {
  DenseAccumulator acc(PartialTensorShape({2}), "dense_stale");
  ClientSession session(acc.root);
  BOOST_REQUIRE(acc.SetGlobalStep(session, 3).ok());
  BOOST_REQUIRE(acc.Apply(session, 2, {100.f, 100.f}).ok());  // no error, as in TensorFlow
  BOOST_TEST(acc.Num(session) == 0);
  BOOST_TEST(DroppedGradients("dense_stale") == 1);
  BOOST_REQUIRE(acc.Apply(session, 3, {1.f, 2.f}).ok());
  BOOST_REQUIRE(acc.Apply(session, 4, {3.f, 6.f}).ok());  // from the future: kept
  BOOST_TEST(acc.Num(session) == 2);
  Tensor out;
  BOOST_REQUIRE(acc.Take(session, 2, &out).ok());
  BOOST_TEST(FloatsOf(out) == (std::vector<float>{2.f, 4.f}));
  // The take made the global step 4: step 3 is stale now.
  BOOST_REQUIRE(acc.Apply(session, 3, {1.f, 1.f}).ok());
  BOOST_TEST(acc.Num(session) == 0);
  BOOST_TEST(DroppedGradients("dense_stale") == 2);
  BOOST_REQUIRE(session.Reset({}).ok());
}

BOOST_AUTO_TEST_CASE(set_global_step_sets_a_smaller_step_too) {
  // TensorFlow logs a warning and sets it anyway; so do we.
  DenseAccumulator acc(PartialTensorShape({1}), "dense_set_step");
  ClientSession session(acc.root);
  BOOST_REQUIRE(acc.SetGlobalStep(session, 7).ok());
  BOOST_REQUIRE(acc.Apply(session, 6, {1.f}).ok());
  BOOST_TEST(acc.Num(session) == 0);
  Status s = acc.SetGlobalStep(session, 2);
  BOOST_TEST(s.ok(), s);
  BOOST_REQUIRE(acc.Apply(session, 2, {5.f}).ok());
  BOOST_TEST(acc.Num(session) == 1);
  // A take moves the step on from wherever it was set.
  Tensor out;
  BOOST_REQUIRE(acc.Take(session, 1, &out).ok());
  BOOST_REQUIRE(acc.Apply(session, 2, {5.f}).ok());
  BOOST_TEST(acc.Num(session) == 0);
  BOOST_REQUIRE(acc.Apply(session, 3, {5.f}).ok());
  BOOST_TEST(acc.Num(session) == 1);
  BOOST_REQUIRE(session.Reset({}).ok());
}

BOOST_AUTO_TEST_CASE(shape_errors_name_the_node_and_keep_what_is_held) {
  DenseAccumulator acc(PartialTensorShape({-1, 2}), "dense_shapes");
  ClientSession session(acc.root);
  Status s = acc.Apply(session, 0, Tensor::FromVector<float>({1, 2, 3}, {1, 3}));
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "node 'apply'"), s.ToString());
  BOOST_TEST(Contains(s, "ConditionalAccumulator 'dense_shapes': Shape mismatch: expected [?,2], "
                         "got [1,3]"),
             s.ToString());
  BOOST_REQUIRE(acc.Apply(session, 0, Tensor::FromVector<float>({1, 2}, {1, 2})).ok());
  // The first gradient fixes the unknown dim until the next take.
  s = acc.Apply(session, 0, Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2}));
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "node 'apply'"), s.ToString());
  BOOST_TEST(Contains(s, "Shape mismatch: expected [1,2], got [2,2]"), s.ToString());
  BOOST_TEST(acc.Num(session) == 1);

  s = session.Run(WithTimeout(kRunTimeoutMs), {{acc.step, int64_t{0}}, {acc.gradient, 1.f}}, {},
                  {acc.apply}, nullptr);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  Tensor out;
  s = acc.Take(session, 0, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "node 'take'"), s.ToString());
  BOOST_TEST(Contains(s, "Argument num_required must be positive, but was 0"), s.ToString());
  BOOST_REQUIRE(session.Reset({}).ok());
}

BOOST_AUTO_TEST_CASE(an_op_of_another_dtype_or_kind_is_refused) {
  Scope root = Scope::NewRootScope();
  auto acc = ops::ConditionalAccumulator(root.WithOpName("acc"), DT_FLOAT, PartialTensorShape({2}),
                                         ops::ConditionalAccumulator::SharedName("dense_kinds"));
  auto as_double = ops::AccumulatorApplyGradient(root.WithOpName("as_double"), acc, int64_t{0},
                                                 ops::Const(root, {1.0, 2.0}));
  auto as_sparse = ops::SparseAccumulatorTakeGradient(root.WithOpName("as_sparse"), acc, 1,
                                                      DT_FLOAT);
  auto same_name = ops::ConditionalAccumulator(
      root.WithOpName("same_name"), DT_FLOAT, PartialTensorShape({3}),
      ops::ConditionalAccumulator::SharedName("dense_kinds"));
  ClientSession session(root);
  Status s = RunOp(session, as_double.operation);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "node 'as_double'"), s.ToString());
  BOOST_TEST(Contains(s, "accumulates float but the op has dtype double"), s.ToString());
  std::vector<Tensor> out;
  s = Fetch(session, {as_sparse.indices}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "takes dense gradients"), s.ToString());
  s = Fetch(session, {same_name.handle}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "has shape [2], not [3]"), s.ToString());
  BOOST_REQUIRE(session.Reset({}).ok());
}

BOOST_AUTO_TEST_CASE(resource_handles_work_as_the_tf1_reference_handles_do) {
  DenseAccumulator acc(PartialTensorShape({2}), "dense_resource", "SUM", /*resource=*/true);
  ClientSession session(acc.root);
  BOOST_REQUIRE(acc.SetGlobalStep(session, 1).ok());
  BOOST_REQUIRE(acc.Apply(session, 0, {9.f, 9.f}).ok());
  BOOST_REQUIRE(acc.Apply(session, 1, {1.f, 2.f}).ok());
  BOOST_REQUIRE(acc.Apply(session, 1, {3.f, 4.f}).ok());
  BOOST_TEST(acc.Num(session) == 2);
  BOOST_TEST(DroppedGradients("dense_resource") == 1);
  Tensor out;
  BOOST_REQUIRE(acc.Take(session, 2, &out).ok());
  BOOST_TEST(FloatsOf(out) == (std::vector<float>{4.f, 6.f}));
  BOOST_REQUIRE(session.Reset({}).ok());
}

BOOST_AUTO_TEST_CASE(an_accumulator_without_a_shared_name_is_private_to_its_session) {
  DenseAccumulator a(PartialTensorShape({1}), "");
  DenseAccumulator b(PartialTensorShape({1}), "");
  ClientSession first(a.root), second(b.root);
  BOOST_REQUIRE(a.Apply(first, 0, {1.f}).ok());
  BOOST_TEST(a.Num(first) == 1);
  BOOST_TEST(b.Num(second) == 0);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::testing
