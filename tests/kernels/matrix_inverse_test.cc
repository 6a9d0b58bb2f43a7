// MatrixInverse (with and without adjoint) and MatrixDeterminant on batches
// of random matrices, checked against identities and a double-precision
// Gaussian elimination; singular and malformed inputs.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "tests/kernels/math_test_util.h"

namespace af::test {
namespace {

// Determinant by Gaussian elimination with partial pivoting, in double.
double ReferenceDeterminant(std::vector<double> a, int64_t n) {
  double det = 1;
  for (int64_t c = 0; c < n; ++c) {
    int64_t pivot = c;
    for (int64_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r * n + c]) > std::fabs(a[pivot * n + c])) pivot = r;
    if (a[pivot * n + c] == 0) return 0;
    if (pivot != c) {
      for (int64_t j = 0; j < n; ++j) std::swap(a[c * n + j], a[pivot * n + j]);
      det = -det;
    }
    det *= a[c * n + c];
    for (int64_t r = c + 1; r < n; ++r) {
      const double f = a[r * n + c] / a[c * n + c];
      for (int64_t j = c; j < n; ++j) a[r * n + j] -= f * a[c * n + j];
    }
  }
  return det;
}

std::vector<double> Matrix(const Tensor& t, int64_t b, int64_t n) {
  std::vector<double> m(n * n);
  for (int64_t i = 0; i < n * n; ++i) m[i] = ValueAsDouble(t, b * n * n + i);
  return m;
}

// Random matrices made well conditioned by a dominant diagonal.
template <typename T>
Tensor WellConditioned(const TensorShape& shape, uint32_t seed) {
  Tensor t = RandomTensor<T>(shape, seed, -1, 1);
  const int64_t n = shape.dim_size(shape.dims() - 1);
  if (n == 0) return t;
  T* p = t.data<T>();
  for (int64_t b = 0; b < t.NumElements() / (n * n); ++b)
    for (int64_t i = 0; i < n; ++i) p[b * n * n + i * n + i] += static_cast<T>(n);
  return t;
}

template <typename T>
void CheckInverse() {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  uint32_t seed = 80;
  for (const TensorShape& shape :
       {TensorShape{1, 1}, TensorShape{3, 3}, TensorShape{4, 5, 5}, TensorShape{2, 3, 8, 8},
        TensorShape{40, 40}, TensorShape{0, 3, 3}, TensorShape{2, 0, 0}}) {
    for (bool adjoint : {false, true}) {
      BOOST_TEST_CONTEXT("MatrixInverse<" << DataTypeString(dt) << "> " << shape.DebugString()
                                          << " adjoint=" << adjoint) {
        const Tensor a = WellConditioned<T>(shape, ++seed);
        KernelRunner runner("MatrixInverse");
        runner.Attr("adjoint", adjoint).Input(a);
        auto out = runner.Run();
        AF_REQUIRE_OK(out.status());
        const Tensor& inv = (*out)[0];
        BOOST_REQUIRE_EQUAL(inv.shape(), shape);
        // op(A) * inverse must be the identity, computed in double.
        const int64_t n = shape.dim_size(shape.dims() - 1);
        const int64_t batches = n == 0 ? 0 : a.NumElements() / (n * n);
        for (int64_t b = 0; b < batches; ++b) {
          const std::vector<double> m = Matrix(a, b, n), x = Matrix(inv, b, n);
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
              double s = 0;
              for (int64_t p = 0; p < n; ++p)
                s += (adjoint ? m[p * n + i] : m[i * n + p]) * x[p * n + j];
              BOOST_CHECK_SMALL(s - (i == j ? 1.0 : 0.0), tol * 10);
            }
        }
      }
    }
  }
}

template <typename T>
void CheckDeterminant() {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  uint32_t seed = 90;
  for (const TensorShape& shape :
       {TensorShape{1, 1}, TensorShape{2, 2}, TensorShape{5, 4, 4}, TensorShape{2, 3, 7, 7},
        TensorShape{30, 30}, TensorShape{3, 0, 0}, TensorShape{0, 2, 2}}) {
    BOOST_TEST_CONTEXT("MatrixDeterminant<" << DataTypeString(dt) << "> " << shape.DebugString()) {
      const Tensor a = RandomTensor<T>(shape, ++seed, -2, 2);
      auto out = RunKernel("MatrixDeterminant", {a});
      AF_REQUIRE_OK(out.status());
      TensorShape want_shape = shape;
      want_shape.RemoveDim(shape.dims() - 1);
      want_shape.RemoveDim(shape.dims() - 2);
      const int64_t n = shape.dim_size(shape.dims() - 1);
      std::vector<double> want;
      for (int64_t b = 0; b < want_shape.num_elements(); ++b)
        want.push_back(n == 0 ? 1.0 : ReferenceDeterminant(Matrix(a, b, n), n));
      double scale = 1;  // |det| can be large: compare relative to the biggest
      for (double w : want) scale = std::max(scale, std::fabs(w));
      AF_EXPECT_OK(CheckTensor((*out)[0], dt, want_shape, want, tol * 10, tol * 10 * scale));
    }
  }
}

BOOST_AUTO_TEST_SUITE(matrix_inverse)

BOOST_AUTO_TEST_CASE(float_inverse) { CheckInverse<float>(); }
BOOST_AUTO_TEST_CASE(double_inverse) { CheckInverse<double>(); }
BOOST_AUTO_TEST_CASE(float_determinant) { CheckDeterminant<float>(); }
BOOST_AUTO_TEST_CASE(double_determinant) { CheckDeterminant<double>(); }

BOOST_AUTO_TEST_CASE(known_values) {
  const Tensor a = Tensor::FromVector<double>({4, 7, 2, 6}, {2, 2});
  auto inv = RunKernel("MatrixInverse", {a});
  AF_REQUIRE_OK(inv.status());
  AF_EXPECT_OK(CheckTensor((*inv)[0], DT_DOUBLE, {2, 2}, {0.6, -0.7, -0.2, 0.4}, 1e-15, 1e-15));
  KernelRunner adj("MatrixInverse");
  adj.Attr("adjoint", true).Input(a);
  auto inv_t = adj.Run();
  AF_REQUIRE_OK(inv_t.status());
  AF_EXPECT_OK(CheckTensor((*inv_t)[0], DT_DOUBLE, {2, 2}, {0.6, -0.2, -0.7, 0.4}, 1e-15, 1e-15));
  // A row swap flips the sign.
  auto det = RunKernel("MatrixDeterminant",
                       {Tensor::FromVector<double>({4, 7, 2, 6, 2, 6, 4, 7}, {2, 2, 2})});
  AF_REQUIRE_OK(det.status());
  AF_EXPECT_OK(CheckTensor((*det)[0], DT_DOUBLE, {2}, {10, -10}, 1e-14));
}

BOOST_AUTO_TEST_CASE(singular_matrices) {
  // The second matrix of the batch has equal rows.
  const Tensor a = Tensor::FromVector<float>({1, 2, 3, 4, 1, 2, 1, 2}, {2, 2, 2});
  ExpectError(RunKernel("MatrixInverse", {a}), Code::INVALID_ARGUMENT, "MatrixInverse",
              {"Input is not invertible."});
  auto det = RunKernel("MatrixDeterminant", {a});
  AF_REQUIRE_OK(det.status());
  AF_EXPECT_OK(CheckTensor((*det)[0], DT_FLOAT, {2}, {-2, 0}, 1e-6, 1e-6));
  ExpectError(RunKernel("MatrixInverse", {Tensor::FromVector<double>({0, 0, 0, 0}, {2, 2})}),
              Code::INVALID_ARGUMENT, "MatrixInverse", {"Input is not invertible."});
}

BOOST_AUTO_TEST_CASE(malformed_inputs) {
  for (const std::string op : {"MatrixInverse", "MatrixDeterminant"}) {
    ExpectError(RunKernel(op, {RandomTensor<float>({2, 3}, 1)}), Code::INVALID_ARGUMENT, op,
                {"Input matrix must be square", "[2,3]"});
    ExpectError(RunKernel(op, {RandomTensor<double>({4}, 1)}), Code::INVALID_ARGUMENT, op,
                {"must have rank >= 2", "[4]"});
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
