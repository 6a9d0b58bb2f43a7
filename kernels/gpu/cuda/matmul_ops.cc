// MatMul, BatchMatMul and BatchMatMulV2 on CUDA GPUs through cuBLAS.
//
// Tensors are row-major and cuBLAS is column-major: a row-major [r, c]
// buffer read column-major is the [c, r] transpose. So the row-major
// product C = op(A) op(B) is computed as the column-major C^T = op(B)^T
// op(A)^T, i.e. cuBLAS gets B first, A second, and the sizes (n, m, k);
// each operand's transpose flag passes through unchanged.
//
// float accumulates in FP32 (TF32 tensor cores only with
// ACTORFLOW_GPU_ALLOW_TF32=1), half and bfloat16 in FP32, double in FP64.
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "core/op_kernel.h"
#include "core/tensor.h"
#include "kernels/gpu/cuda/cublas_handle.h"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/gpu_kernel_registry.h"
#include "kernels/math/batch_matmul_shape.h"
#include "kernels/math/broadcast.h"
#include "kernels/math/matmul_shape.h"

namespace af::gpu {

namespace {

struct GemmTypes {
  cudaDataType_t data = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  bool fp64_scalars = false;  // alpha and beta are doubles (else floats)
  int elem_bytes = 4;
};

Status GemmTypesFor(DataType dtype, GemmTypes* out) {
  GemmTypes t;
  switch (BaseType(dtype)) {
    case DT_FLOAT:
      t.data = CUDA_R_32F;
      t.compute = AllowTf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      t.elem_bytes = 4;
      break;
    case DT_DOUBLE:
      t.data = CUDA_R_64F;
      t.compute = CUBLAS_COMPUTE_64F;
      t.fp64_scalars = true;
      t.elem_bytes = 8;
      break;
    case DT_HALF:
      t.data = CUDA_R_16F;
      t.compute = CUBLAS_COMPUTE_32F;
      t.elem_bytes = 2;
      break;
    case DT_BFLOAT16:
      t.data = CUDA_R_16BF;
      t.compute = CUBLAS_COMPUTE_32F;
      t.elem_bytes = 2;
      break;
    default:
      return errors::Unimplemented("no CUDA matrix product for ", DataTypeString(dtype),
                                   " (float, double, half and bfloat16 only)");
  }
  *out = t;
  return Status::OK();
}

bool FitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

// Row-major C[b] = op(A[b]) op(B[b]) for b < batch, A[b] at a + b * stride_a
// elements (stride 0: one matrix for every batch), likewise B and C.
Status RowMajorGemm(cublasHandle_t handle, const GemmTypes& t, bool transpose_a,
                    bool transpose_b, int64_t m, int64_t n, int64_t k, const void* a,
                    int64_t stride_a, const void* b, int64_t stride_b, void* c, int64_t stride_c,
                    int64_t batch) {
  const int64_t lda = transpose_a ? m : k;
  const int64_t ldb = transpose_b ? k : n;
  const int64_t ldc = n;
  for (int64_t v : {m, n, k, lda, ldb, ldc, batch})
    if (!FitsInt(v))
      return errors::Unimplemented("matrix product too large for cuBLAS: m=", m, " n=", n,
                                   " k=", k, " batch=", batch);
  const cublasOperation_t op_a = transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const float one_f = 1.0f, zero_f = 0.0f;
  const double one_d = 1.0, zero_d = 0.0;
  const void* alpha = t.fp64_scalars ? static_cast<const void*>(&one_d) : &one_f;
  const void* beta = t.fp64_scalars ? static_cast<const void*>(&zero_d) : &zero_f;
  if (batch == 1) {
    AF_CUBLAS_RETURN_IF_ERROR(
        cublasGemmEx(handle, op_b, op_a, static_cast<int>(n), static_cast<int>(m),
                     static_cast<int>(k), alpha, b, t.data, static_cast<int>(ldb), a, t.data,
                     static_cast<int>(lda), beta, c, t.data, static_cast<int>(ldc), t.compute,
                     CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
    return Status::OK();
  }
  AF_CUBLAS_RETURN_IF_ERROR(
      cublasGemmStridedBatchedEx(
          handle, op_b, op_a, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k),
          alpha, b, t.data, static_cast<int>(ldb), static_cast<long long>(stride_b), a, t.data,
          static_cast<int>(lda), static_cast<long long>(stride_a), beta, c, t.data,
          static_cast<int>(ldc), static_cast<long long>(stride_c), static_cast<int>(batch),
          t.compute, CUBLAS_GEMM_DEFAULT),
      "cublasGemmStridedBatchedEx");
  return Status::OK();
}

// Zeros a device output (the empty sums of k == 0).
Status ZeroOutput(OpKernelContext* ctx, Tensor* out) {
  AF_RETURN_IF_ERROR(MakeKernelDeviceCurrent(ctx));
  AF_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out->raw_data(), 0, out->TotalBytes(), ComputeStream(ctx)),
                          "cudaMemsetAsync");
  return Status::OK();
}

class CudaMatMulOp : public OpKernel {
 public:
  explicit CudaMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
    Status s = GemmTypesFor(ctx->num_inputs() > 0 ? ctx->input_types()[0] : DT_INVALID, &types_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    MatMulShape shape;
    OP_REQUIRES_OK(ctx,
                   ctx->NodeError(MatMulShapes(a, b, transpose_a_, transpose_b_, &shape)));
    const int64_t m = shape.m, k = shape.k, n = shape.n;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape.output, &out));
    if (m == 0 || n == 0) return;
    if (k == 0) {  // an empty sum
      OP_REQUIRES_OK(ctx, ctx->NodeError(ZeroOutput(ctx, out)));
      return;
    }
    CublasScope cublas;
    OP_REQUIRES_OK(ctx, CublasFor(ctx, &cublas));
    OP_REQUIRES_OK(ctx, ctx->NodeError(RowMajorGemm(cublas.handle(), types_, transpose_a_,
                                                    transpose_b_, m, n, k, a.raw_data(), 0,
                                                    b.raw_data(), 0, out->raw_data(), 0, 1)));
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
  GemmTypes types_;
};

template <bool kBroadcastBatch>
class CudaBatchMatMulOp : public OpKernel {
 public:
  explicit CudaBatchMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
    Status s = GemmTypesFor(ctx->num_inputs() > 0 ? ctx->input_types()[0] : DT_INVALID, &types_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BatchMatMulShape shape;
    OP_REQUIRES_OK(ctx, ctx->NodeError(
                            BatchMatMulShapes(x, y, adj_x_, adj_y_, kBroadcastBatch, &shape)));
    const TensorShape& x_batch = shape.x_batch;
    const TensorShape& y_batch = shape.y_batch;
    const BinaryBroadcast& plan = shape.plan;
    const int64_t m = shape.m, k = shape.k, n = shape.n;
    const TensorShape& out_shape = shape.output;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    if (k == 0) {  // empty sums
      OP_REQUIRES_OK(ctx, ctx->NodeError(ZeroOutput(ctx, out)));
      return;
    }
    CublasScope cublas;
    OP_REQUIRES_OK(ctx, CublasFor(ctx, &cublas));
    const int64_t batches = plan.num_elements();
    const int64_t x_count = x_batch.num_elements(), y_count = y_batch.num_elements();
    const char* xp = static_cast<const char*>(x.raw_data());
    const char* yp = static_cast<const char*>(y.raw_data());
    char* zp = static_cast<char*>(out->raw_data());
    auto gemm = [&](int64_t rows, const void* xb, int64_t x_stride, const void* yb,
                    int64_t y_stride, void* zb, int64_t count) {
      return RowMajorGemm(cublas.handle(), types_, adj_x_, adj_y_, rows, n, k, xb, x_stride, yb,
                          y_stride, zb, rows * n, count);
    };
    Status s;
    if (y_count == 1 && !adj_x_) {
      // One y for every batch: x's batches stack into one [batches * m, k].
      s = gemm(batches * m, xp, 0, yp, 0, zp, 1);
    } else if (x_count == batches && y_count == batches) {
      s = gemm(m, xp, m * k, yp, k * n, zp, batches);
    } else if (x_count == batches && y_count == 1) {
      s = gemm(m, xp, m * k, yp, 0, zp, batches);
    } else if (x_count == 1 && y_count == batches) {
      s = gemm(m, xp, 0, yp, k * n, zp, batches);
    } else {
      // General broadcasting: one product per output batch.
      const int64_t eb = types_.elem_bytes;
      for (int64_t b = 0; b < batches && s.ok(); ++b) {
        int64_t xb = 0, yb = 0;
        BatchOffsets(plan, b, &xb, &yb);
        s = gemm(m, xp + xb * m * k * eb, 0, yp + yb * k * n * eb, 0, zp + b * m * n * eb, 1);
      }
    }
    OP_REQUIRES_OK(ctx, ctx->NodeError(s));
  }

 private:
  // The x and y batch indices feeding output batch b.
  static void BatchOffsets(const BinaryBroadcast& plan, int64_t b, int64_t* xb, int64_t* yb) {
    const DimVector& dims = plan.dims();
    int64_t x_index = 0, y_index = 0;
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
      const int64_t i = b % dims[d];
      b /= dims[d];
      x_index += i * plan.x_strides()[d];
      y_index += i * plan.y_strides()[d];
    }
    *xb = x_index;
    *yb = y_index;
  }

  bool adj_x_ = false;
  bool adj_y_ = false;
  GemmTypes types_;
};

}  // namespace

REGISTER_CUDA_KERNEL("MatMul", CudaMatMulOp);
REGISTER_CUDA_KERNEL("BatchMatMul", CudaBatchMatMulOp<false>);
REGISTER_CUDA_KERNEL("BatchMatMulV2", CudaBatchMatMulOp<true>);

}  // namespace af::gpu
