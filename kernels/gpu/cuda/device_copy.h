// The strided device copy behind the GPU's data-movement kernels
// (kernels/gpu/cuda/device_copy.cu): a box of dims walked in row-major order,
// each element read at its offset under the source strides and written at
// its offset under the destination strides (stride 0 repeats an element).
// Size-1 dims are dropped and dims contiguous on both sides merged first;
// where the innermost dim is contiguous on both sides and everything is
// aligned, elements move as 2-16 byte words. Transposes of the last two dims
// go through shared-memory tiles instead. Elements move as raw bits.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/op_kernel.h"
#include "core/status.h"

namespace af::gpu {

// The most merged dims a copy may have.
inline constexpr int kMaxCopyDims = 8;

// Whether tensors of `dt` live in device memory on a GPU (the types these
// copies move).
bool IsDeviceType(DataType dt);
Status NotOnDevice(const OpKernel& k, DataType dt);

// A box and its two stride sets, in elements of `bytes` bytes.
struct HostView {
  int rank = 0;
  int64_t dims[kMaxCopyDims];
  int64_t src[kMaxCopyDims];
  int64_t dst[kMaxCopyDims];
  int64_t bytes = 0;
};

// Drops size-1 dims and merges neighbours contiguous on both sides.
// *empty when some dim is 0. A copy that keeps more than kMaxCopyDims dims
// after merging is refused (UNIMPLEMENTED): no op of the GPU's builds one
// from tensors of rank 8 or less.
Status BuildView(int rank, const int64_t* dims, const int64_t* src, const int64_t* dst,
                 int64_t element_bytes, HostView* v, bool* empty);
// dst (strides v.dst) = src (strides v.src) over the box v.dims.
Status LaunchCopy(cudaStream_t stream, const void* src, void* dst, HostView v);
// Builds the view and copies; nothing for an empty box.
Status StridedCopy(cudaStream_t stream, const void* src, void* dst, int rank,
                   const int64_t* dims, const int64_t* src_strides, const int64_t* dst_strides,
                   int64_t element_bytes);
// in [batch, rows, cols] -> out [batch, cols, rows], elements of 1-8 bytes.
Status TransposeTiles(cudaStream_t stream, const void* in, void* out, int64_t batch, int64_t rows,
                      int64_t cols, int64_t element_bytes);
// Every element of `out` (n elements of 1, 2, 4 or 8 bytes) = `bits`.
Status FillWithBits(cudaStream_t stream, void* out, int64_t n, int64_t element_bytes,
                    uint64_t bits);
// Every element of `out` = the scalar at `value` (device memory).
Status FillFromDevice(cudaStream_t stream, const void* value, void* out, int64_t n,
                      int64_t element_bytes);

inline Status Finish(OpKernelContext* ctx, const Status& s) {
  return s.ok() ? s : ctx->NodeError(s);
}

}  // namespace af::gpu
