// BatchMatMul (equal batch dims) and BatchMatMulV2 (broadcast batch dims) in
// every adjoint combination against a double-precision triple loop.
#include <string>
#include <vector>

#include "tests/kernels/math_test_util.h"

namespace af::test {
namespace {

// Element (r, c) of op(matrix `b` of m), m's last two dims stored row-major.
double MatrixAt(const Tensor& m, int64_t b, bool adjoint, int64_t r, int64_t c) {
  const int64_t rows = m.dim_size(m.dims() - 2), cols = m.dim_size(m.dims() - 1);
  const int64_t base = b * rows * cols;
  return adjoint ? ValueAsDouble(m, base + c * cols + r) : ValueAsDouble(m, base + r * cols + c);
}

TensorShape BatchOf(const TensorShape& s) {
  TensorShape b;
  for (int d = 0; d + 2 < s.dims(); ++d) b.AddDim(s.dim_size(d));
  return b;
}

std::vector<double> ReferenceBatchMatMul(const Tensor& x, const Tensor& y, bool adj_x, bool adj_y,
                                         TensorShape* shape) {
  const int rx = x.dims(), ry = y.dims();
  const int64_t m = x.dim_size(adj_x ? rx - 1 : rx - 2), k = x.dim_size(adj_x ? rx - 2 : rx - 1);
  const int64_t n = y.dim_size(adj_y ? ry - 2 : ry - 1);
  const TensorShape xb = BatchOf(x.shape()), yb = BatchOf(y.shape());
  const TensorShape batch = BroadcastReferenceShape({xb, yb});
  *shape = batch;
  shape->AddDim(m);
  shape->AddDim(n);
  std::vector<double> out;
  for (int64_t b = 0; b < batch.num_elements(); ++b) {
    const int64_t bx = BroadcastSourceIndex(xb, batch, b), by = BroadcastSourceIndex(yb, batch, b);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p)
          sum += MatrixAt(x, bx, adj_x, i, p) * MatrixAt(y, by, adj_y, p, j);
        out.push_back(sum);
      }
  }
  return out;
}

// x is [batch_x..., m, k] (or [.., k, m] with adj_x); y likewise.
void CheckCase(const std::string& op, DataType dt, const std::vector<int64_t>& bx,
               const std::vector<int64_t>& by, int64_t m, int64_t k, int64_t n, uint32_t seed) {
  for (bool adj_x : {false, true}) {
    for (bool adj_y : {false, true}) {
      std::vector<int64_t> xs = bx, ys = by;
      xs.push_back(adj_x ? k : m);
      xs.push_back(adj_x ? m : k);
      ys.push_back(adj_y ? n : k);
      ys.push_back(adj_y ? k : n);
      Tensor x, y;
      if (dt == DT_FLOAT) {
        x = RandomTensor<float>(TensorShape(xs), seed, -3, 3);
        y = RandomTensor<float>(TensorShape(ys), seed + 1, -3, 3);
      } else if (dt == DT_DOUBLE) {
        x = RandomTensor<double>(TensorShape(xs), seed, -3, 3);
        y = RandomTensor<double>(TensorShape(ys), seed + 1, -3, 3);
      } else if (dt == DT_INT32) {
        x = RandomTensor<int32_t>(TensorShape(xs), seed, -9, 9);
        y = RandomTensor<int32_t>(TensorShape(ys), seed + 1, -9, 9);
      } else {
        x = RandomTensor<int64_t>(TensorShape(xs), seed, -9, 9);
        y = RandomTensor<int64_t>(TensorShape(ys), seed + 1, -9, 9);
      }
      BOOST_TEST_CONTEXT(op << "<" << DataTypeString(dt) << "> " << x.shape().DebugString() << " x "
                            << y.shape().DebugString() << " adj_x=" << adj_x
                            << " adj_y=" << adj_y) {
        KernelRunner runner(op);
        runner.Attr("adj_x", adj_x).Attr("adj_y", adj_y).Input(x).Input(y);
        auto out = runner.Run();
        AF_REQUIRE_OK(out.status());
        TensorShape shape;
        const std::vector<double> want = ReferenceBatchMatMul(x, y, adj_x, adj_y, &shape);
        const double tol = dt == DT_FLOAT ? 1e-5 : (dt == DT_DOUBLE ? 1e-12 : 0);
        AF_EXPECT_OK(CheckTensor((*out)[0], dt, shape, want, tol, tol * 9 * (k + 1)));
      }
    }
  }
}

void CheckAll(DataType dt) {
  // Equal batch dims: both versions.
  for (const std::string op : {"BatchMatMul", "BatchMatMulV2"}) {
    CheckCase(op, dt, {}, {}, 4, 5, 3, 1);
    CheckCase(op, dt, {3}, {3}, 7, 13, 5, 2);
    CheckCase(op, dt, {2, 3}, {2, 3}, 1, 6, 1, 3);
    CheckCase(op, dt, {2}, {2}, 33, 20, 17, 4);
    CheckCase(op, dt, {4}, {4}, 3, 0, 2, 5);  // empty inner dim: zeros
    CheckCase(op, dt, {0}, {0}, 3, 4, 2, 6);  // no batches
    CheckCase(op, dt, {2}, {2}, 0, 4, 2, 7);  // empty rows
  }
  // Broadcast batch dims: V2 only.
  CheckCase("BatchMatMulV2", dt, {3}, {}, 5, 4, 6, 10);         // one y for every x
  CheckCase("BatchMatMulV2", dt, {}, {4}, 5, 4, 6, 11);         // one x for every y
  CheckCase("BatchMatMulV2", dt, {2, 1}, {1, 3}, 3, 4, 2, 12);  // outer product of batches
  CheckCase("BatchMatMulV2", dt, {1, 2, 1}, {3, 1, 2}, 2, 3, 4, 13);
  CheckCase("BatchMatMulV2", dt, {5}, {1, 1}, 4, 3, 2, 14);  // y has more (size-1) dims
}

BOOST_AUTO_TEST_SUITE(batch_matmul)

BOOST_AUTO_TEST_CASE(float_via_onednn) { CheckAll(DT_FLOAT); }
BOOST_AUTO_TEST_CASE(double_via_eigen) { CheckAll(DT_DOUBLE); }
BOOST_AUTO_TEST_CASE(int32_via_eigen) { CheckAll(DT_INT32); }
BOOST_AUTO_TEST_CASE(int64_via_eigen) { CheckAll(DT_INT64); }

BOOST_AUTO_TEST_CASE(v1_needs_equal_batch_dims) {
  auto rank =
      RunKernel("BatchMatMul", {RandomTensor<float>({2, 3, 4}, 1), RandomTensor<float>({4, 5}, 2)});
  ExpectError(rank, Code::INVALID_ARGUMENT, "BatchMatMul",
              {"In[0] and In[1] has different ndims: [2,3,4] vs. [4,5]"});
  auto dims = RunKernel("BatchMatMul",
                        {RandomTensor<float>({2, 3, 4}, 1), RandomTensor<float>({1, 4, 5}, 2)});
  ExpectError(dims, Code::INVALID_ARGUMENT, "BatchMatMul",
              {"In[0].dim(0) and In[1].dim(0) must be the same"});
}

BOOST_AUTO_TEST_CASE(errors) {
  auto inner = RunKernel("BatchMatMulV2",
                         {RandomTensor<float>({2, 3, 4}, 1), RandomTensor<float>({2, 5, 6}, 2)});
  ExpectError(inner, Code::INVALID_ARGUMENT, "BatchMatMulV2",
              {"Matrix size-incompatible: In[0]: [2,3,4], In[1]: [2,5,6]"});
  auto batch = RunKernel("BatchMatMulV2",
                         {RandomTensor<float>({2, 3, 4}, 1), RandomTensor<float>({3, 4, 6}, 2)});
  ExpectError(batch, Code::INVALID_ARGUMENT, "BatchMatMulV2",
              {"must have compatible batch dimensions: [2,3,4] vs. [3,4,6]"});
  auto rank =
      RunKernel("BatchMatMulV2", {RandomTensor<float>({4}, 1), RandomTensor<float>({4, 2}, 2)});
  ExpectError(rank, Code::INVALID_ARGUMENT, "BatchMatMulV2", {"In[0] ndims must be >= 2: 1"});
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
