#include "runtime/constant_evaluator.h"

#include <atomic>
#include <memory>

#include "core/call_frame.h"
#include "graph/graph_def_import.h"
#include "runtime/executor.h"
#include "runtime/local_device.h"

namespace af {
namespace {

// Never destroyed: evaluators may outlive any object that could own it, and
// its pool thread must not be joined during static destruction.
LocalDevice* SharedCpuDevice() {
  static LocalDevice* device =
      new LocalDevice(LocalCpuDeviceName(0), DEVICE_CPU, GetCpuAllocator(), 1, 1);
  return device;
}

Status Evaluate(const tensorflow::GraphDef& def, int num_retvals, std::vector<Tensor>* out) {
  out->clear();
  if (num_retvals < 0) return errors::InvalidArgument("negative number of retvals");
  auto graph = std::make_unique<Graph>();
  ImportOptions options;
  // Kernels check their inputs when they run; shapes would only be
  // inferred here to be thrown away.
  options.infer_shapes = false;
  AF_RETURN_IF_ERROR(ImportGraphDef(def, graph.get(), options));
  std::unique_ptr<Executor> executor;
  AF_RETURN_IF_ERROR(NewLocalExecutor(SharedCpuDevice(), std::move(graph), &executor));
  static std::atomic<int64_t> next_step{1};
  CallFrame frame({}, num_retvals);
  Executor::Args args;
  args.step_id = next_step.fetch_add(1, std::memory_order_relaxed);
  args.call_frame = &frame;
  AF_RETURN_IF_ERROR(executor->Run(args));
  return frame.ConsumeRetvals(out);
}

}  // namespace

ConstantEvaluator MakeCpuConstantEvaluator() { return Evaluate; }

}  // namespace af
