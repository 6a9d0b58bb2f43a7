// GEMM and Conv2D on a CUDA GPU through Actorflow's GPU kernels (created by
// the kernel registry, run with Compute on device tensors, as the executor
// runs them) beside the libraries they wrap called directly on the same
// buffers: cublasGemmEx for MatMul, cudnnConvolution{Forward,BackwardData,
// BackwardFilter} for the convolutions. One JSON line per figure; see
// bench/gpu/README.md.
//
//   bench_gpu_kernels [--quick]
//
// Timing: CUDA events on the device's compute stream around a run of calls
// (enough to last about a millisecond), 5 warm-up runs, the median of 20
// timed runs, per call. Both sides of a figure run the same number of calls
// per run. Inputs are uniform random in [-1, 1).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/gpu/gpu_device_context.h"
#include "core/kernel_registry.h"
#include "core/logging.h"
#include "core/node_def_util.h"
#include "core/op_kernel.h"
#include "core/op_registry.h"
#include "core/tensor.h"
#include "kernels/gpu/cuda/cublas_handle.h"
#include "kernels/gpu/cuda/cudnn_handle.h"
#include "runtime/gpu_device.h"

namespace af {
namespace {

constexpr const char* kBench = "gpu_kernels";
constexpr int kWarmup = 5;
constexpr int kRuns = 20;

[[noreturn]] void Fail(const std::string& what, const Status& s) {
  AF_LOG(ERROR) << what << ": " << s.ToString();
  std::exit(1);
}

void Check(const Status& s, const std::string& what) {
  if (!s.ok()) Fail(what, s);
}

void CheckCuda(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    Fail(what, errors::Internal(cudaGetErrorName(err), ": ", cudaGetErrorString(err)));
}

void CheckCublas(cublasStatus_t s, const char* what) { Check(gpu::CublasStatus(s, what), what); }
void CheckCudnn(cudnnStatus_t s, const char* what) { Check(gpu::CudnnStatus(s, what), what); }

// A device tensor of `dtype` (float or bfloat16) filled with uniform random
// values in [-1, 1).
Tensor RandomDeviceTensor(GpuDevice* device, DataType dtype, const TensorShape& shape,
                          uint32_t seed) {
  Tensor host(dtype, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    const float v = dist(rng);
    if (dtype == DT_BFLOAT16)
      host.data<bfloat16>()[i] = FloatToBFloat16(v);
    else
      host.data<float>()[i] = v;
  }
  Tensor t;
  Check(Tensor::Allocate(device->GetAllocatorFor(dtype), dtype, shape, &t), "device allocation");
  CheckCuda(cudaMemcpy(t.raw_data(), host.raw_data(), host.TotalBytes(), cudaMemcpyHostToDevice),
            "cudaMemcpy to device");
  return t;
}

Tensor EmptyDeviceTensor(GpuDevice* device, DataType dtype, const TensorShape& shape) {
  Tensor t;
  Check(Tensor::Allocate(device->GetAllocatorFor(dtype), dtype, shape, &t), "device allocation");
  return t;
}

Tensor Int32Host(const std::vector<int64_t>& v) {
  std::vector<int32_t> values(v.begin(), v.end());
  return Tensor::FromVector<int32_t>(values);
}

// Host copy of a device tensor as floats.
std::vector<float> ToHostFloats(const Tensor& t) {
  std::vector<float> out(t.NumElements());
  if (BaseType(t.dtype()) == DT_BFLOAT16) {
    std::vector<bfloat16> raw(t.NumElements());
    CheckCuda(cudaMemcpy(raw.data(), t.raw_data(), t.TotalBytes(), cudaMemcpyDeviceToHost),
              "cudaMemcpy to host");
    for (size_t i = 0; i < raw.size(); ++i) out[i] = BFloat16ToFloat(raw[i]);
  } else {
    CheckCuda(cudaMemcpy(out.data(), t.raw_data(), t.TotalBytes(), cudaMemcpyDeviceToHost),
              "cudaMemcpy to host");
  }
  return out;
}

double MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    worst = std::max(worst, static_cast<double>(std::fabs(a[i] - b[i])));
  return worst;
}

// One GPU kernel built through the registry, with its inputs bound.
class KernelCall {
 public:
  KernelCall(GpuDevice* device, const std::string& op, DataType dtype,
             const std::function<void(tensorflow::NodeDef*)>& attrs, std::vector<Tensor> inputs)
      : device_(device), inputs_(inputs.size()) {
    tensorflow::NodeDef node;
    node.set_op(op);
    node.set_name("bench_" + op);
    for (size_t i = 0; i < inputs.size(); ++i) node.add_input("in_" + std::to_string(i));
    SetAttr(&node, "T", dtype);
    attrs(&node);
    const tensorflow::OpDef* op_def = nullptr;
    Check(OpRegistry::Global()->LookUpOpDef(op, &op_def), "op " + op);
    AddDefaultsToNodeDef(*op_def, &node);
    Check(ValidateNodeDef(node, *op_def), "node " + op);
    Check(KernelRegistry::Global()->CreateKernel(DEVICE_GPU, device, node, &kernel_),
          "GPU kernel for " + op);
    for (size_t i = 0; i < inputs.size(); ++i) {
      inputs_[i].tensor = std::move(inputs[i]);
      inputs_[i].has_value = true;
    }
    outputs_.resize(kernel_->num_outputs());
  }

  // Enqueues one run; the previous output is released first.
  void Run() {
    for (TensorValue& v : outputs_) v.Clear();
    OpKernelContext::Params params;
    params.device = device_;
    params.op_kernel = kernel_.get();
    params.inputs = inputs_.data();
    params.outputs = outputs_.data();
    OpKernelContext ctx(&params);
    kernel_->Compute(&ctx);
    Check(ctx.status(), "Compute of " + kernel_->type_string());
  }

  const Tensor& output() const { return outputs_[0].get(); }

 private:
  GpuDevice* device_;
  std::unique_ptr<OpKernel> kernel_;
  std::vector<TensorValue> inputs_;
  std::vector<TensorValue> outputs_;
};

// Median seconds per call of `fn` on `stream`, and the calls per timed run
// (taken from `calls` when positive, else sized to about 1 ms).
double TimePerCall(cudaStream_t stream, const std::function<void()>& fn, int* calls) {
  cudaEvent_t start, stop;
  CheckCuda(cudaEventCreate(&start), "cudaEventCreate");
  CheckCuda(cudaEventCreate(&stop), "cudaEventCreate");
  auto timed = [&](int n) {
    CheckCuda(cudaEventRecord(start, stream), "cudaEventRecord");
    for (int i = 0; i < n; ++i) fn();
    CheckCuda(cudaEventRecord(stop, stream), "cudaEventRecord");
    CheckCuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    CheckCuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return ms / 1e3 / n;
  };
  if (*calls <= 0) {
    const double one = timed(1);  // after the caller's first (autotuning) call
    *calls = static_cast<int>(std::clamp(1e-3 / std::max(one, 1e-7), 1.0, 200.0));
  }
  for (int i = 0; i < kWarmup; ++i) timed(*calls);
  std::vector<double> runs;
  for (int i = 0; i < kRuns; ++i) runs.push_back(timed(*calls));
  std::sort(runs.begin(), runs.end());
  CheckCuda(cudaEventDestroy(start), "cudaEventDestroy");
  CheckCuda(cudaEventDestroy(stop), "cudaEventDestroy");
  return runs[runs.size() / 2];
}

void PrintFigure(const std::string& case_name, double ours_s, double peer_s, double flops,
                 const std::string& peer, int calls, double max_abs_diff,
                 const std::string& extra = "") {
  const double ours = flops / ours_s / 1e12, theirs = flops / peer_s / 1e12;
  std::printf(
      "{\"bench\":\"%s\",\"case\":\"%s\",\"metric\":\"tflops\",\"value\":%.4g,"
      "\"unit\":\"TFLOP/s\",\"peer\":\"%s\",\"peer_value\":%.4g,\"ratio\":%.4g,"
      "\"ms\":%.4g,\"peer_ms\":%.4g,\"calls_per_run\":%d,\"max_abs_diff\":%.3g%s%s}\n",
      kBench, case_name.c_str(), ours, peer.c_str(), theirs, ours / theirs, ours_s * 1e3,
      peer_s * 1e3, calls, max_abs_diff, extra.empty() ? "" : ",", extra.c_str());
  std::fflush(stdout);
}

// ---- (a) GEMM ----------------------------------------------------------------

void BenchGemm(GpuDevice* device, cudaStream_t stream, cublasHandle_t cublas, int64_t size,
               DataType dtype) {
  const int64_t m = size, n = size, k = size;
  Tensor a = RandomDeviceTensor(device, dtype, TensorShape{m, k}, 1);
  Tensor b = RandomDeviceTensor(device, dtype, TensorShape{k, n}, 2);
  Tensor c = EmptyDeviceTensor(device, dtype, TensorShape{m, n});
  KernelCall kernel(device, "MatMul", dtype, [](tensorflow::NodeDef*) {}, {a, b});
  kernel.Run();

  const bool bf16 = dtype == DT_BFLOAT16;
  const cudaDataType_t type = bf16 ? CUDA_R_16BF : CUDA_R_32F;
  const cublasComputeType_t compute =
      !bf16 && gpu::AllowTf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A B as column-major C^T = B^T A^T.
  auto direct = [&] {
    CheckCublas(cublasGemmEx(cublas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n),
                             static_cast<int>(m), static_cast<int>(k), &one, b.raw_data(), type,
                             static_cast<int>(n), a.raw_data(), type, static_cast<int>(k), &zero,
                             c.raw_data(), type, static_cast<int>(n), compute,
                             CUBLAS_GEMM_DEFAULT),
                "cublasGemmEx");
  };
  direct();
  CheckCuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const double diff = MaxAbsDiff(ToHostFloats(kernel.output()), ToHostFloats(c));

  int calls = 0;
  const double ours = TimePerCall(stream, [&] { kernel.Run(); }, &calls);
  const double theirs = TimePerCall(stream, direct, &calls);
  const std::string name =
      "matmul_" + std::to_string(size) + (bf16 ? "_bf16" : (gpu::AllowTf32() ? "_tf32" : "_fp32"));
  PrintFigure(name, ours, theirs, 2.0 * m * n * k, "cublas_direct", calls, diff);
}

// ---- (b) Conv2D --------------------------------------------------------------

struct ConvShape {
  const char* name;
  int64_t batch, h, w, c, r, s, k;  // 5x5 SAME stride 1: output h x w
};

// cuDNN's descriptors for an NHWC convolution with a KRSC filter, and the
// algorithm chosen the way the kernels choose theirs.
struct DirectConv {
  gpu::CudnnTensorDescriptor x, y;
  gpu::CudnnFilterDescriptor w;
  gpu::CudnnConvolutionDescriptor conv;
};

void SetUpDirect(const ConvShape& cs, DirectConv* d) {
  Check(d->x.Init("x"), "descriptor");
  Check(d->y.Init("y"), "descriptor");
  Check(d->w.Init("w"), "descriptor");
  Check(d->conv.Init("conv"), "descriptor");
  const int pad_h = static_cast<int>((cs.r - 1) / 2), pad_w = static_cast<int>((cs.s - 1) / 2);
  CheckCudnn(cudnnSetTensor4dDescriptor(d->x.get(), CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT,
                                        static_cast<int>(cs.batch), static_cast<int>(cs.c),
                                        static_cast<int>(cs.h), static_cast<int>(cs.w)),
             "x descriptor");
  CheckCudnn(cudnnSetTensor4dDescriptor(d->y.get(), CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT,
                                        static_cast<int>(cs.batch), static_cast<int>(cs.k),
                                        static_cast<int>(cs.h), static_cast<int>(cs.w)),
             "y descriptor");
  CheckCudnn(cudnnSetFilter4dDescriptor(d->w.get(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC,
                                        static_cast<int>(cs.k), static_cast<int>(cs.c),
                                        static_cast<int>(cs.r), static_cast<int>(cs.s)),
             "w descriptor");
  CheckCudnn(cudnnSetConvolution2dDescriptor(d->conv.get(), pad_h, pad_w, 1, 1, 1, 1,
                                             CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
             "conv descriptor");
  CheckCudnn(cudnnSetConvolutionMathType(d->conv.get(), gpu::AllowTf32() ? CUDNN_TENSOR_OP_MATH
                                                                         : CUDNN_FMA_MATH),
             "math type");
}

// Picks an algorithm as conv_ops.cc does: every candidate timed once
// (cudnnFind*Ex with a workspace for the largest that fits 1 GiB) or, with
// ACTORFLOW_CUDNN_AUTOTUNE=0, cuDNN's heuristics; the first that succeeded,
// fits, and keeps FP32 math unless TF32 is allowed.
template <typename Perf>
void PickAlgorithm(cudnnConvolutionDescriptor_t conv, int count,
                   const std::function<cudnnStatus_t(int, size_t*)>& workspace,
                   const std::function<cudnnStatus_t(int*, Perf*, void*, size_t)>& find,
                   const std::function<cudnnStatus_t(int*, Perf*)>& heuristic, GpuDevice* device,
                   int* algo, size_t* ws_bytes, cudnnMathType_t* math_out) {
  const size_t kLimit = size_t{1} << 30;
  std::vector<Perf> perf(count);
  int returned = 0;
  size_t limit = kLimit;
  if (gpu::CudnnAutotune()) {
    size_t largest = 0;
    for (int a = 0; a < count; ++a) {
      size_t bytes = 0;
      if (workspace(a, &bytes) == CUDNN_STATUS_SUCCESS && bytes <= kLimit)
        largest = std::max(largest, bytes);
    }
    Tensor ws;
    void* ws_ptr = nullptr;
    if (largest > 0) {
      ws = EmptyDeviceTensor(device, DT_UINT8, TensorShape{static_cast<int64_t>(largest)});
      ws_ptr = ws.raw_data();
    }
    limit = largest;
    CheckCudnn(find(&returned, perf.data(), ws_ptr, largest), "cudnnFind*AlgorithmEx");
  } else {
    CheckCudnn(heuristic(&returned, perf.data()), "cudnnGet*Algorithm_v7");
  }
  const bool strict = !gpu::AllowTf32();
  for (int i = 0; i < returned; ++i) {
    const Perf& p = perf[i];
    if (p.status != CUDNN_STATUS_SUCCESS) continue;
    if (p.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) continue;
    if (strict && p.mathType == CUDNN_TENSOR_OP_MATH) continue;
    const cudnnMathType_t math = strict ? CUDNN_FMA_MATH : p.mathType;
    if (cudnnSetConvolutionMathType(conv, math) != CUDNN_STATUS_SUCCESS) continue;
    size_t bytes = 0;
    if (workspace(static_cast<int>(p.algo), &bytes) != CUDNN_STATUS_SUCCESS || bytes > limit)
      continue;
    *algo = static_cast<int>(p.algo);
    *ws_bytes = std::max(bytes, p.memory);
    *math_out = math;
    return;
  }
  Fail("cuDNN algorithm", errors::Unimplemented("no usable algorithm"));
}

// A filter's values moved between the kernels' HWIO layout and cuDNN's
// KRSC.
std::vector<float> HwioToKrsc(const ConvShape& cs, const std::vector<float>& hwio) {
  std::vector<float> krsc(hwio.size());
  for (int64_t r = 0; r < cs.r; ++r)
    for (int64_t s = 0; s < cs.s; ++s)
      for (int64_t c = 0; c < cs.c; ++c)
        for (int64_t k = 0; k < cs.k; ++k)
          krsc[((k * cs.r + r) * cs.s + s) * cs.c + c] =
              hwio[((r * cs.s + s) * cs.c + c) * cs.k + k];
  return krsc;
}

std::vector<float> KrscToHwio(const ConvShape& cs, const std::vector<float>& krsc) {
  std::vector<float> hwio(krsc.size());
  for (int64_t r = 0; r < cs.r; ++r)
    for (int64_t s = 0; s < cs.s; ++s)
      for (int64_t c = 0; c < cs.c; ++c)
        for (int64_t k = 0; k < cs.k; ++k)
          hwio[((r * cs.s + s) * cs.c + c) * cs.k + k] =
              krsc[((k * cs.r + r) * cs.s + s) * cs.c + c];
  return hwio;
}

// One figure of BenchConv: `kernel` against the cuDNN call `direct_call(algo,
// workspace, workspace bytes)` (named `direct_name`) with the algorithm that
// PickAlgorithm chooses from `workspace`, `find` and `heuristic`. The check
// compares the kernel's output with `direct_result()` (the direct call's
// output in the kernel's layout).
template <typename Perf>
void BenchConvPass(GpuDevice* device, cudaStream_t stream, const DirectConv& d, int algo_count,
                   KernelCall& kernel, const std::function<cudnnStatus_t(int, size_t*)>& workspace,
                   const std::function<cudnnStatus_t(int*, Perf*, void*, size_t)>& find,
                   const std::function<cudnnStatus_t(int*, Perf*)>& heuristic,
                   const std::function<cudnnStatus_t(int, void*, size_t)>& direct_call,
                   const char* direct_name,
                   const std::function<std::vector<float>()>& direct_result,
                   const std::string& case_name, double flops) {
  kernel.Run();
  int algo = 0;
  size_t ws_bytes = 0;
  cudnnMathType_t math = CUDNN_FMA_MATH;
  // The math type SetUpDirect sets (the previous pass changed it).
  CheckCudnn(cudnnSetConvolutionMathType(d.conv.get(),
                                         gpu::AllowTf32() ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH),
             "math type");
  PickAlgorithm<Perf>(d.conv.get(), algo_count, workspace, find, heuristic, device, &algo,
                      &ws_bytes, &math);
  CheckCudnn(cudnnSetConvolutionMathType(d.conv.get(), math), "math type");
  Tensor ws = ws_bytes > 0 ? EmptyDeviceTensor(device, DT_UINT8,
                                               TensorShape{static_cast<int64_t>(ws_bytes)})
                           : Tensor();
  auto direct = [&] {
    CheckCudnn(direct_call(algo, ws_bytes ? ws.raw_data() : nullptr, ws_bytes), direct_name);
  };
  direct();
  CheckCuda(cudaStreamSynchronize(stream), "sync");
  const double diff = MaxAbsDiff(ToHostFloats(kernel.output()), direct_result());
  int calls = 0;
  const double ours = TimePerCall(stream, [&] { kernel.Run(); }, &calls);
  const double theirs = TimePerCall(stream, direct, &calls);
  PrintFigure(case_name, ours, theirs, flops, "cudnn_direct", calls, diff,
              "\"algo\":" + std::to_string(algo));
}

void BenchConv(GpuDevice* device, cudaStream_t stream, cudnnHandle_t cudnn, const ConvShape& cs) {
  const TensorShape x_shape{cs.batch, cs.h, cs.w, cs.c};
  const TensorShape y_shape{cs.batch, cs.h, cs.w, cs.k};
  const TensorShape hwio{cs.r, cs.s, cs.c, cs.k};
  const TensorShape krsc{cs.k, cs.r, cs.s, cs.c};
  Tensor x = RandomDeviceTensor(device, DT_FLOAT, x_shape, 11);
  Tensor w_hwio = RandomDeviceTensor(device, DT_FLOAT, hwio, 12);
  Tensor dy = RandomDeviceTensor(device, DT_FLOAT, y_shape, 13);
  // The direct calls' filter: the same values in cuDNN's layout.
  Tensor w_krsc = EmptyDeviceTensor(device, DT_FLOAT, krsc);
  {
    const std::vector<float> t = HwioToKrsc(cs, ToHostFloats(w_hwio));
    CheckCuda(cudaMemcpy(w_krsc.raw_data(), t.data(), t.size() * sizeof(float),
                         cudaMemcpyHostToDevice),
              "cudaMemcpy");
  }
  Tensor y_direct = EmptyDeviceTensor(device, DT_FLOAT, y_shape);
  Tensor dx_direct = EmptyDeviceTensor(device, DT_FLOAT, x_shape);
  Tensor dw_direct = EmptyDeviceTensor(device, DT_FLOAT, krsc);

  auto attrs = [](tensorflow::NodeDef* n) {
    SetAttr(n, "strides", std::vector<int64_t>{1, 1, 1, 1});
    SetAttr(n, "padding", std::string("SAME"));
  };
  const double flops = 2.0 * cs.batch * cs.h * cs.w * cs.k * cs.r * cs.s * cs.c;
  DirectConv d;
  SetUpDirect(cs, &d);
  const float one = 1.0f, zero = 0.0f;
  const std::string prefix = std::string("conv_") + cs.name + "_b" + std::to_string(cs.batch);

  KernelCall fwd(device, "Conv2D", DT_FLOAT, attrs, {x, w_hwio});
  KernelCall bwd_in(device, "Conv2DBackpropInput", DT_FLOAT, attrs,
                    {Int32Host({cs.batch, cs.h, cs.w, cs.c}), w_hwio, dy});
  KernelCall bwd_w(device, "Conv2DBackpropFilter", DT_FLOAT, attrs,
                   {x, Int32Host({cs.r, cs.s, cs.c, cs.k}), dy});

  // Forward.
  BenchConvPass<cudnnConvolutionFwdAlgoPerf_t>(
      device, stream, d, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, fwd,
      [&](int a, size_t* bytes) {
        return cudnnGetConvolutionForwardWorkspaceSize(cudnn, d.x.get(), d.w.get(), d.conv.get(),
                                                       d.y.get(),
                                                       static_cast<cudnnConvolutionFwdAlgo_t>(a),
                                                       bytes);
      },
      [&](int* n, cudnnConvolutionFwdAlgoPerf_t* p, void* ws, size_t bytes) {
        return cudnnFindConvolutionForwardAlgorithmEx(
            cudnn, d.x.get(), x.raw_data(), d.w.get(), w_krsc.raw_data(), d.conv.get(), d.y.get(),
            y_direct.raw_data(), CUDNN_CONVOLUTION_FWD_ALGO_COUNT, n, p, ws, bytes);
      },
      [&](int* n, cudnnConvolutionFwdAlgoPerf_t* p) {
        return cudnnGetConvolutionForwardAlgorithm_v7(cudnn, d.x.get(), d.w.get(), d.conv.get(),
                                                      d.y.get(), CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                      n, p);
      },
      [&](int algo, void* ws, size_t ws_bytes) {
        return cudnnConvolutionForward(cudnn, &one, d.x.get(), x.raw_data(), d.w.get(),
                                       w_krsc.raw_data(), d.conv.get(),
                                       static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws, ws_bytes,
                                       &zero, d.y.get(), y_direct.raw_data());
      },
      "cudnnConvolutionForward", [&] { return ToHostFloats(y_direct); }, prefix + "_forward",
      flops);
  // Gradient of the input.
  BenchConvPass<cudnnConvolutionBwdDataAlgoPerf_t>(
      device, stream, d, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, bwd_in,
      [&](int a, size_t* bytes) {
        return cudnnGetConvolutionBackwardDataWorkspaceSize(
            cudnn, d.w.get(), d.y.get(), d.conv.get(), d.x.get(),
            static_cast<cudnnConvolutionBwdDataAlgo_t>(a), bytes);
      },
      [&](int* n, cudnnConvolutionBwdDataAlgoPerf_t* p, void* ws, size_t bytes) {
        return cudnnFindConvolutionBackwardDataAlgorithmEx(
            cudnn, d.w.get(), w_krsc.raw_data(), d.y.get(), dy.raw_data(), d.conv.get(), d.x.get(),
            dx_direct.raw_data(), CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, n, p, ws, bytes);
      },
      [&](int* n, cudnnConvolutionBwdDataAlgoPerf_t* p) {
        return cudnnGetConvolutionBackwardDataAlgorithm_v7(
            cudnn, d.w.get(), d.y.get(), d.conv.get(), d.x.get(),
            CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, n, p);
      },
      [&](int algo, void* ws, size_t ws_bytes) {
        return cudnnConvolutionBackwardData(cudnn, &one, d.w.get(), w_krsc.raw_data(), d.y.get(),
                                            dy.raw_data(), d.conv.get(),
                                            static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), ws,
                                            ws_bytes, &zero, d.x.get(), dx_direct.raw_data());
      },
      "cudnnConvolutionBackwardData", [&] { return ToHostFloats(dx_direct); },
      prefix + "_backprop_input", flops);
  // Gradient of the filter (the kernel's output is HWIO, cuDNN's KRSC: the
  // check compares them through the layout change).
  BenchConvPass<cudnnConvolutionBwdFilterAlgoPerf_t>(
      device, stream, d, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, bwd_w,
      [&](int a, size_t* bytes) {
        return cudnnGetConvolutionBackwardFilterWorkspaceSize(
            cudnn, d.x.get(), d.y.get(), d.conv.get(), d.w.get(),
            static_cast<cudnnConvolutionBwdFilterAlgo_t>(a), bytes);
      },
      [&](int* n, cudnnConvolutionBwdFilterAlgoPerf_t* p, void* ws, size_t bytes) {
        return cudnnFindConvolutionBackwardFilterAlgorithmEx(
            cudnn, d.x.get(), x.raw_data(), d.y.get(), dy.raw_data(), d.conv.get(), d.w.get(),
            dw_direct.raw_data(), CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, n, p, ws, bytes);
      },
      [&](int* n, cudnnConvolutionBwdFilterAlgoPerf_t* p) {
        return cudnnGetConvolutionBackwardFilterAlgorithm_v7(
            cudnn, d.x.get(), d.y.get(), d.conv.get(), d.w.get(),
            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, n, p);
      },
      [&](int algo, void* ws, size_t ws_bytes) {
        return cudnnConvolutionBackwardFilter(cudnn, &one, d.x.get(), x.raw_data(), d.y.get(),
                                              dy.raw_data(), d.conv.get(),
                                              static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo),
                                              ws, ws_bytes, &zero, d.w.get(),
                                              dw_direct.raw_data());
      },
      "cudnnConvolutionBackwardFilter", [&] { return KrscToHwio(cs, ToHostFloats(dw_direct)); },
      prefix + "_backprop_filter", flops);
}

int Main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;

  std::vector<std::unique_ptr<GpuDevice>> devices;
  Status s = CreateGpuDevices(&devices);
  std::string why;
  if (!s.ok())
    why = s.ToString();
  else if (devices.empty())
    why = "no GPU";
  else if (devices[0]->gpu_context()->emulated())
    why = "GPU 0 is emulated";
  if (!why.empty()) {
    for (char& ch : why)
      if (ch == '"' || ch == '\\' || ch == '\n') ch = ' ';
    std::printf("{\"bench\":\"%s\",\"case\":\"all\",\"skipped\":\"%s\"}\n", kBench, why.c_str());
    return 0;
  }
  GpuDevice* device = devices[0].get();
  gpu::GpuDeviceContext* g = device->gpu_context();
  CheckCuda(cudaSetDevice(g->ordinal()), "cudaSetDevice");
  cudaStream_t stream = static_cast<cudaStream_t>(g->compute_stream()->native());
  std::fprintf(stderr, "bench_gpu_kernels: %s, TF32 %s, cuDNN autotune %s\n",
               g->properties().name.c_str(), gpu::AllowTf32() ? "on" : "off",
               gpu::CudnnAutotune() ? "on" : "off");

  // The direct calls' own handles, on the same stream as the kernels'.
  cublasHandle_t cublas = nullptr;
  CheckCublas(cublasCreate(&cublas), "cublasCreate");
  CheckCublas(cublasSetStream(cublas, stream), "cublasSetStream");
  cudnnHandle_t cudnn = nullptr;
  CheckCudnn(cudnnCreate(&cudnn), "cudnnCreate");
  CheckCudnn(cudnnSetStream(cudnn, stream), "cudnnSetStream");

  const int64_t gemm = quick ? 1024 : 4096;
  BenchGemm(device, stream, cublas, gemm, DT_FLOAT);
  BenchGemm(device, stream, cublas, gemm, DT_BFLOAT16);

  std::vector<int64_t> batches = {64, 512};
  if (quick) batches = {64};
  for (int64_t b : batches) {
    BenchConv(device, stream, cudnn, {"28x28x1_32", b, 28, 28, 1, 5, 5, 32});
    BenchConv(device, stream, cudnn, {"14x14x32_64", b, 14, 14, 32, 5, 5, 64});
  }
  CheckCuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  cudnnDestroy(cudnn);
  cublasDestroy(cublas);
  return 0;
}

}  // namespace
}  // namespace af

int main(int argc, char** argv) { return af::Main(argc, argv); }
