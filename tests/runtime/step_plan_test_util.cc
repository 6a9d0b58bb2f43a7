#include "tests/runtime/step_plan_test_util.h"

#include <condition_variable>
#include <mutex>

#include "graph/graph_def_import.h"
#include "runtime/rendezvous.h"

namespace af::test {

std::string Pinned(const std::string& node_text, const std::string& device) {
  std::string s = node_text;
  s.insert(s.find(" op: "), " device: '" + device + "'");
  return s;
}

TwoDevices::TwoDevices() {
  for (int i = 0; i < 2; ++i) {
    devices.push_back(std::make_unique<LocalDevice>(LocalCpuDeviceName(i), DEVICE_CPU,
                                                    GetCpuAllocator(), 1, 7 + i));
    attributes.push_back(
        DeviceAttributes{LocalCpuDeviceName(i), DEVICE_CPU, static_cast<uint64_t>(7 + i)});
  }
}

LocalDevice* TwoDevices::Find(const std::string& name) {
  for (auto& d : devices)
    if (d->name() == name) return d.get();
  return nullptr;
}

TwoTasks::TwoTasks() {
  devices.clear();
  attributes.clear();
  for (const char* name : {kWorker, kPs}) {
    devices.push_back(std::make_unique<LocalDevice>(name, DEVICE_CPU, GetCpuAllocator(), 1, 5));
    attributes.push_back(DeviceAttributes{name, DEVICE_CPU, 5});
  }
}

Status RunPlan(TwoDevices& env, const StepPlan& plan, const std::vector<Tensor>& feeds,
               std::vector<Tensor>* fetches) {
  std::vector<std::unique_ptr<Executor>> executors;
  std::vector<CallFrame> frames(plan.partitions.size());
  for (size_t p = 0; p < plan.partitions.size(); ++p) {
    auto graph = std::make_unique<Graph>();
    AF_RETURN_IF_ERROR(ImportGraphDef(plan.partitions[p].graph, graph.get()));
    std::unique_ptr<Executor> exec;
    AF_RETURN_IF_ERROR(
        NewLocalExecutor(env.Find(plan.partitions[p].device), std::move(graph), &exec));
    executors.push_back(std::move(exec));
    frames[p].Reset(plan.partitions[p].num_args, plan.partitions[p].num_retvals);
  }
  for (size_t i = 0; i < feeds.size(); ++i) {
    const TensorLocation& loc = plan.feeds[i];
    if (loc.partition >= 0) frames[loc.partition].mutable_args()[loc.index] = feeds[i];
  }
  LocalRendezvous rendezvous;
  std::mutex mu;
  std::condition_variable cv;
  size_t remaining = executors.size();
  Status status;
  for (size_t p = 0; p < executors.size(); ++p) {
    Executor::Args args;
    args.rendezvous = &rendezvous;
    args.call_frame = &frames[p];
    executors[p]->RunAsync(args, [&](const Status& s) {
      std::lock_guard<std::mutex> lock(mu);
      status.Update(s);
      if (--remaining == 0) cv.notify_all();
    });
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return remaining == 0; });
  }
  AF_RETURN_IF_ERROR(status);
  fetches->assign(plan.fetches.size(), Tensor());
  for (size_t p = 0; p < frames.size(); ++p) {
    std::vector<Tensor> values;
    AF_RETURN_IF_ERROR(frames[p].ConsumeRetvals(&values));
    for (size_t i = 0; i < plan.fetches.size(); ++i)
      if (plan.fetches[i].partition == static_cast<int>(p))
        (*fetches)[i] = values[plan.fetches[i].index];
  }
  return Status::OK();
}

}  // namespace af::test
