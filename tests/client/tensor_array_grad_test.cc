// Numerical checks of the TensorArray gradients in straight-line graphs
// (double precision): Write->Read, Scatter->Gather, Split->Concat and
// mixtures, including gradient arrays that sum two writes to one index and
// elements whose gradient is zero because nothing read them.
#include <boost/test/unit_test.hpp>

#include "client/client_session.h"
#include "client/gradient_checker.h"
#include "client/gradients.h"
#include "client/standard_ops.h"
#include "grad_test_util.h"

namespace af {
namespace {

using testing::RandomTensor;

constexpr double kTol = 1e-6;

// The checker needs the ys' shapes; reads of an array have none statically.
double Error(const Scope& root, const OutputList& xs, const std::vector<Tensor>& x_values,
             const OutputList& ys, const std::vector<TensorShape>& y_shapes) {
  BOOST_TEST_REQUIRE(root.ok(), root.status());
  double error = -1;
  GradientCheckOptions options;
  options.delta = 1e-4;
  const Status s = ComputeGradientError(root, xs, x_values, ys, y_shapes, &error, options);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST_MESSAGE(boost::unit_test::framework::current_test_case().full_name()
                     << ": max |symbolic - numerical| = " << error);
  return error;
}

ops::TensorArrayV3 Array(const Scope& s, int size, bool clear_after_read = true,
                         PartialTensorShape element_shape = PartialTensorShape()) {
  return ops::TensorArrayV3(
      s, size, DT_DOUBLE,
      ops::TensorArrayV3::ClearAfterRead(clear_after_read).ElementShape(element_shape));
}

BOOST_AUTO_TEST_SUITE(tensor_array_grad)

BOOST_AUTO_TEST_CASE(write_then_read_is_the_identity) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3}));
  auto ta = Array(root, 1);
  auto w = ops::TensorArrayWriteV3(root, ta.handle, 0, x, ta.flow);
  auto r = ops::TensorArrayReadV3(root, ta.handle, 0, w.flow_out, DT_DOUBLE);
  auto y = ops::Mul(root, r.value, r.value);
  BOOST_TEST(Error(root, {x}, {RandomTensor(DT_DOUBLE, {2, 3})}, {y}, {{2, 3}}) < kTol);
}

BOOST_AUTO_TEST_CASE(reads_of_two_written_indices_summed) {
  Scope root = Scope::NewRootScope();
  Output x0 = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({3}));
  Output x1 = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({3}));
  auto ta = Array(root, 2);
  auto w0 = ops::TensorArrayWriteV3(root, ta.handle, 0, x0, ta.flow);
  auto w1 = ops::TensorArrayWriteV3(root, ta.handle, 1, ops::Square(root, x1), w0.flow_out);
  auto r0 = ops::TensorArrayReadV3(root, ta.handle, 0, w1.flow_out, DT_DOUBLE);
  auto r1 = ops::TensorArrayReadV3(root, ta.handle, 1, w1.flow_out, DT_DOUBLE);
  auto y =
      ops::Add(root, ops::Mul(root, r0.value, ops::Const(root, 3.0)), ops::Sin(root, r1.value));
  BOOST_TEST(Error(root, {x0, x1},
                   {RandomTensor(DT_DOUBLE, {3}, -1, 1, 1), RandomTensor(DT_DOUBLE, {3}, -1, 1, 2)},
                   {y}, {{3}}) < kTol);
}

BOOST_AUTO_TEST_CASE(two_reads_of_one_index_sum_into_the_gradient_array) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 2}));
  auto ta = Array(root, 1, /*clear_after_read=*/false);
  auto w = ops::TensorArrayWriteV3(root, ta.handle, 0, x, ta.flow);
  auto a = ops::TensorArrayReadV3(root, ta.handle, 0, w.flow_out, DT_DOUBLE);
  auto b = ops::TensorArrayReadV3(root, ta.handle, 0, w.flow_out, DT_DOUBLE);
  // dy/dx = cos(x) + 2: both reads' gradients reach index 0 of the
  // gradient array, which sums them.
  auto y = ops::Add(root, ops::Sin(root, a.value), ops::Mul(root, b.value, ops::Const(root, 2.0)));
  BOOST_TEST(Error(root, {x}, {RandomTensor(DT_DOUBLE, {2, 2})}, {y}, {{2, 2}}) < kTol);

  // And the symbolic gradient itself, against the formula.
  std::vector<Output> grads;
  BOOST_TEST_REQUIRE(AddSymbolicGradients(root, {y}, {x}, &grads).ok());
  ClientSession session(root);
  const Tensor xv = RandomTensor(DT_DOUBLE, {2, 2}, -1, 1, 5);
  std::vector<Tensor> out;
  const Status s = session.Run({{x, xv}}, {grads[0]}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  for (int i = 0; i < 4; ++i)
    BOOST_TEST(out[0].data<double>()[i] == std::cos(xv.data<double>()[i]) + 2.0,
               boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(an_element_nothing_reads_gets_a_zero_gradient) {
  Scope root = Scope::NewRootScope();
  Output x0 = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
  Output x1 = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
  auto ta = Array(root, 2, true, PartialTensorShape({2}));
  auto w0 = ops::TensorArrayWriteV3(root, ta.handle, 0, x0, ta.flow);
  auto w1 = ops::TensorArrayWriteV3(root, ta.handle, 1, x1, w0.flow_out);
  auto r0 = ops::TensorArrayReadV3(root, ta.handle, 0, w1.flow_out, DT_DOUBLE);
  auto y = ops::Square(root, r0.value);
  std::vector<Output> grads;
  BOOST_TEST_REQUIRE(AddSymbolicGradients(root, {y}, {x0, x1}, &grads).ok());
  ClientSession session(root);
  std::vector<Tensor> out;
  const Status s = session.Run(
      {{x0, Tensor::FromVector<double>({1.5, -2})}, {x1, Tensor::FromVector<double>({7, 8})}},
      {grads[0], grads[1]}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].data<double>()[0] == 3.0);
  BOOST_TEST(out[0].data<double>()[1] == -4.0);
  BOOST_TEST(out[1].data<double>()[0] == 0.0);
  BOOST_TEST(out[1].data<double>()[1] == 0.0);
  BOOST_TEST(out[1].shape() == TensorShape({2}));
}

BOOST_AUTO_TEST_CASE(gather_of_scatter_times_w) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({3, 2}));
  Output wt = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({3, 2}));
  auto ta = Array(root, 3);
  auto sc = ops::TensorArrayScatterV3(root, ta.handle, {2, 0, 1}, x, ta.flow);
  auto g = ops::TensorArrayGatherV3(root, ta.handle, {1, 2, 0}, sc.flow_out, DT_DOUBLE);
  auto y = ops::Mul(root, g.value, wt);
  BOOST_TEST(
      Error(root, {x, wt},
            {RandomTensor(DT_DOUBLE, {3, 2}, -1, 1, 3), RandomTensor(DT_DOUBLE, {3, 2}, -1, 1, 4)},
            {y}, {{3, 2}}) < kTol);
}

BOOST_AUTO_TEST_CASE(gather_repeating_an_index_and_skipping_one) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({3, 2}));
  auto ta = Array(root, 3, /*clear_after_read=*/false);
  auto sc = ops::TensorArrayScatterV3(root, ta.handle, {0, 1, 2}, x, ta.flow);
  // Element 1 twice (summed gradient writes), element 2 never (zeros).
  auto g = ops::TensorArrayGatherV3(root, ta.handle, {1, 0, 1}, sc.flow_out, DT_DOUBLE);
  auto y = ops::Square(root, g.value);
  BOOST_TEST(Error(root, {x}, {RandomTensor(DT_DOUBLE, {3, 2})}, {y}, {{3, 2}}) < kTol);
}

BOOST_AUTO_TEST_CASE(concat_of_split) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({5, 2}));
  auto ta = Array(root, 3);
  auto sp =
      ops::TensorArraySplitV3(root, ta.handle, x, Tensor::FromVector<int64_t>({2, 0, 3}), ta.flow);
  auto c = ops::TensorArrayConcatV3(root, ta.handle, sp.flow_out, DT_DOUBLE);
  auto y = ops::Mul(root, ops::Sin(root, c.value), c.value);
  BOOST_TEST(Error(root, {x}, {RandomTensor(DT_DOUBLE, {5, 2})}, {y}, {{5, 2}}) < kTol);
}

BOOST_AUTO_TEST_CASE(mixtures_of_writers_and_readers) {
  // Split, then Read one piece and Gather the others.
  {
    Scope root = Scope::NewRootScope();
    Output x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({4, 3}));
    auto ta = Array(root, 4);
    auto sp = ops::TensorArraySplitV3(root, ta.handle, x, Tensor::FromVector<int64_t>({1, 1, 1, 1}),
                                      ta.flow);
    auto r = ops::TensorArrayReadV3(root, ta.handle, 3, sp.flow_out, DT_DOUBLE);
    auto g = ops::TensorArrayGatherV3(root, ta.handle, {0, 2}, sp.flow_out, DT_DOUBLE);
    auto y = ops::Add(root, ops::Square(root, g.value), r.value);  // [2,1,3] + [1,3]
    BOOST_TEST(Error(root, {x}, {RandomTensor(DT_DOUBLE, {4, 3})}, {y}, {{2, 1, 3}}) < kTol);
  }
  // Writes, then Concat; and Scatter, then Read.
  {
    Scope root = Scope::NewRootScope();
    Output a = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({1, 2}));
    Output b = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 2}));
    auto ta = Array(root, 2);
    auto w0 = ops::TensorArrayWriteV3(root, ta.handle, 0, a, ta.flow);
    auto w1 = ops::TensorArrayWriteV3(root, ta.handle, 1, ops::Exp(root, b), w0.flow_out);
    auto c = ops::TensorArrayConcatV3(root, ta.handle, w1.flow_out, DT_DOUBLE);

    auto ta2 = Array(root, 3);
    auto sc = ops::TensorArrayScatterV3(root, ta2.handle, {0, 1, 2}, c.value, ta2.flow);
    auto r = ops::TensorArrayReadV3(root, ta2.handle, 2, sc.flow_out, DT_DOUBLE);
    auto y = ops::Mul(root, r.value, ops::Const(root, {1.0, -3.0}, {2}));
    BOOST_TEST(Error(root, {a, b},
                     {RandomTensor(DT_DOUBLE, {1, 2}, -1, 1, 8),
                      RandomTensor(DT_DOUBLE, {2, 2}, -1, 1, 9)},
                     {y, c.value}, {{2}, {3, 2}}) < kTol);
  }
}

BOOST_AUTO_TEST_CASE(stack_ops_pass_no_gradient) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
  auto stack = ops::StackV2(root, -1, DT_DOUBLE);
  auto push = ops::StackPushV2(root, stack.handle, x);
  auto y = ops::Square(root, push.output);
  std::vector<Output> grads;
  BOOST_TEST_REQUIRE(AddSymbolicGradients(root, {y}, {x}, &grads).ok());
  ClientSession session(root);
  std::vector<Tensor> out;
  const Status s = session.Run({{x, Tensor::FromVector<double>({1, 2})}}, {grads[0]}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].data<double>()[0] == 0.0);
  BOOST_TEST(out[0].data<double>()[1] == 0.0);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
