// CUDA SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits.
//
// One row of logits per warp (up to 1024 classes) or per block of 256
// threads (more classes): the row's max, then sum(exp(x - max)), then in
// one last pass backprop = exp(x - max) / sum - label and the loss
// sum(label * (log(sum) - (x - max))), so exp never overflows. Half and
// bfloat16 compute in float.
//
// The dense op broadcasts logits and labels against each other as the CPU
// kernel does (either may be [1, classes] or [batch, 1] or lower rank). The
// sparse op's labels are int32/int64 in host memory: they are checked on the
// host (an out-of-range label is the CPU kernel's INVALID_ARGUMENT) and then
// copied to a device temporary on the compute stream.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/op_kernel.h"
#include "kernels/gpu/cuda/cuda_types.cuh"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/gpu_kernel_registry.h"
#include "kernels/nn/softmax_xent_shape.h"

namespace af::gpu {
namespace {

// Combines v over the kRowThreads threads of a row (a warp or the block);
// every thread of the row gets the result. `scratch` holds kThreads / 32
// values (used only for whole-block rows).
template <int kRowThreads, bool kMax, typename A>
__device__ __forceinline__ A RowAllReduce(A v, A* scratch) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2) {
    const A o = __shfl_xor_sync(0xFFFFFFFFu, v, off);
    v = kMax ? (o > v ? o : v) : v + o;
  }
  if constexpr (kRowThreads > 32) {
    __syncthreads();  // scratch free from its previous use
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    v = scratch[0];
#pragma unroll
    for (int w = 1; w < kRowThreads / 32; ++w) {
      const A o = scratch[w];
      v = kMax ? (o > v ? o : v) : v + o;
    }
  }
  return v;
}

// Strides of the (possibly broadcast) logits and labels matrices.
struct XentLayout {
  int64_t batch, classes;
  int64_t x_row, x_col;  // logits: element (b, c) at b * x_row + c * x_col
  int64_t y_row, y_col;  // labels
};

template <typename T, int kRowThreads>
__global__ void __launch_bounds__(kThreads)
    SoftmaxXentKernel(const T* __restrict__ logits, const T* __restrict__ labels, XentLayout l,
                      T* __restrict__ loss, T* __restrict__ backprop) {
  using A = Acc<T>;
  constexpr int kRowsPerBlock = kThreads / kRowThreads;
  __shared__ A scratch[kThreads / 32];
  const int lane = threadIdx.x % kRowThreads;
  for (int64_t row0 = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock; row0 < l.batch;
       row0 += static_cast<int64_t>(gridDim.x) * kRowsPerBlock) {
    const int64_t b = row0 + threadIdx.x / kRowThreads;
    const bool active = b < l.batch;  // uniform per row
    const T* x = logits + (active ? b : 0) * l.x_row;
    const T* y = labels + (active ? b : 0) * l.y_row;
    A m = -static_cast<A>(INFINITY);
    if (active) {
      for (int64_t c = lane; c < l.classes; c += kRowThreads) {
        const A v = ToAcc(x[c * l.x_col]);
        m = (v > m || v != v) ? v : m;
      }
    }
    m = RowAllReduce<kRowThreads, true>(m, scratch);
    A sum = A(0);
    if (active) {
      for (int64_t c = lane; c < l.classes; c += kRowThreads) sum += DExp(ToAcc(x[c * l.x_col]) - m);
    }
    sum = RowAllReduce<kRowThreads, false>(sum, scratch);
    const A log_sum = DLog(sum);
    const A inv = A(1) / sum;
    A row_loss = A(0);
    if (active) {
      T* g = backprop + b * l.classes;
      for (int64_t c = lane; c < l.classes; c += kRowThreads) {
        const A shifted = ToAcc(x[c * l.x_col]) - m;
        const A label = ToAcc(y[c * l.y_col]);
        row_loss += label * (log_sum - shifted);
        g[c] = FromAcc<T>(DExp(shifted) * inv - label);
      }
    }
    row_loss = RowAllReduce<kRowThreads, false>(row_loss, scratch);
    if (active && lane == 0) loss[b] = FromAcc<T>(row_loss);
  }
}

template <typename T, typename Index, int kRowThreads>
__global__ void __launch_bounds__(kThreads)
    SparseXentKernel(const T* __restrict__ logits, const Index* __restrict__ labels,
                     int64_t batch, int64_t classes, T* __restrict__ loss,
                     T* __restrict__ backprop) {
  using A = Acc<T>;
  constexpr int kRowsPerBlock = kThreads / kRowThreads;
  __shared__ A scratch[kThreads / 32];
  const int lane = threadIdx.x % kRowThreads;
  for (int64_t row0 = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock; row0 < batch;
       row0 += static_cast<int64_t>(gridDim.x) * kRowsPerBlock) {
    const int64_t b = row0 + threadIdx.x / kRowThreads;
    const bool active = b < batch;
    const T* x = logits + (active ? b : 0) * classes;
    A m = -static_cast<A>(INFINITY);
    if (active) {
      for (int64_t c = lane; c < classes; c += kRowThreads) {
        const A v = ToAcc(x[c]);
        m = (v > m || v != v) ? v : m;
      }
    }
    m = RowAllReduce<kRowThreads, true>(m, scratch);
    A sum = A(0);
    if (active) {
      for (int64_t c = lane; c < classes; c += kRowThreads) sum += DExp(ToAcc(x[c]) - m);
    }
    sum = RowAllReduce<kRowThreads, false>(sum, scratch);
    if (active) {
      const A inv = A(1) / sum;
      const int64_t label = static_cast<int64_t>(labels[b]);
      T* g = backprop + b * classes;
      for (int64_t c = lane; c < classes; c += kRowThreads) {
        const A p = DExp(ToAcc(x[c]) - m) * inv;
        g[c] = FromAcc<T>(c == label ? p - A(1) : p);
      }
      if (lane == 0) loss[b] = FromAcc<T>(DLog(sum) - (ToAcc(x[label]) - m));
    }
  }
}

unsigned RowBlocks(int64_t rows, int rows_per_block) {
  const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
  return static_cast<unsigned>(blocks < (int64_t{1} << 30) ? blocks : (int64_t{1} << 30));
}

template <typename T>
Status LaunchSoftmaxXent(cudaStream_t stream, const T* logits, const T* labels,
                         const XentLayout& l, T* loss, T* backprop) {
  if (l.classes <= 1024) {
    SoftmaxXentKernel<T, 32><<<RowBlocks(l.batch, kThreads / 32), kThreads, 0, stream>>>(
        logits, labels, l, loss, backprop);
  } else {
    SoftmaxXentKernel<T, kThreads><<<RowBlocks(l.batch, 1), kThreads, 0, stream>>>(
        logits, labels, l, loss, backprop);
  }
  return CheckLaunch("SoftmaxXentKernel");
}

template <typename T, typename Index>
Status LaunchSparseXent(cudaStream_t stream, const T* logits, const Index* labels, int64_t batch,
                        int64_t classes, T* loss, T* backprop) {
  if (classes <= 1024) {
    SparseXentKernel<T, Index, 32><<<RowBlocks(batch, kThreads / 32), kThreads, 0, stream>>>(
        logits, labels, batch, classes, loss, backprop);
  } else {
    SparseXentKernel<T, Index, kThreads><<<RowBlocks(batch, 1), kThreads, 0, stream>>>(
        logits, labels, batch, classes, loss, backprop);
  }
  return CheckLaunch("SparseXentKernel");
}

class CudaSoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    XentCall call;
    OP_REQUIRES_OK(ctx, PrepareSoftmaxXent(ctx, &call));
    if (call.batch == 0) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    Tensor* loss = call.loss;
    if (call.classes == 0) {  // an empty sum per row
      OP_REQUIRES_CUDA(ctx, cudaMemsetAsync(loss->raw_data(), 0, loss->TotalBytes(), stream),
                       "SoftmaxCrossEntropyWithLogits memset");
      return;
    }
    XentLayout l;
    l.batch = call.batch;
    l.classes = call.classes;
    l.x_col = XentColumnStride(logits);
    l.x_row = XentRowStride(logits);
    l.y_col = XentColumnStride(labels);
    l.y_row = XentRowStride(labels);
    Status s;
    const bool known = VisitFloat(input_type(0), [&](auto tag) {
      using T = typename decltype(tag)::type;
      s = LaunchSoftmaxXent<T>(stream, static_cast<const T*>(logits.raw_data()),
                               static_cast<const T*>(labels.raw_data()), l,
                               static_cast<T*>(loss->raw_data()),
                               static_cast<T*>(call.backprop->raw_data()));
    });
    OP_REQUIRES(ctx, known,
                ctx->NodeError(errors::Unimplemented(type_string(), " has no GPU kernel for ",
                                                     DataTypeString(input_type(0)))));
    OP_REQUIRES_OK(ctx, s.ok() ? s : ctx->NodeError(s));
  }
};

class CudaSparseSoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    // Labels live in host memory: checked here, before anything runs.
    XentCall call;
    OP_REQUIRES_OK(ctx, PrepareSparseSoftmaxXent(ctx, &call));
    const int64_t batch = call.batch, classes = call.classes;
    if (batch == 0) return;
    const DataType label_type = BaseType(labels.dtype());
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    // A device copy of the labels, through pinned memory: a copy from
    // pageable memory would block the host until the stream reached it,
    // so the host could not run ahead of the GPU. The pinned buffer stays
    // alive until the stream has copied it.
    Tensor device_labels;
    const int64_t label_bytes = static_cast<int64_t>(labels.TotalBytes());
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_UINT8, TensorShape{label_bytes}, &device_labels));
    gpu::GpuDeviceContext* gpu_ctx = ctx->device()->gpu_context();
    Tensor staged;
    OP_REQUIRES_OK(ctx, Tensor::Allocate(gpu_ctx->pinned_host_allocator(), labels.dtype(),
                                         labels.shape(), &staged));
    std::memcpy(staged.raw_data(), labels.raw_data(), static_cast<size_t>(label_bytes));
    OP_REQUIRES_CUDA(ctx,
                     cudaMemcpyAsync(device_labels.raw_data(), staged.raw_data(), label_bytes,
                                     cudaMemcpyHostToDevice, stream),
                     "SparseSoftmaxCrossEntropyWithLogits label copy");
    OP_REQUIRES_OK(ctx, gpu_ctx->compute_stream()->AddCallback([staged] {}));
    Status s;
    const bool known = VisitFloat(input_type(0), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* x = static_cast<const T*>(logits.raw_data());
      T* lp = static_cast<T*>(call.loss->raw_data());
      T* bp = static_cast<T*>(call.backprop->raw_data());
      if (label_type == DT_INT32) {
        s = LaunchSparseXent<T, int32_t>(
            stream, x, static_cast<const int32_t*>(device_labels.raw_data()), batch, classes, lp,
            bp);
      } else {
        s = LaunchSparseXent<T, int64_t>(
            stream, x, static_cast<const int64_t*>(device_labels.raw_data()), batch, classes, lp,
            bp);
      }
    });
    OP_REQUIRES(ctx, known,
                ctx->NodeError(errors::Unimplemented(type_string(), " has no GPU kernel for ",
                                                     DataTypeString(input_type(0)))));
    OP_REQUIRES_OK(ctx, s.ok() ? s : ctx->NodeError(s));
  }
};

}  // namespace

REGISTER_CUDA_KERNEL("SoftmaxCrossEntropyWithLogits", CudaSoftmaxXentOp);
REGISTER_CUDA_KERNEL("SparseSoftmaxCrossEntropyWithLogits", CudaSparseSoftmaxXentOp);

}  // namespace af::gpu
