// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter on CUDA GPUs through
// cuDNN's convolution API (cudnnConvolutionForward / BackwardData /
// BackwardFilter), for float and half, NHWC (TensorFlow's default) and NCHW.
//
// Layouts. Data tensors go to cuDNN as they are: a CUDNN_TENSOR_NHWC (or
// NCHW) descriptor describes TensorFlow's layout exactly. Filters do not:
// TensorFlow keeps them HWIO ([rows, cols, in, out]) and cuDNN only knows
// KRSC ([out, rows, cols, in], its "NHWC" filter format, used with NHWC
// data) and KCRS ([out, in, rows, cols], with NCHW data). The forward and
// input-gradient kernels transpose the filter into a temporary; the
// filter-gradient kernel lets cuDNN write KRSC/KCRS into a temporary and
// transposes that into the HWIO output.
//
// Padding. cuDNN pads both sides of a dimension equally. TensorFlow's SAME
// (and EXPLICIT) padding may put one more row after than before; then the
// input is copied into a zero-padded temporary holding the extra rows, and
// cuDNN pads the rest symmetrically. For the input gradient, cuDNN's result
// on the padded shape is cropped back.
//
// Algorithms. The first call with a shape picks cuDNN's algorithm
// (timing every candidate with cudnnFind*AlgorithmEx — that call blocks
// until the device has run them — or, with ACTORFLOW_CUDNN_AUTOTUNE=0, from
// cudnnGet*Algorithm_v7's heuristics without blocking) and the device's
// cuDNN resource remembers it, with its workspace size, for every later
// call. float keeps full FP32 arithmetic (CUDNN_FMA_MATH) unless
// ACTORFLOW_GPU_ALLOW_TF32=1; half computes in FP32 on tensor cores.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "core/op_kernel.h"
#include "core/tensor.h"
#include "core/window_geometry.h"
#include "kernels/gpu/cuda/cublas_handle.h"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/cuda/cudnn_handle.h"
#include "kernels/gpu/cuda/filter_layout.h"
#include "kernels/gpu/gpu_kernel_registry.h"
#include "kernels/nn/conv_dims.h"

namespace af::gpu {

namespace {

// Largest workspace a convolution may take (the algorithm search skips
// algorithms that need more).
constexpr size_t kMaxWorkspaceBytes = size_t{1} << 30;

bool FitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

// The descriptors of one convolution, as cuDNN sees it: the input possibly
// padded by the asymmetric part of TensorFlow's padding.
struct ConvSetup {
  Conv2DDims d;
  DataType dtype = DT_FLOAT;
  int elem_bytes = 4;
  bool nhwc = true;
  // Rows (cols) of zeros added before / after the input in the padded
  // temporary; cuDNN pads the remaining pad_h (pad_w) on both sides.
  int64_t extra_top = 0, extra_bottom = 0, extra_left = 0, extra_right = 0;
  int64_t pad_h = 0, pad_w = 0;
  int64_t padded_h = 0, padded_w = 0;
  // float without TF32, and double: no tensor-core math at all.
  bool strict_fp32 = false;
  CudnnTensorDescriptor x, y;
  CudnnFilterDescriptor w;
  CudnnConvolutionDescriptor conv;
  std::string key;

  bool explicit_pad() const {
    return extra_top != 0 || extra_bottom != 0 || extra_left != 0 || extra_right != 0;
  }
  // The dims of the (padded) input, the output and cuDNN's filter as laid
  // out in memory.
  void PaddedInputDims(int64_t out[4]) const { Dims(d.batch, padded_h, padded_w, d.in_depth, out); }
  void InputDims(int64_t out[4]) const { Dims(d.batch, d.in_h, d.in_w, d.in_depth, out); }
  void PadOffset(int64_t out[4], int64_t sign) const {
    Dims(0, sign * extra_top, sign * extra_left, 0, out);
  }
  TensorShape PaddedInputShape() const {
    int64_t v[4];
    PaddedInputDims(v);
    return TensorShape{v[0], v[1], v[2], v[3]};
  }
  // cuDNN's filter (KRSC with NHWC data, KCRS with NCHW) and the
  // permutations between it and TensorFlow's HWIO.
  TensorShape CudnnFilterShape() const {
    return nhwc ? TensorShape{d.out_depth, d.filter_h, d.filter_w, d.in_depth}
                : TensorShape{d.out_depth, d.in_depth, d.filter_h, d.filter_w};
  }
  const int* HwioToCudnn() const {
    static constexpr int kToKrsc[4] = {3, 0, 1, 2};  // [R,S,C,K] -> [K,R,S,C]
    static constexpr int kToKcrs[4] = {3, 2, 0, 1};  // [R,S,C,K] -> [K,C,R,S]
    return nhwc ? kToKrsc : kToKcrs;
  }
  const int* CudnnToHwio() const {
    static constexpr int kFromKrsc[4] = {1, 2, 3, 0};  // [K,R,S,C] -> [R,S,C,K]
    static constexpr int kFromKcrs[4] = {2, 3, 1, 0};  // [K,C,R,S] -> [R,S,C,K]
    return nhwc ? kFromKrsc : kFromKcrs;
  }

 private:
  void Dims(int64_t n, int64_t h, int64_t w, int64_t c, int64_t out[4]) const {
    out[0] = n;
    if (nhwc) {
      out[1] = h;
      out[2] = w;
      out[3] = c;
    } else {
      out[1] = c;
      out[2] = h;
      out[3] = w;
    }
  }
};

Status SetUpConv(const char* pass, const Conv2DDims& d, DataType dtype, ConvSetup* s) {
  s->d = d;
  s->dtype = BaseType(dtype);
  s->elem_bytes = DataTypeSize(s->dtype);
  s->nhwc = d.format == TensorFormat::kNHWC;
  s->pad_h = std::min(d.pad_top, d.pad_bottom);
  s->pad_w = std::min(d.pad_left, d.pad_right);
  s->extra_top = d.pad_top - s->pad_h;
  s->extra_bottom = d.pad_bottom - s->pad_h;
  s->extra_left = d.pad_left - s->pad_w;
  s->extra_right = d.pad_right - s->pad_w;
  s->padded_h = d.in_h + s->extra_top + s->extra_bottom;
  s->padded_w = d.in_w + s->extra_left + s->extra_right;
  for (int64_t v : {d.batch, d.in_depth, s->padded_h, s->padded_w, d.out_depth, d.out_h, d.out_w,
                    d.filter_h, d.filter_w, s->pad_h, s->pad_w, d.stride_h, d.stride_w,
                    d.dilation_h, d.dilation_w})
    if (!FitsInt(v))
      return errors::Unimplemented("convolution too large for cuDNN: input ",
                                   d.InputShape().DebugString(), ", filter ",
                                   d.FilterShape().DebugString());
  cudnnDataType_t data_type;
  AF_RETURN_IF_ERROR(CudnnDataTypeOf(s->dtype, &data_type));
  const cudnnDataType_t compute_type =
      s->dtype == DT_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  s->strict_fp32 = s->dtype == DT_DOUBLE || (s->dtype == DT_FLOAT && !AllowTf32());
  const cudnnTensorFormat_t format = s->nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;

  AF_RETURN_IF_ERROR(s->x.Init("cudnnCreateTensorDescriptor"));
  AF_RETURN_IF_ERROR(s->y.Init("cudnnCreateTensorDescriptor"));
  AF_RETURN_IF_ERROR(s->w.Init("cudnnCreateFilterDescriptor"));
  AF_RETURN_IF_ERROR(s->conv.Init("cudnnCreateConvolutionDescriptor"));
  AF_CUDNN_RETURN_IF_ERROR(
      cudnnSetTensor4dDescriptor(s->x.get(), format, data_type, static_cast<int>(d.batch),
                                 static_cast<int>(d.in_depth), static_cast<int>(s->padded_h),
                                 static_cast<int>(s->padded_w)),
      "cudnnSetTensor4dDescriptor (input)");
  AF_CUDNN_RETURN_IF_ERROR(
      cudnnSetTensor4dDescriptor(s->y.get(), format, data_type, static_cast<int>(d.batch),
                                 static_cast<int>(d.out_depth), static_cast<int>(d.out_h),
                                 static_cast<int>(d.out_w)),
      "cudnnSetTensor4dDescriptor (output)");
  AF_CUDNN_RETURN_IF_ERROR(
      cudnnSetFilter4dDescriptor(s->w.get(), data_type, format, static_cast<int>(d.out_depth),
                                 static_cast<int>(d.in_depth), static_cast<int>(d.filter_h),
                                 static_cast<int>(d.filter_w)),
      "cudnnSetFilter4dDescriptor");
  AF_CUDNN_RETURN_IF_ERROR(
      cudnnSetConvolution2dDescriptor(s->conv.get(), static_cast<int>(s->pad_h),
                                      static_cast<int>(s->pad_w), static_cast<int>(d.stride_h),
                                      static_cast<int>(d.stride_w), static_cast<int>(d.dilation_h),
                                      static_cast<int>(d.dilation_w), CUDNN_CROSS_CORRELATION,
                                      compute_type),
      "cudnnSetConvolution2dDescriptor");
  // Strict FP32 (and FP64) keeps to FMA kernels; half (and float with TF32
  // allowed) may use tensor cores.
  AF_CUDNN_RETURN_IF_ERROR(
      cudnnSetConvolutionMathType(s->conv.get(),
                                  s->strict_fp32 ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH),
      "cudnnSetConvolutionMathType");
  int n = 0, c = 0, h = 0, w = 0;
  AF_CUDNN_RETURN_IF_ERROR(cudnnGetConvolution2dForwardOutputDim(s->conv.get(), s->x.get(),
                                                                 s->w.get(), &n, &c, &h, &w),
                           "cudnnGetConvolution2dForwardOutputDim");
  if (n != d.batch || c != d.out_depth || h != d.out_h || w != d.out_w)
    return errors::Internal("cuDNN's output of the convolution of ",
                            d.InputShape().DebugString(), " with ", d.FilterShape().DebugString(),
                            " would be [", n, ",", c, ",", h, ",", w, "] (NCHW), expected ",
                            d.OutputShape().DebugString());
  s->key = internal::StrCat(pass, "|", DataTypeString(s->dtype), "|", s->nhwc ? "NHWC" : "NCHW",
                            "|", d.batch, ",", d.in_depth, ",", s->padded_h, ",", s->padded_w,
                            "|", d.out_depth, ",", d.filter_h, ",", d.filter_w, "|", s->pad_h, ",",
                            s->pad_w, "|", d.stride_h, ",", d.stride_w, "|", d.dilation_h, ",",
                            d.dilation_w, "|", s->strict_fp32 ? "fp32" : "fast");
  return Status::OK();
}

// Device pointers of one call: x (input, possibly padded), w (filter in
// cuDNN's layout), y (output / out_backprop).
struct ConvBuffers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
};

// What differs between the three passes.
struct ForwardPass {
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  using Algo = cudnnConvolutionFwdAlgo_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  static constexpr const char* kName = "Conv2D";
  static cudnnStatus_t Workspace(cudnnHandle_t h, const ConvSetup& s, int algo, size_t* bytes) {
    return cudnnGetConvolutionForwardWorkspaceSize(h, s.x.get(), s.w.get(), s.conv.get(), s.y.get(),
                                                   static_cast<Algo>(algo), bytes);
  }
  static cudnnStatus_t Find(cudnnHandle_t h, const ConvSetup& s, const ConvBuffers& b, int* n,
                            Perf* perf, void* ws, size_t ws_bytes) {
    return cudnnFindConvolutionForwardAlgorithmEx(h, s.x.get(), b.x, s.w.get(), b.w, s.conv.get(),
                                                  s.y.get(), b.y, kCount, n, perf, ws, ws_bytes);
  }
  static cudnnStatus_t Heuristic(cudnnHandle_t h, const ConvSetup& s, int* n, Perf* perf) {
    return cudnnGetConvolutionForwardAlgorithm_v7(h, s.x.get(), s.w.get(), s.conv.get(),
                                                  s.y.get(), kCount, n, perf);
  }
  static cudnnStatus_t Run(cudnnHandle_t h, const void* alpha, const ConvSetup& s,
                           const ConvBuffers& b, int algo, void* ws, size_t ws_bytes,
                           const void* beta) {
    return cudnnConvolutionForward(h, alpha, s.x.get(), b.x, s.w.get(), b.w, s.conv.get(),
                                   static_cast<Algo>(algo), ws, ws_bytes, beta, s.y.get(), b.y);
  }
};

struct BackwardDataPass {
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  using Algo = cudnnConvolutionBwdDataAlgo_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  static constexpr const char* kName = "Conv2DBackpropInput";
  static cudnnStatus_t Workspace(cudnnHandle_t h, const ConvSetup& s, int algo, size_t* bytes) {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(h, s.w.get(), s.y.get(), s.conv.get(),
                                                        s.x.get(), static_cast<Algo>(algo), bytes);
  }
  static cudnnStatus_t Find(cudnnHandle_t h, const ConvSetup& s, const ConvBuffers& b, int* n,
                            Perf* perf, void* ws, size_t ws_bytes) {
    return cudnnFindConvolutionBackwardDataAlgorithmEx(h, s.w.get(), b.w, s.y.get(), b.y,
                                                       s.conv.get(), s.x.get(), b.x, kCount, n,
                                                       perf, ws, ws_bytes);
  }
  static cudnnStatus_t Heuristic(cudnnHandle_t h, const ConvSetup& s, int* n, Perf* perf) {
    return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, s.w.get(), s.y.get(), s.conv.get(),
                                                       s.x.get(), kCount, n, perf);
  }
  static cudnnStatus_t Run(cudnnHandle_t h, const void* alpha, const ConvSetup& s,
                           const ConvBuffers& b, int algo, void* ws, size_t ws_bytes,
                           const void* beta) {
    return cudnnConvolutionBackwardData(h, alpha, s.w.get(), b.w, s.y.get(), b.y, s.conv.get(),
                                        static_cast<Algo>(algo), ws, ws_bytes, beta, s.x.get(),
                                        b.x);
  }
};

struct BackwardFilterPass {
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  using Algo = cudnnConvolutionBwdFilterAlgo_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  static constexpr const char* kName = "Conv2DBackpropFilter";
  static cudnnStatus_t Workspace(cudnnHandle_t h, const ConvSetup& s, int algo, size_t* bytes) {
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(
        h, s.x.get(), s.y.get(), s.conv.get(), s.w.get(), static_cast<Algo>(algo), bytes);
  }
  static cudnnStatus_t Find(cudnnHandle_t h, const ConvSetup& s, const ConvBuffers& b, int* n,
                            Perf* perf, void* ws, size_t ws_bytes) {
    return cudnnFindConvolutionBackwardFilterAlgorithmEx(h, s.x.get(), b.x, s.y.get(), b.y,
                                                         s.conv.get(), s.w.get(), b.w, kCount, n,
                                                         perf, ws, ws_bytes);
  }
  static cudnnStatus_t Heuristic(cudnnHandle_t h, const ConvSetup& s, int* n, Perf* perf) {
    return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, s.x.get(), s.y.get(), s.conv.get(),
                                                         s.w.get(), kCount, n, perf);
  }
  static cudnnStatus_t Run(cudnnHandle_t h, const void* alpha, const ConvSetup& s,
                           const ConvBuffers& b, int algo, void* ws, size_t ws_bytes,
                           const void* beta) {
    return cudnnConvolutionBackwardFilter(h, alpha, s.x.get(), b.x, s.y.get(), b.y, s.conv.get(),
                                          static_cast<Algo>(algo), ws, ws_bytes, beta, s.w.get(),
                                          b.w);
  }
};

// A temporary of `bytes` device bytes (none for 0).
Status AllocateBytes(OpKernelContext* ctx, size_t bytes, Tensor* t, void** ptr) {
  *ptr = nullptr;
  if (bytes == 0) return Status::OK();
  AF_RETURN_IF_ERROR(
      ctx->allocate_temp(DT_UINT8, TensorShape{static_cast<int64_t>(bytes)}, t));
  *ptr = t->raw_data();
  return Status::OK();
}

// The math type algorithm `perf_math` runs with, or false when it must not
// run at all (reduced precision that was not asked for).
bool MathTypeFor(const ConvSetup& s, cudnnMathType_t perf_math, cudnnMathType_t* out) {
  if (perf_math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION && s.dtype != DT_HALF) return false;
  if (s.strict_fp32) {
    if (perf_math == CUDNN_TENSOR_OP_MATH || perf_math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
      return false;
    *out = CUDNN_FMA_MATH;
    return true;
  }
  *out = perf_math;
  return true;
}

// The algorithm for `s`, from the device's cache or chosen now (see the
// file comment). The scope's lock is held throughout.
template <typename Pass>
Status ChooseAlgorithm(OpKernelContext* ctx, CudnnScope* cudnn, ConvSetup* s,
                       const ConvBuffers& b, ConvAlgoChoice* choice) {
  CudnnResource* res = cudnn->resource();
  auto it = res->conv_algos.find(s->key);
  if (it != res->conv_algos.end()) {
    *choice = it->second;
    return Status::OK();
  }
  cudnnHandle_t h = cudnn->handle();
  typename Pass::Perf perf[Pass::kCount];
  int returned = 0;
  size_t limit = kMaxWorkspaceBytes;
  if (CudnnAutotune()) {
    // A workspace big enough for every algorithm that fits the limit.
    size_t largest = 0;
    for (int algo = 0; algo < Pass::kCount; ++algo) {
      size_t bytes = 0;
      if (Pass::Workspace(h, *s, algo, &bytes) == CUDNN_STATUS_SUCCESS && bytes <= limit)
        largest = std::max(largest, bytes);
    }
    Tensor ws;
    void* ws_ptr = nullptr;
    if (!AllocateBytes(ctx, largest, &ws, &ws_ptr).ok()) {
      largest = 0;  // only algorithms without a workspace then
      ws_ptr = nullptr;
    }
    limit = largest;
    AF_CUDNN_RETURN_IF_ERROR(Pass::Find(h, *s, b, &returned, perf, ws_ptr, largest),
                             "cudnnFindConvolutionAlgorithmEx");
  } else {
    AF_CUDNN_RETURN_IF_ERROR(Pass::Heuristic(h, *s, &returned, perf),
                             "cudnnGetConvolutionAlgorithm_v7");
  }
  // The fastest (or most recommended) algorithm that ran, fits, keeps the
  // required precision and accepts its math type.
  for (int i = 0; i < returned; ++i) {
    const typename Pass::Perf& p = perf[i];
    cudnnMathType_t math;
    if (p.status != CUDNN_STATUS_SUCCESS || !MathTypeFor(*s, p.mathType, &math)) continue;
    if (cudnnSetConvolutionMathType(s->conv.get(), math) != CUDNN_STATUS_SUCCESS) continue;
    size_t bytes = 0;
    if (Pass::Workspace(h, *s, static_cast<int>(p.algo), &bytes) != CUDNN_STATUS_SUCCESS ||
        bytes > limit)
      continue;
    ConvAlgoChoice c;
    c.algo = static_cast<int>(p.algo);
    c.math_type = math;
    c.workspace_bytes = std::max(bytes, p.memory);
    res->conv_algos.emplace(s->key, c);
    *choice = c;
    return Status::OK();
  }
  return errors::Unimplemented(Pass::kName, ": cuDNN offers no usable algorithm for input ",
                               s->d.InputShape().DebugString(), " and filter ",
                               s->d.FilterShape().DebugString(), " (", returned,
                               " candidates, dtype ", DataTypeString(s->dtype), ")");
}

// Picks (or recalls) the algorithm and runs the pass on `b`.
template <typename Pass>
Status RunPass(OpKernelContext* ctx, CudnnScope* cudnn, ConvSetup* s, const ConvBuffers& b) {
  ConvAlgoChoice choice;
  AF_RETURN_IF_ERROR(ChooseAlgorithm<Pass>(ctx, cudnn, s, b, &choice));
  AF_CUDNN_RETURN_IF_ERROR(cudnnSetConvolutionMathType(s->conv.get(), choice.math_type),
                           "cudnnSetConvolutionMathType");
  Tensor ws;
  void* ws_ptr = nullptr;
  AF_RETURN_IF_ERROR(AllocateBytes(ctx, choice.workspace_bytes, &ws, &ws_ptr));
  const float one_f = 1.0f, zero_f = 0.0f;
  const double one_d = 1.0, zero_d = 0.0;
  const bool fp64 = s->dtype == DT_DOUBLE;
  const void* alpha = fp64 ? static_cast<const void*>(&one_d) : &one_f;
  const void* beta = fp64 ? static_cast<const void*>(&zero_d) : &zero_f;
  const std::string what = std::string(Pass::kName) + ": cuDNN convolution (algorithm " +
                           std::to_string(choice.algo) + ")";
  AF_CUDNN_RETURN_IF_ERROR(Pass::Run(cudnn->handle(), alpha, *s, b, choice.algo, ws_ptr,
                                     choice.workspace_bytes, beta),
                           what.c_str());
  return Status::OK();
}

// The filter in cuDNN's layout, in a temporary.
Status FilterToCudnn(OpKernelContext* ctx, const ConvSetup& s, const Tensor& hwio, Tensor* tmp) {
  AF_RETURN_IF_ERROR(ctx->allocate_temp(s.dtype, s.CudnnFilterShape(), tmp));
  const int64_t dims[4] = {s.d.filter_h, s.d.filter_w, s.d.in_depth, s.d.out_depth};
  AF_CUDA_RETURN_IF_ERROR(LaunchPermute4D(ComputeStream(ctx), s.elem_bytes, hwio.raw_data(), dims,
                                          s.HwioToCudnn(), tmp->raw_data()),
                          "filter transpose HWIO to cuDNN layout");
  return Status::OK();
}

// The input with the asymmetric padding added, in a temporary (or the input
// itself when cuDNN's symmetric padding covers everything).
Status PaddedInput(OpKernelContext* ctx, const ConvSetup& s, const Tensor& input, Tensor* tmp,
                   void** x) {
  if (!s.explicit_pad()) {
    *x = input.raw_data();
    return Status::OK();
  }
  AF_RETURN_IF_ERROR(ctx->allocate_temp(s.dtype, s.PaddedInputShape(), tmp));
  int64_t in_dims[4], out_dims[4], offset[4];
  s.InputDims(in_dims);
  s.PaddedInputDims(out_dims);
  s.PadOffset(offset, 1);
  AF_CUDA_RETURN_IF_ERROR(LaunchShift4D(ComputeStream(ctx), s.elem_bytes, input.raw_data(),
                                        in_dims, tmp->raw_data(), out_dims, offset),
                          "asymmetric padding of the convolution input");
  *x = tmp->raw_data();
  return Status::OK();
}

Status ZeroOutput(OpKernelContext* ctx, Tensor* out) {
  AF_RETURN_IF_ERROR(MakeKernelDeviceCurrent(ctx));
  AF_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out->raw_data(), 0, out->TotalBytes(), ComputeStream(ctx)),
                          "cudaMemsetAsync");
  return Status::OK();
}

bool SupportedType(DataType dtype) {
  const DataType t = BaseType(dtype);
  return t == DT_FLOAT || t == DT_HALF;
}

Status CheckType(const char* op, DataType dtype) {
  if (SupportedType(dtype)) return Status::OK();
  return errors::Unimplemented(op, " on a CUDA GPU supports float and half, not ",
                               DataTypeString(dtype));
}

class CudaConv2DOp : public OpKernel {
 public:
  explicit CudaConv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ParseConv2DAttrs(ctx->def(), &window_));
    dtype_ = ctx->num_inputs() > 0 ? ctx->input_types()[0] : DT_INVALID;
    OP_REQUIRES_OK(ctx, CheckType("Conv2D", dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Conv2DDims d;
    OP_REQUIRES_OK(ctx,
                   ctx->NodeError(ComputeConv2DDims(window_, input.shape(), filter.shape(), &d)));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, d.OutputShape(), &out));
    if (out->NumElements() == 0) return;
    if (input.NumElements() == 0 || filter.NumElements() == 0) {  // an empty sum
      OP_REQUIRES_OK(ctx, ctx->NodeError(ZeroOutput(ctx, out)));
      return;
    }
    CudnnScope cudnn;
    OP_REQUIRES_OK(ctx, CudnnFor(ctx, &cudnn));
    ConvSetup s;
    OP_REQUIRES_OK(ctx, ctx->NodeError(SetUpConv("fwd", d, dtype_, &s)));
    Tensor filter_tmp, input_tmp;
    ConvBuffers b;
    OP_REQUIRES_OK(ctx, ctx->NodeError(FilterToCudnn(ctx, s, filter, &filter_tmp)));
    OP_REQUIRES_OK(ctx, ctx->NodeError(PaddedInput(ctx, s, input, &input_tmp, &b.x)));
    b.w = filter_tmp.raw_data();
    b.y = out->raw_data();
    OP_REQUIRES_OK(ctx, ctx->NodeError(RunPass<ForwardPass>(ctx, &cudnn, &s, b)));
  }

 private:
  Window2D window_;
  DataType dtype_ = DT_FLOAT;
};

class CudaConv2DBackpropInputOp : public OpKernel {
 public:
  explicit CudaConv2DBackpropInputOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ParseConv2DAttrs(ctx->def(), &window_));
    dtype_ = ctx->num_inputs() > 1 ? ctx->input_types()[1] : DT_INVALID;
    OP_REQUIRES_OK(ctx, CheckType(kOp, dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& sizes = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    OP_REQUIRES(ctx, filter.dims() == 4,
                ctx->NodeError(errors::InvalidArgument(
                    kOp, ": filter must be 4-dimensional: ", filter.shape().DebugString())));
    OP_REQUIRES(
        ctx, out_backprop.dims() == 4,
        ctx->NodeError(errors::InvalidArgument(
            kOp, ": out_backprop must be 4-dimensional: ", out_backprop.shape().DebugString())));
    // input_sizes is int32, so it lives in host memory on a GPU device.
    TensorShape input_shape;
    OP_REQUIRES_OK(ctx, ctx->NodeError(ShapeFromSizesInput(kOp, "input_sizes", sizes,
                                                           window_.format, out_backprop.dim_size(0),
                                                           filter.dim_size(2), &input_shape)));
    Conv2DDims d;
    OP_REQUIRES_OK(ctx,
                   ctx->NodeError(ComputeConv2DDims(window_, input_shape, filter.shape(), &d)));
    OP_REQUIRES_OK(ctx, ctx->NodeError(CheckOutBackprop(kOp, d, out_backprop.shape())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &out));
    if (out->NumElements() == 0) return;
    if (out_backprop.NumElements() == 0 || filter.NumElements() == 0) {
      OP_REQUIRES_OK(ctx, ctx->NodeError(ZeroOutput(ctx, out)));
      return;
    }
    CudnnScope cudnn;
    OP_REQUIRES_OK(ctx, CudnnFor(ctx, &cudnn));
    ConvSetup s;
    OP_REQUIRES_OK(ctx, ctx->NodeError(SetUpConv("bwd_data", d, dtype_, &s)));
    Tensor filter_tmp, grad_tmp;
    ConvBuffers b;
    OP_REQUIRES_OK(ctx, ctx->NodeError(FilterToCudnn(ctx, s, filter, &filter_tmp)));
    b.w = filter_tmp.raw_data();
    b.y = out_backprop.raw_data();
    if (s.explicit_pad()) {
      // The gradient of the padded input; its interior is the answer.
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(s.dtype, s.PaddedInputShape(), &grad_tmp));
      b.x = grad_tmp.raw_data();
    } else {
      b.x = out->raw_data();
    }
    OP_REQUIRES_OK(ctx, ctx->NodeError(RunPass<BackwardDataPass>(ctx, &cudnn, &s, b)));
    if (s.explicit_pad()) {
      int64_t padded[4], dims[4], offset[4];
      s.PaddedInputDims(padded);
      s.InputDims(dims);
      s.PadOffset(offset, -1);
      OP_REQUIRES_CUDA(ctx,
                       LaunchShift4D(ComputeStream(ctx), s.elem_bytes, grad_tmp.raw_data(),
                                     padded, out->raw_data(), dims, offset),
                       "Conv2DBackpropInput: cropping the padded input gradient");
    }
  }

 private:
  static constexpr const char* kOp = "Conv2DBackpropInput";
  Window2D window_;
  DataType dtype_ = DT_FLOAT;
};

class CudaConv2DBackpropFilterOp : public OpKernel {
 public:
  explicit CudaConv2DBackpropFilterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ParseConv2DAttrs(ctx->def(), &window_));
    dtype_ = ctx->num_inputs() > 0 ? ctx->input_types()[0] : DT_INVALID;
    OP_REQUIRES_OK(ctx, CheckType(kOp, dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    // filter_sizes is int32, so it lives in host memory on a GPU device.
    TensorShape filter_shape;
    OP_REQUIRES_OK(ctx, ctx->NodeError(ShapeFromSizesInput(kOp, "filter_sizes", sizes,
                                                           window_.format, -1, -1, &filter_shape)));
    Conv2DDims d;
    OP_REQUIRES_OK(ctx,
                   ctx->NodeError(ComputeConv2DDims(window_, input.shape(), filter_shape, &d)));
    OP_REQUIRES_OK(ctx, ctx->NodeError(CheckOutBackprop(kOp, d, out_backprop.shape())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &out));
    if (out->NumElements() == 0) return;
    if (input.NumElements() == 0 || out_backprop.NumElements() == 0) {
      OP_REQUIRES_OK(ctx, ctx->NodeError(ZeroOutput(ctx, out)));
      return;
    }
    CudnnScope cudnn;
    OP_REQUIRES_OK(ctx, CudnnFor(ctx, &cudnn));
    ConvSetup s;
    OP_REQUIRES_OK(ctx, ctx->NodeError(SetUpConv("bwd_filter", d, dtype_, &s)));
    Tensor input_tmp, grad_tmp;
    ConvBuffers b;
    OP_REQUIRES_OK(ctx, ctx->NodeError(PaddedInput(ctx, s, input, &input_tmp, &b.x)));
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(s.dtype, s.CudnnFilterShape(), &grad_tmp));
    b.w = grad_tmp.raw_data();
    b.y = out_backprop.raw_data();
    OP_REQUIRES_OK(ctx, ctx->NodeError(RunPass<BackwardFilterPass>(ctx, &cudnn, &s, b)));
    const TensorShape cudnn_shape = s.CudnnFilterShape();
    const int64_t dims[4] = {cudnn_shape.dim_size(0), cudnn_shape.dim_size(1),
                             cudnn_shape.dim_size(2), cudnn_shape.dim_size(3)};
    OP_REQUIRES_CUDA(ctx,
                     LaunchPermute4D(ComputeStream(ctx), s.elem_bytes, grad_tmp.raw_data(), dims,
                                     s.CudnnToHwio(), out->raw_data()),
                     "Conv2DBackpropFilter: filter gradient transpose to HWIO");
  }

 private:
  static constexpr const char* kOp = "Conv2DBackpropFilter";
  Window2D window_;
  DataType dtype_ = DT_FLOAT;
};

}  // namespace

REGISTER_CUDA_KERNEL("Conv2D", CudaConv2DOp);
REGISTER_CUDA_KERNEL("Conv2DBackpropInput", CudaConv2DBackpropInputOp);
REGISTER_CUDA_KERNEL("Conv2DBackpropFilter", CudaConv2DBackpropFilterOp);

}  // namespace af::gpu
