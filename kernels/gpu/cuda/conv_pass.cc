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
#include "kernels/gpu/cuda/conv_pass.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

namespace af::gpu {
namespace {

// Largest workspace a convolution may take (the algorithm search skips
// algorithms that need more).
constexpr size_t kMaxWorkspaceBytes = size_t{1} << 30;

bool FitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

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

bool SupportedType(DataType dtype) {
  const DataType t = BaseType(dtype);
  return t == DT_FLOAT || t == DT_HALF;
}

}  // namespace

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

Status RunConvPass(ConvPass pass, OpKernelContext* ctx, CudnnScope* cudnn, ConvSetup* s,
                   const ConvBuffers& b) {
  switch (pass) {
    case ConvPass::kForward: return RunPass<ForwardPass>(ctx, cudnn, s, b);
    case ConvPass::kBackwardData: return RunPass<BackwardDataPass>(ctx, cudnn, s, b);
    case ConvPass::kBackwardFilter: return RunPass<BackwardFilterPass>(ctx, cudnn, s, b);
  }
  return errors::Internal("unknown convolution pass");
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

Status CheckType(const char* op, DataType dtype) {
  if (SupportedType(dtype)) return Status::OK();
  return errors::Unimplemented(op, " on a CUDA GPU supports float and half, not ",
                               DataTypeString(dtype));
}

}  // namespace af::gpu
