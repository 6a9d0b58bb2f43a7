// ExecutorState: one step of one partition. Created by RunAsync, deleted
// when the last outstanding node finishes.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "core/step_resources.h"
#include "runtime/executor.h"
#include "runtime/frame_state.h"

namespace af {

class ExecutorState {
 public:
  ExecutorState(const ExecutorItems* items, DeviceBase* device, const Executor::Args& args,
                Executor::DoneCallback done);
  ~ExecutorState();
  // Runs the roots; the state deletes itself when the step ends.
  void Start();

 private:
  struct AsyncNode;

  void RunQueue(ReadyQueue* inline_ready);
  void LaunchAsync(const TaggedNode& node, TensorValue* inputs);
  Status CheckOutputs(const NodeItem& item, const OpKernelContext& ctx,
                      const TensorValue* outputs, bool is_dead) const;
  void PropagateOutputs(const TaggedNode& node, TensorValue* outputs, ReadyQueue* ready);
  // Returns true if this finished the step (the state is gone).
  // caller_idle: the calling thread has no other queued node to run.
  bool NodeDone(const Status& status, ReadyQueue* ready, ReadyQueue* inline_ready,
                bool caller_idle);
  void ScheduleReady(ReadyQueue* ready, ReadyQueue* inline_ready, bool caller_idle);
  void RecordError(const Status& status);
  void Finish();
  FrameState* FindOrCreateChildFrame(FrameState* frame, int64_t iter, const NodeItem& enter);
  void DeleteFrame(FrameState* frame, ReadyQueue* ready);
  void FillParams(const TaggedNode& node, TensorValue* inputs, TensorValue* outputs,
                  OpKernelContext::Params* params);
  void ReportTiming(const NodeItem& item, int64_t start_ns) const;
  Status DerefRefInputs(const NodeItem& item, TensorValue* inputs) const;

  const ExecutorItems* items_;
  DeviceBase* device_;
  Executor::Args args_;
  Executor::DoneCallback done_;
  ThreadPoolInterface* pool_ = nullptr;
  std::function<void(std::function<void()>)> runner_;

  std::atomic<int64_t> num_outstanding_ops_{0};
  std::atomic<bool> aborted_{false};
  std::mutex mu_;  // guards status_ and child_frames_
  Status status_;
  std::unique_ptr<FrameState> root_frame_;
  std::map<std::tuple<FrameState*, int64_t, const FrameInfo*>, std::unique_ptr<FrameState>>
      child_frames_;
  // Freed with the state, so before `done_` reports the step's end.
  StepResources step_resources_;
};

}  // namespace af
