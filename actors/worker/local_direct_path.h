// What a client's thread needs to run a step with partitions in other
// processes itself (actors/remote_step.h): the in-process worker's step
// registry (so that tensors arriving on its data plane find the step), its
// direct-path service (the session's routes) and its data plane (the
// lane). The worker publishes them here when it starts.
#pragma once

#include <memory>
#include <mutex>

namespace af {
class StepRegistry;
}  // namespace af

namespace af::actors {

class DataPlane;
class DirectSteps;

struct LocalDirectPath {
  std::shared_ptr<StepRegistry> registry;
  std::shared_ptr<DirectSteps> direct;
  std::shared_ptr<DataPlane> plane;
};

class LocalDirectPathSlot {
 public:
  void Set(std::shared_ptr<const LocalDirectPath> path) {
    std::lock_guard<std::mutex> lock(mu_);
    path_ = std::move(path);
  }
  std::shared_ptr<const LocalDirectPath> Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return path_;
  }

 private:
  mutable std::mutex mu_;  // guards path_
  std::shared_ptr<const LocalDirectPath> path_;
};

}  // namespace af::actors
