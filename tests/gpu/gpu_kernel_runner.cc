#include "tests/gpu/gpu_kernel_runner.h"

#include <cmath>
#include <mutex>

#include "core/gpu/gpu_device_context.h"
#include "core/kernel_registry.h"
#include "runtime/gpu_device.h"
#include "tests/gpu/gpu_test_util.h"

namespace af::test {
namespace {

struct TestGpuState {
  std::once_flag once;
  std::unique_ptr<GpuDevice> device;
  std::string why_not;
};

TestGpuState& State() {
  static TestGpuState* state = new TestGpuState();
  return *state;
}

}  // namespace

DeviceBase* TestGpu(std::string* why_not) {
  TestGpuState& st = State();
  std::call_once(st.once, [&st] {
    gpu::GpuDeviceContext* context = nullptr;
    Status s = gpu::GetProcessGpuContext(0, &context);
    if (!s.ok()) {
      st.why_not = s.message() + std::string(gpu::CudaBuilt() ? "" : "; built without CUDA") +
                   "; ACTORFLOW_EMULATED_GPUS=1 emulates one";
      return;
    }
    st.device = std::make_unique<GpuDevice>(LocalGpuDeviceName(0), context, 2, 1);
  });
  if (!st.device && why_not) *why_not = st.why_not;
  return st.device.get();
}

bool HaveCudaGpu() {
  DeviceBase* d = TestGpu(nullptr);
  return d != nullptr && !d->gpu_context()->emulated();
}

GpuKernelRunner::GpuKernelRunner(std::string op) : op_(std::move(op)) {}

GpuKernelRunner& GpuKernelRunner::Input(Tensor host_value) {
  inputs_.push_back(host_value);
  is_ref_.push_back(false);
  return *this;
}

GpuKernelRunner& GpuKernelRunner::RefInput(Tensor host_initial_value) {
  inputs_.push_back(host_initial_value);
  is_ref_.push_back(true);
  return *this;
}

StatusOr<std::vector<Tensor>> GpuKernelRunner::RunCpu() {
  KernelRunner runner(op_);
  for (auto& attr : attrs_) attr(&runner);
  std::vector<Tensor> refs(inputs_.size());
  std::vector<std::mutex> mus(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (is_ref_[i]) {
      refs[i] = inputs_[i].DeepCopy();
      runner.RefInput(&refs[i], &mus[i]);
    } else {
      runner.Input(inputs_[i]);
    }
  }
  StatusOr<std::vector<Tensor>> out = runner.Run();
  if (!out.ok()) return out;
  std::vector<Tensor> results = std::move(out).value();
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (is_ref_[i]) results.push_back(refs[i]);
  }
  return results;
}

StatusOr<std::vector<Tensor>> GpuKernelRunner::RunGpu() {
  std::string why;
  auto* device = static_cast<GpuDevice*>(TestGpu(&why));
  if (device == nullptr) return errors::Unavailable("no GPU: ", why);
  // The CPU runner completes the NodeDef (type attrs, defaults).
  KernelRunner spec(op_);
  for (auto& attr : attrs_) attr(&spec);
  std::vector<std::mutex> mus(inputs_.size());
  std::vector<Tensor> spec_refs(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i) {
    // The placeholder's dtype fills the op's type attr.
    if (is_ref_[i]) spec_refs[i] = Tensor(inputs_[i].dtype(), TensorShape({0}));
    if (is_ref_[i]) {
      spec.RefInput(&spec_refs[i], &mus[i]);
    } else {
      spec.Input(inputs_[i]);
    }
  }
  AF_RETURN_IF_ERROR(spec.Build());
  std::unique_ptr<OpKernel> kernel;
  AF_RETURN_IF_ERROR(
      KernelRegistry::Global()->CreateKernel(DEVICE_GPU, device, spec.node_def(), &kernel));

  std::vector<Tensor> refs(inputs_.size());
  std::vector<TensorValue> in(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i) {
    StatusOr<Tensor> d = HostToGpu(device, inputs_[i]);
    if (!d.ok()) return d.status();
    if (is_ref_[i]) {
      refs[i] = std::move(d).value();
      in[i].ref = &refs[i];
      in[i].ref_mu = &mus[i];
    } else {
      in[i].tensor = std::move(d).value();
    }
    in[i].has_value = true;
  }
  StatusOr<std::vector<Tensor>> computed = ComputeOnGpu(device, kernel.get(), std::move(in));
  if (!computed.ok()) return computed.status();
  std::vector<Tensor> results = std::move(computed).value();
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (!is_ref_[i]) continue;
    StatusOr<Tensor> h = GpuToHost(device, refs[i]);
    if (!h.ok()) return h.status();
    results.push_back(std::move(h).value());
  }
  return results;
}

void GpuKernelRunner::ExpectSameAsCpu(double rtol, double atol) {
  StatusOr<std::vector<Tensor>> cpu = RunCpu();
  BOOST_REQUIRE_MESSAGE(cpu.ok(), op_ << " on the CPU: " << cpu.status().ToString());
  StatusOr<std::vector<Tensor>> gpu = RunGpu();
  BOOST_REQUIRE_MESSAGE(gpu.ok(), op_ << " on the GPU: " << gpu.status().ToString());
  BOOST_REQUIRE_EQUAL(cpu.value().size(), gpu.value().size());
  for (size_t k = 0; k < cpu.value().size(); ++k) {
    const Tensor& c = cpu.value()[k];
    const Tensor& g = gpu.value()[k];
    BOOST_REQUIRE_MESSAGE(BaseType(c.dtype()) == BaseType(g.dtype()),
                          op_ << " output " << k << ": dtype " << DataTypeString(g.dtype())
                              << " on the GPU, " << DataTypeString(c.dtype()) << " on the CPU");
    BOOST_REQUIRE_MESSAGE(c.shape() == g.shape(), op_ << " output " << k << ": shape "
                                                      << g.shape().DebugString() << " on the GPU, "
                                                      << c.shape().DebugString() << " on the CPU");
    int64_t bad = 0;
    int64_t first_bad = -1;
    double worst = 0;
    for (int64_t i = 0; i < c.NumElements(); ++i) {
      const double want = Elem(c, i);
      const double got = Elem(g, i);
      if (std::isnan(want) && std::isnan(got)) continue;
      if (want == got) continue;  // equal infinities too
      const double err = std::fabs(got - want);
      if (!(err <= atol + rtol * std::fabs(want))) {
        if (first_bad < 0) first_bad = i;
        ++bad;
      }
      if (err > worst || std::isnan(err)) worst = err;
    }
    BOOST_CHECK_MESSAGE(bad == 0, op_ << " output " << k << ": " << bad << " of "
                                      << c.NumElements() << " elements differ; first at "
                                      << first_bad << " (gpu "
                                      << (first_bad >= 0 ? Elem(g, first_bad) : 0)
                                      << ", cpu "
                                      << (first_bad >= 0 ? Elem(c, first_bad) : 0)
                                      << "), worst abs error " << worst);
  }
}

}  // namespace af::test
