// Helpers shared by the GPU kernel tests (tests/gpu/*_test.cc): shapes,
// half / bfloat16 test data, element-wise comparison, copies to and from
// the test GPU, and runs of a kernel on the GPU alone (half and bfloat16
// have no CPU kernels, so those cases compare with the CPU kernel on the
// same values in float). Header-only.
#pragma once

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/device_base.h"
#include "core/gpu/gpu_device_context.h"
#include "core/kernel_registry.h"
#include "core/node_def_util.h"
#include "core/op_kernel.h"
#include "core/op_registry.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/types.h"
#include "tests/gpu/gpu_kernel_runner.h"
#include "tests/kernels/op_test_util.h"
#include "tests/test_util.h"

namespace af::test {

using Ints = std::vector<int64_t>;

inline TensorShape Shape(const Ints& dims) {
  TensorShape s;
  for (int64_t d : dims) s.AddDim(d);
  return s;
}

inline Tensor Int32Vector(const Ints& v) {
  std::vector<int32_t> values(v.begin(), v.end());
  return Tensor::FromVector<int32_t>(values);
}

inline Tensor Int64Vector(const Ints& v) { return Tensor::FromVector<int64_t>(v); }

using testing::Contains;

// ---- narrow float types -----------------------------------------------

// `f` (float) rounded to `dtype` (half or bfloat16).
inline Tensor Narrow(const Tensor& f, DataType dtype) {
  Tensor t(dtype, f.shape());
  const float* src = f.data<float>();
  for (int64_t i = 0; i < f.NumElements(); ++i) {
    if (dtype == DT_HALF)
      t.data<half>()[i] = FloatToHalf(src[i]);
    else
      t.data<bfloat16>()[i] = FloatToBFloat16(src[i]);
  }
  return t;
}

// A float copy of a float, half or bfloat16 tensor; other dtypes as they are.
inline Tensor Widen(const Tensor& t) {
  const DataType dt = BaseType(t.dtype());
  if (dt != DT_HALF && dt != DT_BFLOAT16) return t;
  Tensor f(DT_FLOAT, t.shape());
  for (int64_t i = 0; i < t.NumElements(); ++i)
    f.data<float>()[i] =
        dt == DT_HALF ? HalfToFloat(t.data<half>()[i]) : BFloat16ToFloat(t.data<bfloat16>()[i]);
  return f;
}

// Random values in [lo, hi) already representable in `dtype`.
inline Tensor RandomNarrow(DataType dtype, const TensorShape& shape, uint32_t seed,
                           double lo = -1.0, double hi = 1.0) {
  return Narrow(RandomTensor<float>(shape, seed, lo, hi), dtype);
}

// ---- comparison -------------------------------------------------------

// Element i of any numeric tensor as a double.
inline double Elem(const Tensor& t, int64_t i) {
  switch (BaseType(t.dtype())) {
    case DT_HALF: return HalfToFloat(t.data<half>()[i]);
    case DT_BFLOAT16: return BFloat16ToFloat(t.data<bfloat16>()[i]);
    case DT_UINT8: return t.data<uint8_t>()[i];
    case DT_INT8: return t.data<int8_t>()[i];
    case DT_INT16: return t.data<int16_t>()[i];
    default: return ValueAsDouble(t, i);
  }
}

// Checks `got` against `want` element by element: same dtype and shape,
// |got - want| <= atol + rtol * |want|, NaN matching NaN.
inline void ExpectClose(const Tensor& got, const Tensor& want, double rtol, double atol,
                        const std::string& what) {
  BOOST_REQUIRE_MESSAGE(BaseType(got.dtype()) == BaseType(want.dtype()),
                        what << ": dtype " << DataTypeString(got.dtype()) << " vs "
                             << DataTypeString(want.dtype()));
  BOOST_REQUIRE_MESSAGE(got.shape() == want.shape(), what << ": shape " << got.shape().DebugString()
                                                          << " vs " << want.shape().DebugString());
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    const double g = Elem(got, i), w = Elem(want, i);
    if (g == w || (std::isnan(g) && std::isnan(w))) continue;  // infinities too
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w))) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  BOOST_CHECK_MESSAGE(bad == 0, what << ": " << bad << " of " << want.NumElements()
                                     << " elements differ; first at " << first << " (gpu "
                                     << (first >= 0 ? Elem(got, first) : 0) << ", cpu "
                                     << (first >= 0 ? Elem(want, first) : 0) << ")");
}

// The GPU run fails with INVALID_ARGUMENT containing `what` and, where
// `op` is not empty, naming the node ("(op '<op>')").
inline void ExpectGpuInvalidArgument(GpuKernelRunner& r, const std::string& op,
                                     const std::string& what) {
  auto out = r.RunGpu();
  BOOST_REQUIRE_MESSAGE(!out.ok(), "expected an error containing '" << what << "'");
  BOOST_CHECK_MESSAGE(out.status().code() == Code::INVALID_ARGUMENT, out.status().ToString());
  if (!op.empty()) {
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "(op '" + op + "')"),
                        "no node in: " << out.status().message());
  }
  BOOST_CHECK_MESSAGE(Contains(out.status().message(), what), out.status().message());
}
inline void ExpectGpuInvalidArgument(GpuKernelRunner& r, const std::string& what) {
  ExpectGpuInvalidArgument(r, std::string(), what);
}

// ---- running on the GPU alone -------------------------------------------

// Sets attrs on a bare NodeDef with the runners' Attr() spelling.
struct NodeAttrs {
  tensorflow::NodeDef* node;
  template <typename T>
  NodeAttrs& Attr(const std::string& name, const T& value) {
    SetAttr(node, name, value);
    return *this;
  }
};

// Copies between host tensors and the test GPU's memory (integer tensors
// stay in host memory on a GPU and pass through, as do uninitialized ones).
inline StatusOr<Tensor> HostToGpu(DeviceBase* device, const Tensor& host) {
  if (!host.IsInitialized() || gpu::LivesInHostMemoryOnGpu(host.dtype())) return host;
  Tensor t;
  AF_RETURN_IF_ERROR(
      Tensor::Allocate(device->GetAllocatorFor(host.dtype()), host.dtype(), host.shape(), &t));
  if (host.TotalBytes() == 0) return t;
  gpu::Stream* s = device->gpu_context()->host_to_device_stream();
  AF_RETURN_IF_ERROR(s->CopyHostToDevice(t.raw_data(), host.raw_data(), host.TotalBytes()));
  AF_RETURN_IF_ERROR(s->Synchronize());
  return t;
}

inline StatusOr<Tensor> GpuToHost(DeviceBase* device, const Tensor& t) {
  if (!t.IsInitialized() || t.buffer()->allocator()->IsHostAccessible()) return t;
  Tensor host(t.dtype(), t.shape());
  if (t.TotalBytes() == 0) return host;
  gpu::Stream* s = device->gpu_context()->device_to_host_stream();
  AF_RETURN_IF_ERROR(s->CopyDeviceToHost(host.raw_data(), t.raw_data(), t.TotalBytes()));
  AF_RETURN_IF_ERROR(s->Synchronize());
  return host;
}

// Runs `kernel` on the test GPU `device` with `in` (device tensors, or
// refs to them), waits for the compute stream, drops the inputs and returns
// the outputs copied to the host.
inline StatusOr<std::vector<Tensor>> ComputeOnGpu(DeviceBase* device, OpKernel* kernel,
                                                  std::vector<TensorValue> in) {
  std::vector<TensorValue> out(kernel->num_outputs());
  OpKernelContext::Params params;
  params.device = device;
  params.op_kernel = kernel;
  params.inputs = in.data();
  params.outputs = out.data();
  OpKernelContext ctx(&params);
  if (AsyncOpKernel* async = kernel->AsAsync()) {
    std::promise<void> finished;
    async->ComputeAsync(&ctx, [&finished] { finished.set_value(); });
    finished.get_future().wait();
  } else {
    kernel->Compute(&ctx);
  }
  AF_RETURN_IF_ERROR(device->gpu_context()->compute_stream()->Synchronize());
  in.clear();
  AF_RETURN_IF_ERROR(ctx.status());
  std::vector<Tensor> results;
  for (int i = 0; i < kernel->num_outputs(); ++i) {
    if (!out[i].has_value)
      return errors::Internal("GPU kernel for ", kernel->type_string(), " did not set output ", i);
    StatusOr<Tensor> h = GpuToHost(device, out[i].get());
    if (!h.ok()) return h.status();
    results.push_back(std::move(h).value());
  }
  return results;
}

// Runs `op` on the test GPU, `attrs(NodeAttrs&)` setting the node's attrs
// (the type attrs included), without the CPU kernel GpuKernelRunner builds
// first (there is none for half and bfloat16).
template <typename SetAttrs>
StatusOr<std::vector<Tensor>> RunOnGpuOnly(const std::string& op, SetAttrs attrs,
                                           const std::vector<Tensor>& inputs) {
  std::string why;
  DeviceBase* device = TestGpu(&why);
  if (device == nullptr) return errors::Unavailable("no GPU: ", why);
  tensorflow::NodeDef node;
  node.set_op(op);
  node.set_name("gpu_narrow_test_node");
  for (size_t i = 0; i < inputs.size(); ++i) node.add_input("input_" + std::to_string(i));
  NodeAttrs setter{&node};
  attrs(setter);
  const tensorflow::OpDef* op_def = nullptr;
  AF_RETURN_IF_ERROR(OpRegistry::Global()->LookUpOpDef(op, &op_def));
  AddDefaultsToNodeDef(*op_def, &node);
  AF_RETURN_IF_ERROR(ValidateNodeDef(node, *op_def));
  std::unique_ptr<OpKernel> kernel;
  AF_RETURN_IF_ERROR(KernelRegistry::Global()->CreateKernel(DEVICE_GPU, device, node, &kernel));
  std::vector<TensorValue> in(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    StatusOr<Tensor> d = HostToGpu(device, inputs[i]);
    if (!d.ok()) return d.status();
    in[i].tensor = std::move(d).value();
    in[i].has_value = true;
  }
  return ComputeOnGpu(device, kernel.get(), std::move(in));
}

// `op` on half/bfloat16 `inputs` (T = dtype) on the GPU against the CPU
// kernel on their float values; outputs compared in float with
// ExpectClose. `attrs` sets the other attrs on either runner.
template <typename SetAttrs>
void ExpectNarrowMatchesCpu(const std::string& op, DataType dtype, SetAttrs attrs,
                            const std::vector<Tensor>& inputs, double rtol, double atol) {
  if (!HaveCudaGpu()) {
    BOOST_TEST_MESSAGE("skipped: half and bfloat16 need a CUDA GPU");
    return;
  }
  KernelRunner cpu(op);
  attrs(cpu);
  for (const Tensor& t : inputs) cpu.Input(Widen(t));
  auto got = RunOnGpuOnly(
      op,
      [&](NodeAttrs& a) {
        attrs(a);
        a.Attr("T", dtype);
      },
      inputs);
  BOOST_REQUIRE_MESSAGE(got.ok(), op << " on the GPU: " << got.status().ToString());
  auto want = cpu.Run();
  BOOST_REQUIRE_MESSAGE(want.ok(), op << " on the CPU: " << want.status().ToString());
  BOOST_REQUIRE_EQUAL(got.value().size(), want.value().size());
  for (size_t o = 0; o < want.value().size(); ++o) {
    BOOST_CHECK_EQUAL(BaseType(got.value()[o].dtype()), dtype);
    ExpectClose(Widen(got.value()[o]), want.value()[o], rtol, atol,
                op + " " + DataTypeString(dtype) + " output " + std::to_string(o));
  }
}

// The same with T the dtype of the last input.
template <typename SetAttrs>
void ExpectNarrowMatchesCpu(const std::string& op, SetAttrs attrs,
                            const std::vector<Tensor>& inputs, double rtol, double atol) {
  ExpectNarrowMatchesCpu(op, BaseType(inputs.back().dtype()), attrs, inputs, rtol, atol);
}

}  // namespace af::test
