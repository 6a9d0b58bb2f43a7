// Neg, Square, LogicalNot and AddN against reference loops.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/op_test_util.h"

namespace af::test {
namespace {

template <typename T, typename Ref>
void CheckUnary(const std::string& op, Ref ref) {
  uint32_t seed = 11;
  for (const TensorShape& shape : {TensorShape{}, TensorShape{7}, TensorShape{3, 5, 2},
                                   TensorShape{0, 4}, TensorShape{1000}}) {
    BOOST_TEST_CONTEXT(op << "<" << DataTypeString(DataTypeToEnum<T>::value) << "> "
                          << shape.DebugString()) {
      Tensor x = std::is_integral_v<T> ? RandomTensor<T>(shape, ++seed, -1000, 1000)
                                       : RandomTensor<T>(shape, ++seed, -10.0, 10.0);
      auto out = RunKernel(op, {x});
      AF_REQUIRE_OK(out.status());
      std::vector<double> want;
      for (int64_t i = 0; i < x.NumElements(); ++i) want.push_back(ref(ValueAsDouble(x, i)));
      AF_EXPECT_OK(CheckTensor((*out)[0], DataTypeToEnum<T>::value, shape, want, Tolerance<T>(),
                               Tolerance<T>()));
    }
  }
}

template <typename T>
void CheckNegAndSquare() {
  CheckUnary<T>("Neg", [](double a) { return -a; });
  CheckUnary<T>("Square", [](double a) { return a * a; });
}

template <typename T>
void CheckAddN() {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  uint32_t seed = 21;
  // Sizes around the kernel's block size, and an empty tensor.
  for (const TensorShape& shape :
       {TensorShape{}, TensorShape{3, 4}, TensorShape{2049}, TensorShape{5000}, TensorShape{0}}) {
    for (int n : {1, 2, 3, 6}) {
      BOOST_TEST_CONTEXT("AddN<" << DataTypeString(dt) << "> n=" << n << " "
                                 << shape.DebugString()) {
        std::vector<Tensor> inputs;
        std::vector<double> want(shape.num_elements(), 0.0);
        for (int k = 0; k < n; ++k) {
          inputs.push_back(RandomTensor<T>(shape, ++seed, -50, 50));
          for (int64_t i = 0; i < shape.num_elements(); ++i)
            want[i] += ValueAsDouble(inputs.back(), i);
        }
        auto out = RunKernel("AddN", inputs);
        AF_REQUIRE_OK(out.status());
        AF_EXPECT_OK(CheckTensor((*out)[0], dt, shape, want, Tolerance<T>(), 1e-4));
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE(cwise_unary)

BOOST_AUTO_TEST_CASE(neg_and_square_float) { CheckNegAndSquare<float>(); }
BOOST_AUTO_TEST_CASE(neg_and_square_double) { CheckNegAndSquare<double>(); }
BOOST_AUTO_TEST_CASE(neg_and_square_int32) { CheckNegAndSquare<int32_t>(); }
BOOST_AUTO_TEST_CASE(neg_and_square_int64) { CheckNegAndSquare<int64_t>(); }

BOOST_AUTO_TEST_CASE(neg_of_the_most_negative_integer_wraps) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  auto out = RunKernel("Neg", {Tensor::Scalar<int32_t>(kMin)});
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK_EQUAL((*out)[0].scalar<int32_t>(), kMin);
}

BOOST_AUTO_TEST_CASE(logical_not) {
  Tensor x = RandomTensor<bool>({4, 9}, 3);
  auto out = RunKernel("LogicalNot", {x});
  AF_REQUIRE_OK(out.status());
  std::vector<double> want;
  for (int64_t i = 0; i < x.NumElements(); ++i) want.push_back(ValueAsDouble(x, i) ? 0 : 1);
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_BOOL, {4, 9}, want));
}

BOOST_AUTO_TEST_CASE(add_n_float) { CheckAddN<float>(); }
BOOST_AUTO_TEST_CASE(add_n_double) { CheckAddN<double>(); }
BOOST_AUTO_TEST_CASE(add_n_int32) { CheckAddN<int32_t>(); }
BOOST_AUTO_TEST_CASE(add_n_int64) { CheckAddN<int64_t>(); }

BOOST_AUTO_TEST_CASE(add_n_rejects_mismatched_shapes) {
  KernelRunner runner("AddN", "sum");
  runner.Input(RandomTensor<float>({2, 3}, 1))
      .Input(RandomTensor<float>({2, 3}, 2))
      .Input(RandomTensor<float>({3, 2}, 3));
  auto out = runner.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
  const std::string& msg = out.status().message();
  BOOST_CHECK_MESSAGE(msg.find("must have the same size and shape") != std::string::npos &&
                          msg.find("Input 0: [2,3] != input 2: [3,2]") != std::string::npos,
                      msg);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
