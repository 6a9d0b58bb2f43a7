// ArgMax and ArgMin along every axis (negative too), both output types,
// ties, NaN, and the error paths.
#include <cmath>
#include <string>
#include <vector>

#include "tests/kernels/math_test_util.h"

namespace af::test {
namespace {

// Index of the first best element along `axis` for every other position.
std::vector<double> ReferenceArg(const Tensor& x, int axis, bool max, TensorShape* shape) {
  TensorShape out = x.shape();
  out.RemoveDim(axis);
  *shape = out;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x.dim_size(d);
  for (int d = axis + 1; d < x.dims(); ++d) inner *= x.dim_size(d);
  const int64_t rows = x.dim_size(axis);
  std::vector<double> want;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0;
      for (int64_t r = 1; r < rows; ++r) {
        const double v = ValueAsDouble(x, (o * rows + r) * inner + i);
        const double b = ValueAsDouble(x, (o * rows + best) * inner + i);
        if (max ? v > b : v < b) best = r;
      }
      want.push_back(static_cast<double>(best));
    }
  return want;
}

template <typename T>
void CheckArgOps() {
  uint32_t seed = 60;
  for (const TensorShape& shape :
       {TensorShape{9}, TensorShape{4, 7}, TensorShape{3, 5, 6}, TensorShape{2, 700, 3},
        TensorShape{3, 1, 600}, TensorShape{0, 4}}) {
    // Small integers make ties common; the first occurrence must win.
    const Tensor x = RandomTensor<T>(shape, ++seed, -4, 4);
    for (int axis = -shape.dims(); axis < shape.dims(); ++axis) {
      const int a = axis < 0 ? axis + shape.dims() : axis;
      if (shape.dim_size(a) == 0) continue;
      for (bool max : {true, false}) {
        for (DataType index_type : {DT_INT64, DT_INT32}) {
          const std::string op = max ? "ArgMax" : "ArgMin";
          BOOST_TEST_CONTEXT(op << "<" << DataTypeString(DataTypeToEnum<T>::value) << "> "
                                << shape.DebugString() << " axis " << axis << " -> "
                                << DataTypeString(index_type)) {
            KernelRunner runner(op);
            runner.Attr("output_type", index_type).Input(x);
            runner.Input(index_type == DT_INT64 ? Tensor::Scalar<int64_t>(axis)
                                                : Tensor::Scalar<int32_t>(axis));
            auto out = runner.Run();
            AF_REQUIRE_OK(out.status());
            TensorShape want_shape;
            const std::vector<double> want = ReferenceArg(x, a, max, &want_shape);
            AF_EXPECT_OK(CheckTensor((*out)[0], index_type, want_shape, want));
          }
        }
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE(argminmax)

BOOST_AUTO_TEST_CASE(float_arg_ops) { CheckArgOps<float>(); }
BOOST_AUTO_TEST_CASE(double_arg_ops) { CheckArgOps<double>(); }
BOOST_AUTO_TEST_CASE(int32_arg_ops) { CheckArgOps<int32_t>(); }
BOOST_AUTO_TEST_CASE(int64_arg_ops) { CheckArgOps<int64_t>(); }

BOOST_AUTO_TEST_CASE(default_output_type_is_int64) {
  auto out =
      RunKernel("ArgMax", {Tensor::FromVector<float>({1, 5, 2}), Tensor::Scalar<int32_t>(0)});
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK_EQUAL((*out)[0].dtype(), DT_INT64);
  BOOST_CHECK_EQUAL((*out)[0].scalar<int64_t>(), 1);
}

BOOST_AUTO_TEST_CASE(first_nan_wins) {
  const float nan = std::nanf("");
  const Tensor x = Tensor::FromVector<float>({1, nan, 9, nan, 0, -1}, {2, 3});
  auto max = RunKernel("ArgMax", {x, Tensor::Scalar<int32_t>(1)});
  auto min = RunKernel("ArgMin", {x, Tensor::Scalar<int32_t>(0)});
  AF_REQUIRE_OK(max.status());
  AF_REQUIRE_OK(min.status());
  AF_EXPECT_OK(CheckTensor((*max)[0], DT_INT64, {2}, {1, 0}));
  AF_EXPECT_OK(CheckTensor((*min)[0], DT_INT64, {3}, {1, 0, 1}));
}

BOOST_AUTO_TEST_CASE(bool_input) {
  auto out = RunKernel(
      "ArgMax", {Tensor::FromVector<bool>({false, false, true, true}), Tensor::Scalar<int64_t>(0)});
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK_EQUAL((*out)[0].scalar<int64_t>(), 2);
}

BOOST_AUTO_TEST_CASE(errors) {
  const Tensor x = RandomTensor<float>({2, 3}, 1);
  ExpectError(RunKernel("ArgMax", {x, Tensor::Scalar<int32_t>(2)}), Code::INVALID_ARGUMENT,
              "ArgMax", {"Expected dimension in the range [-2, 2), but got 2"});
  ExpectError(RunKernel("ArgMin", {x, Tensor::FromVector<int32_t>({0})}), Code::INVALID_ARGUMENT,
              "ArgMin", {"dim must be a scalar", "[1]"});
  ExpectError(
      RunKernel("ArgMax", {Tensor(DT_FLOAT, TensorShape{3, 0}), Tensor::Scalar<int32_t>(1)}),
      Code::INVALID_ARGUMENT, "ArgMax", {"Reduction axis 1 is empty in shape [3,0]"});
  ExpectError(RunKernel("ArgMax", {Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(0)}),
              Code::INVALID_ARGUMENT, "ArgMax", {"Expected dimension in the range [0, 0)"});
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
