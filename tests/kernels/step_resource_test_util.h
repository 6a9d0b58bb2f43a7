// Runs kernels of per-step resources (stacks, tensor arrays) as one
// executor step would: every kernel of a TestStep sees the same
// StepResources, and destroying the TestStep ends the step.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/resource_handle.h"
#include "core/step_resources.h"
#include "tests/kernels/op_test_util.h"
#include "tests/test_util.h"

namespace af::test {

class TestStep {
 public:
  using AttrFn = std::function<void(KernelRunner&)>;

  // Builds node `name` of `op` (attrs set by `attrs`, type attrs inferred
  // from the inputs) and runs it once in this step.
  StatusOr<std::vector<Tensor>> Run(const std::string& op, const std::string& name,
                                    std::vector<Tensor> inputs, const AttrFn& attrs = {}) {
    KernelRunner runner(op, name);
    if (attrs) attrs(runner);
    for (const Tensor& t : inputs) runner.Input(t);
    AF_RETURN_IF_ERROR(runner.Build());
    OpKernel* kernel = runner.kernel();
    std::vector<TensorValue> in(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      in[i].tensor = std::move(inputs[i]);
      in[i].has_value = true;
    }
    std::vector<TensorValue> out(kernel->num_outputs());
    OpKernelContext::Params params;
    params.device = &device_;
    params.op_kernel = kernel;
    params.inputs = in.data();
    params.outputs = out.data();
    params.step_resources = resources_.get();
    OpKernelContext ctx(&params);
    kernel->Compute(&ctx);
    if (!ctx.status().ok()) return ctx.status();
    std::vector<Tensor> results;
    for (auto& v : out) {
      if (!v.has_value) return errors::Internal(op, " did not set an output");
      results.push_back(v.get());
    }
    return results;
  }

  // Ends the step: drops every stack and array it made.
  void End() { resources_.reset(); }
  StepResources* resources() const { return resources_.get(); }

 private:
  TestCpuDevice device_;
  std::unique_ptr<StepResources> resources_ = std::make_unique<StepResources>();
};

inline std::string HandleName(const Tensor& handle) {
  const ResourceHandle* h = nullptr;
  if (!GetResourceHandle(handle, "handle", &h).ok()) return "";
  return h->name;
}

using testing::Contains;

}  // namespace af::test
