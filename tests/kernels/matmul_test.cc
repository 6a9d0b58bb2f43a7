// MatMul in every transpose combination against a double-precision triple
// loop.
#include <string>
#include <vector>

#include "tests/kernels/op_test_util.h"

namespace af::test {
namespace {

// Element (r, c) of op(m), where m is stored row-major untransposed.
double At(const Tensor& m, bool transposed, int64_t r, int64_t c) {
  return transposed ? ValueAsDouble(m, c * m.dim_size(1) + r)
                    : ValueAsDouble(m, r * m.dim_size(1) + c);
}

template <typename T>
void CheckMatMul(int64_t m, int64_t k, int64_t n, uint32_t seed) {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      BOOST_TEST_CONTEXT("MatMul<" << DataTypeString(dt) << "> " << m << "x" << k << " * " << k
                                   << "x" << n << " transpose_a=" << ta << " transpose_b=" << tb) {
        const TensorShape a_shape = ta ? TensorShape{k, m} : TensorShape{m, k};
        const TensorShape b_shape = tb ? TensorShape{n, k} : TensorShape{k, n};
        Tensor a = RandomTensor<T>(a_shape, seed, -10, 10);
        Tensor b = RandomTensor<T>(b_shape, seed + 1, -10, 10);
        KernelRunner runner("MatMul");
        runner.Attr("transpose_a", ta).Attr("transpose_b", tb).Input(a).Input(b);
        auto out = runner.Run();
        AF_REQUIRE_OK(out.status());
        std::vector<double> want(m * n, 0.0);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j)
            for (int64_t p = 0; p < k; ++p) want[i * n + j] += At(a, ta, i, p) * At(b, tb, p, j);
        // float accumulates k products of magnitude <= 100 in single precision.
        const double tol = std::is_same_v<T, float> ? 1e-5 : Tolerance<T>();
        AF_EXPECT_OK(CheckTensor((*out)[0], dt, {m, n}, want, tol, tol * 100.0 * k));
      }
    }
  }
}

template <typename T>
void CheckAllSizes() {
  CheckMatMul<T>(1, 1, 1, 1);
  CheckMatMul<T>(7, 13, 5, 2);
  CheckMatMul<T>(64, 64, 64, 3);
  CheckMatMul<T>(1, 100, 1, 4);    // a dot product
  CheckMatMul<T>(33, 1, 17, 5);    // an outer product
  CheckMatMul<T>(3, 0, 4, 6);      // empty inner dim: all zeros
  CheckMatMul<T>(0, 5, 4, 7);      // empty output
  CheckMatMul<T>(130, 70, 90, 8);  // past a single cache block
}

BOOST_AUTO_TEST_SUITE(matmul)

BOOST_AUTO_TEST_CASE(float_via_onednn) { CheckAllSizes<float>(); }
BOOST_AUTO_TEST_CASE(double_via_eigen) { CheckAllSizes<double>(); }
BOOST_AUTO_TEST_CASE(int32_via_eigen) { CheckAllSizes<int32_t>(); }
BOOST_AUTO_TEST_CASE(int64_via_eigen) { CheckAllSizes<int64_t>(); }

BOOST_AUTO_TEST_CASE(size_mismatch_names_both_input_shapes) {
  KernelRunner runner("MatMul", "mm");
  runner.Input(RandomTensor<float>({2, 3}, 1)).Input(RandomTensor<float>({4, 5}, 2));
  auto out = runner.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
  const std::string& msg = out.status().message();
  BOOST_CHECK_MESSAGE(
      msg.find("Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]") != std::string::npos, msg);
  BOOST_CHECK_MESSAGE(msg.find("mm") != std::string::npos, msg);
}

BOOST_AUTO_TEST_CASE(transpose_decides_which_dims_must_agree) {
  KernelRunner ok("MatMul");
  ok.Attr("transpose_a", true)
      .Input(RandomTensor<double>({3, 2}, 1))
      .Input(RandomTensor<double>({3, 4}, 2));
  auto out = ok.Run();
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK_EQUAL((*out)[0].shape(), TensorShape({2, 4}));

  KernelRunner bad("MatMul");
  bad.Attr("transpose_b", true)
      .Input(RandomTensor<double>({2, 3}, 1))
      .Input(RandomTensor<double>({3, 4}, 2));
  BOOST_CHECK_EQUAL(bad.Run().status().code(), Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(non_matrix_inputs_are_rejected) {
  auto out =
      RunKernel("MatMul", {RandomTensor<float>({2, 3, 4}, 1), RandomTensor<float>({4, 2}, 2)});
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(out.status().message().find("In[0] is not a matrix") != std::string::npos,
                      out.status().ToString());
  auto vec = RunKernel("MatMul", {RandomTensor<float>({2, 3}, 1), RandomTensor<float>({3}, 2)});
  BOOST_CHECK_EQUAL(vec.status().code(), Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(matmul_is_expensive) {
  KernelRunner runner("MatMul");
  runner.Input(RandomTensor<float>({1, 1}, 1)).Input(RandomTensor<float>({1, 1}, 2));
  AF_REQUIRE_OK(runner.Build());
  BOOST_CHECK(runner.kernel()->IsExpensive());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
