// CUDA data-movement kernels: Fill, ZerosLike, OnesLike, Transpose,
// Concat/ConcatV2, Slice, Pad/PadV2, Tile and BroadcastTo. (Const on a GPU
// is kernels/gpu/gpu_state_ops.cc.)
//
// They all reduce to one strided copy: a box of dims walked in row-major
// order, each element read at its offset under the source strides and
// written at its offset under the destination strides (stride 0 repeats an
// element). Size-1 dims are dropped and dims that stay contiguous on both
// sides are merged first, and where the innermost dim is contiguous on both
// sides and everything is aligned, elements are moved as 2-16 byte words
// (a row of floats goes four at a time). Transposes that swap the last two
// dims (2-D, batched 2-D) go through 32x32 shared-memory tiles instead, so
// that reads and writes are both coalesced.
//
//  - Transpose: source strides permuted, destination dense;
//  - Slice: the source from the slice's first element (a contiguous slice
//    shares the input's buffer, as on the CPU);
//  - BroadcastTo: source stride 0 along broadcast dims;
//  - Tile: each dim i split into (multiple, size) dims, source stride 0
//    along the multiple;
//  - Pad: the constant everywhere (a memset for zeros), then the input into
//    the interior; Concat: each input into its columns of the output;
//  - Fill: the device scalar repeated (source stride 0).
//
// Index and shape inputs (dims, perm, begin/size, paddings, multiples,
// axis) are int32/int64 tensors in host memory. Elements are moved as raw
// bits, so every type that lives in device memory works (float, double,
// half, bfloat16, int8, uint8, int16).
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
#include "kernels/gpu/gpu_kernel_registry.h"

namespace af::gpu {
namespace {

constexpr int kMaxDims = 8;

// Whether tensors of `dt` live in device memory on a GPU (the types these
// kernels move).
bool IsDeviceType(DataType dt) {
  switch (BaseType(dt)) {
    case DT_FLOAT:
    case DT_DOUBLE:
    case DT_HALF:
    case DT_BFLOAT16:
    case DT_UINT8:
    case DT_INT8:
    case DT_INT16:
      return true;
    default:
      return false;
  }
}

Status NotOnDevice(const OpKernel& k, DataType dt) {
  return errors::Unimplemented(k.type_string(), " has no GPU kernel for ", DataTypeString(dt),
                               " (not a device-memory type)");
}

// ---------------------------------------------------------------------------
// The strided copy.

template <typename Index>
struct CopyView {
  int rank;
  Index dims[kMaxDims];
  Index src[kMaxDims];
  Index dst[kMaxDims];
};

template <typename S, typename Index>
__global__ void __launch_bounds__(kThreads)
    StridedCopyKernel(const S* __restrict__ src, S* __restrict__ dst, Index n, CopyView<Index> v) {
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index e = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride) {
    Index rem = e, so = 0, dof = 0;
#pragma unroll
    for (int d = kMaxDims - 1; d >= 0; --d) {
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

// A box and its two stride sets, in elements of `bytes` bytes.
struct HostView {
  int rank = 0;
  int64_t dims[kMaxDims];
  int64_t src[kMaxDims];
  int64_t dst[kMaxDims];
  int64_t bytes = 0;
};

// Drops size-1 dims and merges neighbours contiguous on both sides.
// *empty when some dim is 0. UNIMPLEMENTED beyond kMaxDims merged dims.
Status BuildView(int rank, const int64_t* dims, const int64_t* src, const int64_t* dst,
                 int64_t element_bytes, HostView* v, bool* empty) {
  *empty = false;
  v->rank = 0;
  v->bytes = element_bytes;
  int64_t d_dims[2 * kMaxDims * 2], d_src[2 * kMaxDims * 2], d_dst[2 * kMaxDims * 2];
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
    if (n == kMaxDims)
      return errors::Unimplemented("a copy over more than ", kMaxDims,
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

// dst (strides v.dst) = src (strides v.src) over the box v.dims.
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

// Builds the view and copies; nothing for an empty box.
Status StridedCopy(cudaStream_t stream, const void* src, void* dst, int rank,
                   const int64_t* dims, const int64_t* src_strides, const int64_t* dst_strides,
                   int64_t element_bytes) {
  HostView v;
  bool empty = false;
  AF_RETURN_IF_ERROR(BuildView(rank, dims, src_strides, dst_strides, element_bytes, &v, &empty));
  if (empty) return Status::OK();
  return LaunchCopy(stream, src, dst, v);
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

// Every element of `out` = the scalar at `value` (device memory).
Status FillFromDevice(cudaStream_t stream, const void* value, void* out, int64_t n,
                      int64_t element_bytes) {
  if (n == 0) return Status::OK();
  const int64_t dims[1] = {n}, src[1] = {0}, dst[1] = {1};
  return StridedCopy(stream, value, out, 1, dims, src, dst, element_bytes);
}

Status Finish(OpKernelContext* ctx, const Status& s) { return s.ok() ? s : ctx->NodeError(s); }

// ---------------------------------------------------------------------------
// Kernels.

class CudaFillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    DimVector dims;
    OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 0, "dims", &dims));
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, value.dims() == 0,
                ctx->NodeError(errors::InvalidArgument("value must be a scalar, got shape ",
                                                       value.shape().DebugString())));
    OP_REQUIRES(ctx, IsDeviceType(value.dtype()), ctx->NodeError(NotOnDevice(*this, value.dtype())));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ctx->NodeError(TensorShape::Build(dims.data(), dims.size(), &shape)));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    OP_REQUIRES_OK(ctx, Finish(ctx, FillFromDevice(stream, value.raw_data(),
                                                   out->raw_data(), shape.num_elements(),
                                                   DataTypeSize(BaseType(value.dtype())))));
  }
};

class CudaZerosLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, IsDeviceType(x.dtype()), ctx->NodeError(NotOnDevice(*this, x.dtype())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    if (out->TotalBytes() == 0) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    OP_REQUIRES_CUDA(ctx, cudaMemsetAsync(out->raw_data(), 0, out->TotalBytes(), stream),
                     "ZerosLike memset");
  }
};

class CudaOnesLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const int64_t n = x.NumElements();
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    Status s;
    switch (BaseType(x.dtype())) {
      case DT_FLOAT: {
        uint32_t bits;
        const float one = 1.0f;
        std::memcpy(&bits, &one, 4);
        s = n ? LaunchFillValue<uint32_t>(stream, out->raw_data(), n, bits) : s;
        break;
      }
      case DT_DOUBLE: {
        unsigned long long bits;
        const double one = 1.0;
        std::memcpy(&bits, &one, 8);
        s = n ? LaunchFillValue<unsigned long long>(stream, out->raw_data(), n, bits) : s;
        break;
      }
      case DT_HALF:
        s = n ? LaunchFillValue<uint16_t>(stream, out->raw_data(), n, uint16_t{0x3C00}) : s;
        break;
      case DT_BFLOAT16:
        s = n ? LaunchFillValue<uint16_t>(stream, out->raw_data(), n, uint16_t{0x3F80}) : s;
        break;
      case DT_INT16:
        s = n ? LaunchFillValue<uint16_t>(stream, out->raw_data(), n, uint16_t{1}) : s;
        break;
      case DT_UINT8:
      case DT_INT8:
        s = n ? LaunchFillValue<uint8_t>(stream, out->raw_data(), n, uint8_t{1}) : s;
        break;
      default:
        s = NotOnDevice(*this, x.dtype());
    }
    OP_REQUIRES_OK(ctx, Finish(ctx, s));
  }
};

class CudaTransposeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DimVector perm;
    OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 1, "perm", &perm));
    const int rank = in.dims();
    OP_REQUIRES(ctx, perm.size() == rank,
                ctx->NodeError(errors::InvalidArgument("transpose expects a vector of size ", rank,
                                                       ". But input(1) is a vector of size ",
                                                       perm.size())));
    for (int i = 0; i < rank; ++i) {
      OP_REQUIRES(ctx, perm[i] >= 0 && perm[i] < rank,
                  ctx->NodeError(errors::InvalidArgument("perm[", i, "] = ", perm[i],
                                                         " is out of range [0, ", rank, ")")));
      for (int j = 0; j < i; ++j)
        OP_REQUIRES(ctx, perm[j] != perm[i],
                    ctx->NodeError(errors::InvalidArgument(
                        "perm is not a permutation: ", perm[i], " appears at both perm[", j,
                        "] and perm[", i, "]")));
    }
    OP_REQUIRES(ctx, IsDeviceType(in.dtype()), ctx->NodeError(NotOnDevice(*this, in.dtype())));
    const DimVector in_strides = DenseStrides(in.shape());
    TensorShape out_shape;
    for (int i = 0; i < rank; ++i) out_shape.AddDim(in.dim_size(static_cast<int>(perm[i])));
    const DimVector out_strides = DenseStrides(out_shape);
    int64_t dims[kMaxDims * 4], src[kMaxDims * 4], dst[kMaxDims * 4];
    OP_REQUIRES(ctx, rank <= kMaxDims * 4,
                ctx->NodeError(errors::Unimplemented("Transpose of rank ", rank, " on GPU")));
    for (int i = 0; i < rank; ++i) {
      dims[i] = out_shape.dim_size(i);
      src[i] = in_strides[static_cast<int>(perm[i])];
      dst[i] = out_strides[i];
    }
    const int64_t es = DataTypeSize(BaseType(in.dtype()));
    HostView v;
    bool empty = false;
    OP_REQUIRES_OK(ctx, Finish(ctx, BuildView(rank, dims, src, dst, es, &v, &empty)));
    if (!empty && v.rank == 1 && v.src[0] == 1) {  // the data does not move
      Tensor same;
      OP_REQUIRES_OK(ctx, ShareAs(ctx, in, out_shape, &same));
      ctx->set_output(0, std::move(same));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (empty) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    // The last two dims swapped (plain or batched 2-D): tiles.
    if (es <= 8) {
      if (v.rank == 2 && v.src[0] == 1 && v.src[1] == v.dims[0]) {
        // out [d0, d1] from in [d1, d0].
        OP_REQUIRES_OK(ctx, Finish(ctx, TransposeTiles(stream, in.raw_data(), out->raw_data(), 1,
                                                       v.dims[1], v.dims[0], es)));
        return;
      }
      if (v.rank == 3 && v.src[1] == 1 && v.src[2] == v.dims[1] &&
          v.src[0] == v.dims[1] * v.dims[2]) {
        // out [b, d1, d2] from in [b, d2, d1].
        OP_REQUIRES_OK(ctx, Finish(ctx, TransposeTiles(stream, in.raw_data(), out->raw_data(),
                                                       v.dims[0], v.dims[2], v.dims[1], es)));
        return;
      }
    }
    OP_REQUIRES_OK(ctx, Finish(ctx, LaunchCopy(stream, in.raw_data(), out->raw_data(), v)));
  }
};

// Concat (axis first) and ConcatV2 (axis last): input i fills columns
// [offset_i, offset_i + inner_i) of the output seen as [outer, total].
class CudaConcatOp : public OpKernel {
 public:
  CudaConcatOp(OpKernelConstruction* ctx, bool axis_first) : OpKernel(ctx) {
    axis_input_ = axis_first ? 0 : ctx->num_inputs() - 1;
    first_value_ = axis_first ? 1 : 0;
    num_values_ = ctx->num_inputs() - 1;
  }

  void Compute(OpKernelContext* ctx) override {
    int64_t axis = 0;
    OP_REQUIRES_OK(ctx, IntScalarInput(ctx, axis_input_, "concat axis", &axis));
    const Tensor& first = ctx->input(first_value_);
    const int rank = first.dims();
    OP_REQUIRES(ctx, rank > 0,
                ctx->NodeError(
                    errors::InvalidArgument("Can't concatenate scalars (use tf.stack instead)")));
    OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                ctx->NodeError(errors::InvalidArgument(
                    "ConcatOp : Expected concatenating dimensions in the range [", -rank, ", ",
                    rank, "), but got ", axis)));
    const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
    TensorShape out_shape = first.shape();
    int64_t axis_total = 0;
    for (int i = 0; i < num_values_; ++i) {
      const Tensor& t = ctx->input(first_value_ + i);
      OP_REQUIRES(
          ctx, t.dims() == rank,
          ctx->NodeError(errors::InvalidArgument(
              "ConcatOp : Ranks of all input tensors should match: shape[0] = ",
              first.shape().DebugString(), " vs. shape[", i, "] = ", t.shape().DebugString())));
      for (int d = 0; d < rank; ++d) {
        if (d == a) continue;
        OP_REQUIRES(
            ctx, t.dim_size(d) == first.dim_size(d),
            ctx->NodeError(errors::InvalidArgument(
                "ConcatOp : Dimensions of inputs should match: shape[0] = ",
                first.shape().DebugString(), " vs. shape[", i, "] = ", t.shape().DebugString())));
      }
      axis_total += t.dim_size(a);
    }
    OP_REQUIRES(ctx, IsDeviceType(first.dtype()),
                ctx->NodeError(NotOnDevice(*this, first.dtype())));
    out_shape.set_dim(a, axis_total);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    const int64_t outer = DimProduct(out_shape, 0, a);
    const int64_t total = out_shape.num_elements() / outer;
    const int64_t es = DataTypeSize(BaseType(first.dtype()));
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    int64_t offset = 0;
    for (int i = 0; i < num_values_; ++i) {
      const Tensor& t = ctx->input(first_value_ + i);
      const int64_t inner = t.NumElements() / outer;
      if (inner > 0) {
        const int64_t dims[2] = {outer, inner}, src[2] = {inner, 1}, dst[2] = {total, 1};
        OP_REQUIRES_OK(
            ctx, Finish(ctx, StridedCopy(stream, t.raw_data(),
                                         static_cast<char*>(out->raw_data()) + offset * es, 2,
                                         dims, src, dst, es)));
      }
      offset += inner;
    }
  }

 private:
  int axis_input_ = 0, first_value_ = 0, num_values_ = 0;
};

class CudaConcatV1Op : public CudaConcatOp {
 public:
  explicit CudaConcatV1Op(OpKernelConstruction* ctx) : CudaConcatOp(ctx, /*axis_first=*/true) {}
};
class CudaConcatV2Op : public CudaConcatOp {
 public:
  explicit CudaConcatV2Op(OpKernelConstruction* ctx) : CudaConcatOp(ctx, /*axis_first=*/false) {}
};

class CudaSliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DimVector begin, size;
    OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 1, "begin", &begin));
    OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 2, "size", &size));
    const int rank = in.dims();
    OP_REQUIRES(ctx, begin.size() == rank && size.size() == rank,
                ctx->NodeError(errors::InvalidArgument(
                    "Expected begin and size arguments to be 1-D tensors of size ", rank,
                    ", but got shapes [", begin.size(), "] and [", size.size(), "] instead.")));
    TensorShape out_shape;
    for (int i = 0; i < rank; ++i) {
      const int64_t dim = in.dim_size(i), b = begin[i];
      OP_REQUIRES(ctx, b >= 0 && b <= dim,
                  ctx->NodeError(errors::InvalidArgument("Expected begin[", i, "] in [0, ", dim,
                                                         "], but got ", b)));
      if (size[i] == -1) size[i] = dim - b;
      OP_REQUIRES(ctx, size[i] >= 0 && b + size[i] <= dim,
                  ctx->NodeError(errors::InvalidArgument("Expected size[", i, "] in [0, ", dim - b,
                                                         "], but got ", size[i])));
      out_shape.AddDim(size[i]);
    }
    OP_REQUIRES(ctx, IsDeviceType(in.dtype()), ctx->NodeError(NotOnDevice(*this, in.dtype())));
    int64_t offset = 0;
    if (out_shape.num_elements() > 0 && ContiguousBox(in.shape(), begin, size, &offset)) {
      // One contiguous run: share the input's buffer.
      if (out_shape.num_elements() == in.NumElements()) {
        Tensor whole;
        OP_REQUIRES_OK(ctx, ShareAs(ctx, in, out_shape, &whole));
        ctx->set_output(0, std::move(whole));
        return;
      }
      Tensor flat, piece;
      OP_REQUIRES_OK(ctx, ShareAs(ctx, in, TensorShape{in.NumElements()}, &flat));
      OP_REQUIRES_OK(ctx, ShareAs(ctx, flat.Slice(offset, offset + out_shape.num_elements()),
                                  out_shape, &piece));
      ctx->set_output(0, std::move(piece));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    OP_REQUIRES(ctx, rank <= kMaxDims * 4,
                ctx->NodeError(errors::Unimplemented("Slice of rank ", rank, " on GPU")));
    const DimVector in_strides = DenseStrides(in.shape());
    const DimVector out_strides = DenseStrides(out_shape);
    int64_t dims[kMaxDims * 4], src[kMaxDims * 4], dst[kMaxDims * 4];
    offset = 0;
    for (int i = 0; i < rank; ++i) {
      dims[i] = size[i];
      src[i] = in_strides[i];
      dst[i] = out_strides[i];
      offset += begin[i] * in_strides[i];
    }
    const int64_t es = DataTypeSize(BaseType(in.dtype()));
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    OP_REQUIRES_OK(ctx, Finish(ctx, StridedCopy(stream,
                                                static_cast<const char*>(in.raw_data()) + offset * es,
                                                out->raw_data(), rank, dims, src, dst, es)));
  }
};

// Pad (zeros) and PadV2 (a constant in device memory).
class CudaPadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& paddings = ctx->input(1);
    const int rank = in.dims();
    OP_REQUIRES(ctx, paddings.dims() == 2 && paddings.dim_size(1) == 2,
                ctx->NodeError(errors::InvalidArgument("paddings must be a matrix with 2 columns: ",
                                                       paddings.shape().DebugString())));
    OP_REQUIRES(ctx, paddings.dim_size(0) == rank,
                ctx->NodeError(errors::InvalidArgument(
                    "The first dimension of paddings must be the rank of inputs",
                    paddings.shape().DebugString(), " ", in.shape().DebugString())));
    const bool has_constant = ctx->num_inputs() > 2;
    if (has_constant) {
      OP_REQUIRES(ctx, ctx->input(2).dims() == 0,
                  ctx->NodeError(errors::InvalidArgument("constant_values must be a scalar. Got: ",
                                                         ctx->input(2).shape().DebugString())));
    }
    TensorShape out_shape;
    DimVector before;
    bool no_padding = true;
    for (int i = 0; i < rank; ++i) {
      const int64_t b = IntElement(paddings, 2 * i), a = IntElement(paddings, 2 * i + 1);
      OP_REQUIRES(
          ctx, b >= 0 && a >= 0,
          ctx->NodeError(errors::InvalidArgument("Paddings must be non-negative: ", b, " ", a)));
      out_shape.AddDim(in.dim_size(i) + b + a);
      before.push_back(b);
      no_padding &= b == 0 && a == 0;
    }
    OP_REQUIRES(ctx, IsDeviceType(in.dtype()), ctx->NodeError(NotOnDevice(*this, in.dtype())));
    if (no_padding) {
      Tensor same;
      OP_REQUIRES_OK(ctx, ShareAs(ctx, in, out_shape, &same));
      ctx->set_output(0, std::move(same));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t total = out_shape.num_elements();
    if (total == 0) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    const int64_t es = DataTypeSize(BaseType(in.dtype()));
    if (has_constant) {
      OP_REQUIRES_OK(ctx, Finish(ctx, FillFromDevice(stream, ctx->input(2).raw_data(),
                                                     out->raw_data(), total, es)));
    } else {
      OP_REQUIRES_CUDA(ctx, cudaMemsetAsync(out->raw_data(), 0, out->TotalBytes(), stream),
                       "Pad memset");
    }
    if (in.NumElements() == 0) return;
    OP_REQUIRES(ctx, rank <= kMaxDims * 4,
                ctx->NodeError(errors::Unimplemented("Pad of rank ", rank, " on GPU")));
    const DimVector in_strides = DenseStrides(in.shape());
    const DimVector out_strides = DenseStrides(out_shape);
    int64_t dims[kMaxDims * 4], src[kMaxDims * 4], dst[kMaxDims * 4];
    int64_t offset = 0;
    for (int i = 0; i < rank; ++i) {
      dims[i] = in.dim_size(i);
      src[i] = in_strides[i];
      dst[i] = out_strides[i];
      offset += before[i] * out_strides[i];
    }
    OP_REQUIRES_OK(ctx, Finish(ctx, StridedCopy(stream, in.raw_data(),
                                                static_cast<char*>(out->raw_data()) + offset * es,
                                                rank, dims, src, dst, es)));
  }
};

class CudaTileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DimVector multiples;
    OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 1, "multiples", &multiples));
    const int rank = in.dims();
    OP_REQUIRES(ctx, multiples.size() == rank,
                ctx->NodeError(
                    errors::InvalidArgument("Expected multiples argument to be a vector of length ",
                                            rank, " but got length ", multiples.size())));
    TensorShape out_shape;
    for (int i = 0; i < rank; ++i) {
      OP_REQUIRES(ctx, multiples[i] >= 0,
                  ctx->NodeError(errors::InvalidArgument("Expected multiples[", i,
                                                         "] >= 0, but got ", multiples[i])));
      out_shape.AddDim(in.dim_size(i) * multiples[i]);
    }
    OP_REQUIRES(ctx, IsDeviceType(in.dtype()), ctx->NodeError(NotOnDevice(*this, in.dtype())));
    if (out_shape == in.shape()) {
      Tensor same;
      OP_REQUIRES_OK(ctx, ShareAs(ctx, in, out_shape, &same));
      ctx->set_output(0, std::move(same));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    OP_REQUIRES(ctx, rank <= kMaxDims * 2,
                ctx->NodeError(errors::Unimplemented("Tile of rank ", rank, " on GPU")));
    // Output dim i = (multiple m_i, input dim d_i): the copy walks 2 * rank
    // dims, the multiples with source stride 0.
    const DimVector in_strides = DenseStrides(in.shape());
    const DimVector out_strides = DenseStrides(out_shape);
    int64_t dims[kMaxDims * 4], src[kMaxDims * 4], dst[kMaxDims * 4];
    for (int i = 0; i < rank; ++i) {
      dims[2 * i] = multiples[i];
      src[2 * i] = 0;
      dst[2 * i] = in.dim_size(i) * out_strides[i];
      dims[2 * i + 1] = in.dim_size(i);
      src[2 * i + 1] = in_strides[i];
      dst[2 * i + 1] = out_strides[i];
    }
    const int64_t es = DataTypeSize(BaseType(in.dtype()));
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    OP_REQUIRES_OK(ctx, Finish(ctx, StridedCopy(stream, in.raw_data(), out->raw_data(),
                                                2 * rank, dims, src, dst, es)));
  }
};

class CudaBroadcastToOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DimVector dims_in;
    OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 1, "shape", &dims_in));
    TensorShape target;
    OP_REQUIRES_OK(ctx,
                   ctx->NodeError(TensorShape::Build(dims_in.data(), dims_in.size(), &target)));
    const int rank = target.dims(), lead = rank - in.dims();
    OP_REQUIRES(ctx, lead >= 0,
                ctx->NodeError(errors::InvalidArgument(
                    "Rank of input (", in.dims(),
                    ") must be no greater than rank of output shape (", rank, ").")));
    OP_REQUIRES(ctx, rank <= kMaxDims * 4,
                ctx->NodeError(errors::Unimplemented("BroadcastTo of rank ", rank, " on GPU")));
    const DimVector in_strides = DenseStrides(in.shape());
    const DimVector out_strides = DenseStrides(target);
    int64_t dims[kMaxDims * 4], src[kMaxDims * 4], dst[kMaxDims * 4];
    for (int i = 0; i < rank; ++i) {
      dims[i] = target.dim_size(i);
      src[i] = 0;
      dst[i] = out_strides[i];
    }
    for (int i = 0; i < in.dims(); ++i) {
      const int64_t have = in.dim_size(i), want = target.dim_size(lead + i);
      OP_REQUIRES(ctx, have == want || have == 1,
                  ctx->NodeError(errors::InvalidArgument(
                      "Unable to broadcast tensor of shape ", in.shape().DebugString(),
                      " to tensor of shape ", target.DebugString())));
      src[lead + i] = have == 1 ? 0 : in_strides[i];
    }
    OP_REQUIRES(ctx, IsDeviceType(in.dtype()), ctx->NodeError(NotOnDevice(*this, in.dtype())));
    if (target == in.shape()) {
      Tensor same;
      OP_REQUIRES_OK(ctx, ShareAs(ctx, in, target, &same));
      ctx->set_output(0, std::move(same));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, target, &out));
    if (target.num_elements() == 0) return;
    const int64_t es = DataTypeSize(BaseType(in.dtype()));
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    OP_REQUIRES_OK(ctx, Finish(ctx, StridedCopy(stream, in.raw_data(), out->raw_data(),
                                                rank, dims, src, dst, es)));
  }
};

}  // namespace

REGISTER_CUDA_KERNEL("Fill", CudaFillOp);
REGISTER_CUDA_KERNEL("ZerosLike", CudaZerosLikeOp);
REGISTER_CUDA_KERNEL("OnesLike", CudaOnesLikeOp);
REGISTER_CUDA_KERNEL("Transpose", CudaTransposeOp);
REGISTER_CUDA_KERNEL("Concat", CudaConcatV1Op);
REGISTER_CUDA_KERNEL("ConcatV2", CudaConcatV2Op);
REGISTER_CUDA_KERNEL("Slice", CudaSliceOp);
REGISTER_CUDA_KERNEL("Pad", CudaPadOp);
REGISTER_CUDA_KERNEL("PadV2", CudaPadOp);
REGISTER_CUDA_KERNEL("Tile", CudaTileOp);
REGISTER_CUDA_KERNEL("BroadcastTo", CudaBroadcastToOp);

}  // namespace af::gpu
