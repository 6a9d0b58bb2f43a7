#include "runtime/executor.h"

#include <condition_variable>
#include <mutex>

#include "runtime/executor_items.h"
#include "runtime/executor_state.h"
#include "runtime/frame_state.h"

namespace af {

namespace {

class LocalExecutor final : public Executor {
 public:
  LocalExecutor(DeviceBase* device, std::unique_ptr<Graph> graph)
      : device_(device), graph_(std::move(graph)) {}

  Status Initialize(KernelSegment* segment) {
    return BuildExecutorItems(*graph_, device_, segment, &items_);
  }

  void RunAsync(const Args& args, DoneCallback done) override {
    (new ExecutorState(&items_, device_, args, std::move(done), &root_states_))->Start();
  }

  const Graph& graph() const override { return *graph_; }

 private:
  DeviceBase* device_;
  std::unique_ptr<Graph> graph_;
  ExecutorItems items_;
  IterationStatePool root_states_;
};

}  // namespace

Status Executor::Run(const Args& args) {
  std::mutex mu;  // guards finished and result
  std::condition_variable cv;
  bool finished = false;
  Status result;
  RunAsync(args, [&](const Status& s) {
    std::lock_guard<std::mutex> lock(mu);
    result = s;
    finished = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return finished; });
  return result;
}

Status NewLocalExecutor(DeviceBase* device, std::unique_ptr<Graph> graph,
                        std::unique_ptr<Executor>* out, KernelSegment* segment) {
  auto executor = std::make_unique<LocalExecutor>(device, std::move(graph));
  AF_RETURN_IF_ERROR(executor->Initialize(segment));
  *out = std::move(executor);
  return Status::OK();
}

}  // namespace af
