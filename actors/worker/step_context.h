// StepContext: what one step needs on one worker, shared by the worker
// actor, its device actors and the executors running the step's partitions:
// the step's rendezvous (shared by every local device, so transfers within
// the process hand over buffers), its cancellation manager and one call
// frame per partition. No CAF here; the worker wires in how tensors leave
// the process (RemoteSender) and what happens when the step is done.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/call_frame.h"
#include "core/cancellation.h"
#include "core/memory_budget.h"
#include "core/status.h"
#include "core/step_traffic.h"
#include "runtime/rendezvous.h"

namespace af {

// Ships a tensor to the process that owns `dst_device` (one message).
class RemoteSender {
 public:
  virtual ~RemoteSender() = default;
  virtual Status Send(int64_t step_id, const std::string& key, std::string_view dst_device,
                      const Tensor& value, bool is_dead) const = 0;
};

// The full names of the devices of this worker process.
using LocalDeviceNames = std::vector<std::string>;

class StepContext {
 public:
  StepContext(int64_t step_id, std::shared_ptr<const LocalDeviceNames> local_devices);
  StepContext(const StepContext&) = delete;
  StepContext& operator=(const StepContext&) = delete;

  int64_t step_id() const { return step_id_; }
  LocalRendezvous* rendezvous() { return &rendezvous_; }
  CancellationManager* cancellation_manager() { return &cancellation_; }

  // The session's memory budget (null: none); set by the worker before any
  // partition runs.
  void set_memory_budget(std::shared_ptr<MemoryBudget> budget) { budget_ = std::move(budget); }
  const std::shared_ptr<MemoryBudget>& memory_budget() const { return budget_; }

  // Set by the worker before any partition runs.
  void set_remote_sender(std::shared_ptr<const RemoteSender> sender) {
    remote_sender_ = std::move(sender);
  }
  // Prepares `n` partitions; `on_done` runs once, on whichever thread
  // finishes the last partition.
  void Start(std::vector<CallFrame> frames, std::function<void()> on_done);
  CallFrame* frame(int i) { return &frames_[i]; }
  int num_partitions() const { return static_cast<int>(frames_.size()); }
  // Keeps what a running partition uses (its executor) alive until the
  // step's end, whatever happens to the actor that owns it.
  void KeepAlive(int i, std::shared_ptr<void> resource);

  // Called once per partition, from any thread. A failure aborts the step
  // right away so that the other partitions' Recvs stop waiting.
  void PartitionDone(const Status& status);
  // Fails waiting and future Recvs and cancels waiting operations.
  void Abort(const Status& status);

  bool started() const { return started_; }
  bool aborted() const;
  Status status() const;

  // Hands out the `_Retval` values of partition i (valid after the end).
  Status ConsumeRetvals(int i, std::vector<Tensor>* out) {
    return frames_[i].ConsumeRetvals(out);
  }

  // Measured node times of partition i (see the device actor).
  void SetCosts(int i, std::vector<std::string> nodes, std::vector<double> micros);
  void TakeCosts(int i, std::vector<std::string>* nodes, std::vector<double>* micros);

  // A traced step collects every node's times; set before Start.
  void set_tracing(bool tracing) { tracing_ = tracing; }
  bool tracing() const { return tracing_; }
  // The serialized DeviceStepStats of partition i (see the device actor).
  void SetTrace(int i, std::string device_step_stats);
  void TakeTrace(int i, std::string* device_step_stats);

  // What this step's Sends shipped to other processes, by destination
  // task (src left empty: the worker names itself). Any thread.
  StepTraffic TakeTraffic();

  // When the worker first heard of the step (for sweeping steps whose
  // RunGraph never came).
  std::chrono::steady_clock::time_point created() const { return created_; }

 private:
  const int64_t step_id_;
  const std::shared_ptr<const LocalDeviceNames> local_devices_;
  std::shared_ptr<const RemoteSender> remote_sender_;
  std::shared_ptr<MemoryBudget> budget_;
  LocalRendezvous rendezvous_;
  CancellationManager cancellation_;
  std::vector<CallFrame> frames_;
  std::vector<std::shared_ptr<void>> keep_alive_;
  std::vector<std::vector<std::string>> cost_nodes_;
  std::vector<std::vector<double>> cost_micros_;
  bool tracing_ = false;
  std::vector<std::string> traces_;
  std::function<void()> on_done_;
  std::atomic<int> pending_{0};
  bool started_ = false;
  mutable std::mutex mu_;  // guards status_, aborted_, cost_nodes_, cost_micros_ and traces_
  Status status_;
  bool aborted_ = false;
  const std::chrono::steady_clock::time_point created_;
  std::mutex traffic_mu_;  // guards sent_ (Sends finish on many threads)
  StepTraffic sent_;
};

}  // namespace af
