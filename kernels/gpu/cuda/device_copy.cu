// The strided copy and the tiled transpose (kernels/gpu/cuda/device_copy.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/strided_copy.h"
#include "kernels/gpu/cuda/cuda_types.cuh"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/cuda/device_copy.h"
#include "kernels/gpu/gpu_kernel_registry.h"

namespace af::gpu {
namespace {

// ---------------------------------------------------------------------------
// The strided copy.

template <typename Index>
struct CopyView {
  int rank;
  Index dims[kMaxCopyDims];
  Index src[kMaxCopyDims];
  Index dst[kMaxCopyDims];
};

template <typename S, typename Index>
__global__ void __launch_bounds__(kThreads)
    StridedCopyKernel(const S* __restrict__ src, S* __restrict__ dst, Index n, CopyView<Index> v) {
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index e = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride) {
    Index rem = e, so = 0, dof = 0;
#pragma unroll
    for (int d = kMaxCopyDims - 1; d >= 0; --d) {
      if (d < v.rank) {
        const Index q = rem / v.dims[d];
        const Index c = rem - q * v.dims[d];
        rem = q;
        so += c * v.src[d];
        dof += c * v.dst[d];
      }
    }
    dst[dof] = src[so];
  }
}

// Moves whole words of up to 16 bytes where the innermost dim is contiguous
// on both sides and every stride and pointer allows it.
void Widen(HostView* v, const void* src, const void* dst) {
  const int last = v->rank - 1;
  if (v->src[last] != 1 || v->dst[last] != 1) return;
  for (int64_t w = 16; w > v->bytes; w /= 2) {
    if (w % v->bytes != 0) continue;
    const int64_t k = w / v->bytes;
    bool ok = v->dims[last] % k == 0 && Aligned(src, w) && Aligned(dst, w);
    for (int d = 0; d < last && ok; ++d) ok = v->src[d] % k == 0 && v->dst[d] % k == 0;
    if (!ok) continue;
    v->dims[last] /= k;
    for (int d = 0; d < last; ++d) {
      v->src[d] /= k;
      v->dst[d] /= k;
    }
    v->bytes = w;
    return;
  }
}

template <typename S, typename Index>
Status LaunchCopyAs(cudaStream_t stream, const void* src, void* dst, const HostView& hv) {
  CopyView<Index> v{};
  v.rank = hv.rank;
  int64_t n = 1;
  for (int d = 0; d < hv.rank; ++d) {
    v.dims[d] = static_cast<Index>(hv.dims[d]);
    v.src[d] = static_cast<Index>(hv.src[d]);
    v.dst[d] = static_cast<Index>(hv.dst[d]);
    n *= hv.dims[d];
  }
  StridedCopyKernel<S, Index><<<GridFor(n, kThreads), kThreads, 0, stream>>>(
      static_cast<const S*>(src), static_cast<S*>(dst), static_cast<Index>(n), v);
  return CheckLaunch("StridedCopyKernel");
}

template <typename S>
Status LaunchCopyTyped(cudaStream_t stream, const void* src, void* dst, const HostView& v) {
  // 32-bit index math when every element count and offset fits.
  int64_t n = 1, src_span = 1, dst_span = 1;
  for (int d = 0; d < v.rank; ++d) {
    n *= v.dims[d];
    src_span += (v.dims[d] - 1) * v.src[d];
    dst_span += (v.dims[d] - 1) * v.dst[d];
  }
  constexpr int64_t kLimit = int64_t{1} << 31;
  if (n < kLimit && src_span < kLimit && dst_span < kLimit)
    return LaunchCopyAs<S, uint32_t>(stream, src, dst, v);
  return LaunchCopyAs<S, int64_t>(stream, src, dst, v);
}

// out[0, n) = the element at `value`, 16-byte stores where aligned.
template <typename S>
__global__ void __launch_bounds__(kThreads)
    BroadcastElementKernel(const S* __restrict__ value, S* __restrict__ out, int64_t n,
                           bool vectorize) {
  constexpr int W = static_cast<int>(16 / sizeof(S));
  struct alignas(16) Pack {
    S v[W];
  };
  const S x = *value;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int64_t done = 0;
  if (vectorize) {
    Pack p;
#pragma unroll
    for (int k = 0; k < W; ++k) p.v[k] = x;
    const int64_t packs = n / W;
    Pack* o = reinterpret_cast<Pack*>(out);
    for (int64_t i = tid; i < packs; i += stride) o[i] = p;
    done = packs * W;
  }
  for (int64_t i = done + tid; i < n; i += stride) out[i] = x;
}

template <typename S>
Status LaunchBroadcastElement(cudaStream_t stream, const void* value, void* out, int64_t n) {
  constexpr int64_t W = 16 / sizeof(S);
  const bool vectorize = Aligned(out, 16);
  BroadcastElementKernel<S><<<GridFor(vectorize ? (n + W - 1) / W : n, kThreads), kThreads, 0,
                              stream>>>(static_cast<const S*>(value), static_cast<S*>(out), n,
                                        vectorize);
  return CheckLaunch("BroadcastElementKernel");
}

// ---------------------------------------------------------------------------
// Tiled transpose: in [batch, rows, cols] -> out [batch, cols, rows].

constexpr int kTile = 32;
constexpr int kTileRows = 8;

template <typename S>
__global__ void __launch_bounds__(kTile* kTileRows)
    TransposeTileKernel(const S* __restrict__ in, S* __restrict__ out, int64_t batch,
                        int64_t rows, int64_t cols) {
  __shared__ S tile[kTile][kTile + 1];
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  const int64_t col_tiles = (cols + kTile - 1) / kTile;
  const int64_t matrix = rows * cols;
  for (int64_t b = blockIdx.z; b < batch; b += gridDim.z) {
    const S* src = in + b * matrix;
    S* dst = out + b * matrix;
    for (int64_t rt = blockIdx.y; rt < row_tiles; rt += gridDim.y) {
      for (int64_t ct = blockIdx.x; ct < col_tiles; ct += gridDim.x) {
        const int64_t r0 = rt * kTile, c0 = ct * kTile;
        const int64_t c = c0 + threadIdx.x;
#pragma unroll
        for (int k = 0; k < kTile; k += kTileRows) {
          const int64_t r = r0 + threadIdx.y + k;
          if (r < rows && c < cols) tile[threadIdx.y + k][threadIdx.x] = src[r * cols + c];
        }
        __syncthreads();
        const int64_t oc = r0 + threadIdx.x;  // output column = input row
#pragma unroll
        for (int k = 0; k < kTile; k += kTileRows) {
          const int64_t orow = c0 + threadIdx.y + k;  // output row = input column
          if (orow < cols && oc < rows) dst[orow * rows + oc] = tile[threadIdx.x][threadIdx.y + k];
        }
        __syncthreads();
      }
    }
  }
}

template <typename S>
Status LaunchTransposeTiles(cudaStream_t stream, const void* in, void* out, int64_t batch,
                            int64_t rows, int64_t cols) {
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  const int64_t col_tiles = (cols + kTile - 1) / kTile;
  dim3 grid(static_cast<unsigned>(std::min<int64_t>(col_tiles, int64_t{1} << 30)),
            static_cast<unsigned>(std::min<int64_t>(row_tiles, 65535)),
            static_cast<unsigned>(std::min<int64_t>(batch, 65535)));
  TransposeTileKernel<S><<<grid, dim3(kTile, kTileRows), 0, stream>>>(
      static_cast<const S*>(in), static_cast<S*>(out), batch, rows, cols);
  return CheckLaunch("TransposeTileKernel");
}

// ---------------------------------------------------------------------------
// Fill with a value known on the host (OnesLike).

template <typename S>
__global__ void __launch_bounds__(kThreads) FillValueKernel(S* out, int64_t n, S value) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    out[i] = value;
}

template <typename S>
Status LaunchFillValue(cudaStream_t stream, void* out, int64_t n, S value) {
  FillValueKernel<S><<<GridFor(n, kThreads), kThreads, 0, stream>>>(static_cast<S*>(out), n,
                                                                     value);
  return CheckLaunch("FillValueKernel");
}

}  // namespace

bool IsDeviceType(DataType dt) {
  return VisitDeviceType(dt, [](auto) {});
}

Status NotOnDevice(const OpKernel& k, DataType dt) {
  return errors::Unimplemented(k.type_string(), " has no GPU kernel for ", DataTypeString(dt),
                               " (not a device-memory type)");
}

Status BuildView(int rank, const int64_t* dims, const int64_t* src, const int64_t* dst,
                 int64_t element_bytes, HostView* v, bool* empty) {
  *empty = false;
  v->rank = 0;
  v->bytes = element_bytes;
  int64_t d_dims[2 * kMaxCopyDims * 2], d_src[2 * kMaxCopyDims * 2], d_dst[2 * kMaxCopyDims * 2];
  int n = 0;
  for (int d = 0; d < rank; ++d) {
    if (dims[d] == 0) {
      *empty = true;
      return Status::OK();
    }
    if (dims[d] == 1) continue;
    if (n > 0 && d_src[n - 1] == src[d] * dims[d] && d_dst[n - 1] == dst[d] * dims[d]) {
      d_dims[n - 1] *= dims[d];
      d_src[n - 1] = src[d];
      d_dst[n - 1] = dst[d];
      continue;
    }
    if (n == kMaxCopyDims)
      return errors::Unimplemented("a copy over more than ", kMaxCopyDims,
                                   " non-mergeable dimensions is not supported on GPU");
    d_dims[n] = dims[d];
    d_src[n] = src[d];
    d_dst[n] = dst[d];
    ++n;
  }
  if (n == 0) {  // a single element
    d_dims[0] = 1;
    d_src[0] = 1;
    d_dst[0] = 1;
    n = 1;
  }
  v->rank = n;
  for (int d = 0; d < n; ++d) {
    v->dims[d] = d_dims[d];
    v->src[d] = d_src[d];
    v->dst[d] = d_dst[d];
  }
  return Status::OK();
}

Status LaunchCopy(cudaStream_t stream, const void* src, void* dst, HostView v) {
  if (v.rank == 1 && v.src[0] == 0 && v.dst[0] == 1) {  // one element repeated (Fill)
    switch (v.bytes) {
      case 1: return LaunchBroadcastElement<uint8_t>(stream, src, dst, v.dims[0]);
      case 2: return LaunchBroadcastElement<uint16_t>(stream, src, dst, v.dims[0]);
      case 4: return LaunchBroadcastElement<uint32_t>(stream, src, dst, v.dims[0]);
      case 8: return LaunchBroadcastElement<unsigned long long>(stream, src, dst, v.dims[0]);
      default: break;
    }
  }
  Widen(&v, src, dst);
  switch (v.bytes) {
    case 1: return LaunchCopyTyped<uint8_t>(stream, src, dst, v);
    case 2: return LaunchCopyTyped<uint16_t>(stream, src, dst, v);
    case 4: return LaunchCopyTyped<uint32_t>(stream, src, dst, v);
    case 8: return LaunchCopyTyped<uint2>(stream, src, dst, v);
    case 16: return LaunchCopyTyped<uint4>(stream, src, dst, v);
    default: return errors::Internal("no GPU copy for elements of ", v.bytes, " bytes");
  }
}

Status StridedCopy(cudaStream_t stream, const void* src, void* dst, int rank,
                   const int64_t* dims, const int64_t* src_strides, const int64_t* dst_strides,
                   int64_t element_bytes) {
  HostView v;
  bool empty = false;
  AF_RETURN_IF_ERROR(BuildView(rank, dims, src_strides, dst_strides, element_bytes, &v, &empty));
  if (empty) return Status::OK();
  return LaunchCopy(stream, src, dst, v);
}

Status TransposeTiles(cudaStream_t stream, const void* in, void* out, int64_t batch, int64_t rows,
                      int64_t cols, int64_t element_bytes) {
  switch (element_bytes) {
    case 1: return LaunchTransposeTiles<uint8_t>(stream, in, out, batch, rows, cols);
    case 2: return LaunchTransposeTiles<uint16_t>(stream, in, out, batch, rows, cols);
    case 4: return LaunchTransposeTiles<uint32_t>(stream, in, out, batch, rows, cols);
    case 8: return LaunchTransposeTiles<uint2>(stream, in, out, batch, rows, cols);
    default: return errors::Internal("no GPU transpose for elements of ", element_bytes, " bytes");
  }
}

Status FillWithBits(cudaStream_t stream, void* out, int64_t n, int64_t element_bytes,
                    uint64_t bits) {
  if (n == 0) return Status::OK();
  switch (element_bytes) {
    case 1: return LaunchFillValue<uint8_t>(stream, out, n, static_cast<uint8_t>(bits));
    case 2: return LaunchFillValue<uint16_t>(stream, out, n, static_cast<uint16_t>(bits));
    case 4: return LaunchFillValue<uint32_t>(stream, out, n, static_cast<uint32_t>(bits));
    case 8: return LaunchFillValue<unsigned long long>(stream, out, n, bits);
    default: return errors::Internal("no GPU fill for elements of ", element_bytes, " bytes");
  }
}

Status FillFromDevice(cudaStream_t stream, const void* value, void* out, int64_t n,
                      int64_t element_bytes) {
  if (n == 0) return Status::OK();
  const int64_t dims[1] = {n}, src[1] = {0}, dst[1] = {1};
  return StridedCopy(stream, value, out, 1, dims, src, dst, element_bytes);
}

}  // namespace af::gpu
