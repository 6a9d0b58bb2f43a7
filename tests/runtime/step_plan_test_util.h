// Whole steps without actors, for the step-plan tests: a plan (prune,
// place, optimize, partition) whose partitions each run on their own local
// device, sharing one step rendezvous as a worker's would.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/local_device.h"
#include "runtime/step_plan.h"
#include "tests/runtime/executor_test_util.h"

namespace af::test {

inline const std::string kTf = "attr { key: 'T' value { type: DT_FLOAT } }";

inline std::string Placeholder(const std::string& name) {
  return Node(name, "Placeholder", {}, "attr { key: 'dtype' value { type: DT_FLOAT } }");
}

// Inserts a device field into a "node { ... }" line.
std::string Pinned(const std::string& node_text, const std::string& device);

// Two CPU devices of this process (CPU:0 and CPU:1).
struct TwoDevices {
  TwoDevices();
  LocalDevice* Find(const std::string& name);
  std::vector<std::unique_ptr<LocalDevice>> devices;
  std::vector<DeviceAttributes> attributes;
};

// Two tasks' CPUs, as a worker and a ps process would have them.
struct TwoTasks : TwoDevices {
  TwoTasks();
  static constexpr const char* kWorker = "/job:worker/replica:0/task:0/device:CPU:0";
  static constexpr const char* kPs = "/job:ps/replica:0/task:0/device:CPU:0";
};

// Runs every partition of `plan` concurrently and gathers the fetches.
Status RunPlan(TwoDevices& env, const StepPlan& plan, const std::vector<Tensor>& feeds,
               std::vector<Tensor>* fetches);

}  // namespace af::test
