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
  // root_states: where the root frame's iteration state comes from and
  // goes back to (null: allocated per step).
  ExecutorState(const ExecutorItems* items, DeviceBase* device, const Executor::Args& args,
                Executor::DoneCallback done, IterationStatePool* root_states = nullptr);
  ~ExecutorState();
  // Runs the roots; the state deletes itself when the step ends.
  void Start();

 private:
  struct AsyncNode;

  // deferred: finished nodes this thread has not yet subtracted from
  // num_outstanding_ops_ (zero or negative; see NodeDone).
  void RunQueue(ReadyQueue* inline_ready, int64_t deferred = 0);
  // Subtracts what this thread deferred; the thread that brings the count
  // to zero ends the step. Touches nothing when there is nothing to flush.
  void FlushDeferred(int64_t deferred);
  void LaunchAsync(const TaggedNode& node, TensorValue* inputs);
  Status CheckOutputs(const NodeItem& item, const OpKernelContext& ctx,
                      const TensorValue* outputs, bool is_dead) const;
  void PropagateOutputs(const TaggedNode& node, TensorValue* outputs, ReadyQueue* ready);
  // Counts the node done and schedules what it made ready. The count of
  // outstanding nodes is only ever too high, never too low, so the step
  // cannot end early: *deferred accumulates the net decrements until
  // FlushDeferred, and a net increment is applied at once.
  // caller_idle: the calling thread has no other queued node to run.
  void NodeDone(const Status& status, ReadyQueue* ready, ReadyQueue* inline_ready,
                bool caller_idle, int64_t* deferred);
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
  IterationStatePool* root_states_;
  std::unique_ptr<FrameState> root_frame_;
  // The root frame's only iteration: stable for the whole step, so nodes
  // of the root frame find their input slots without the frame's mutex.
  IterationState* root_iteration_ = nullptr;
  std::map<std::tuple<FrameState*, int64_t, const FrameInfo*>, std::unique_ptr<FrameState>>
      child_frames_;
  // Freed with the state, so before `done_` reports the step's end.
  StepResources step_resources_;
};

}  // namespace af
