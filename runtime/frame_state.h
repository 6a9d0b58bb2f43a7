// Per-step state of one loop frame instance and its live iterations. A
// frame instance exists per (parent frame instance, parent iteration, frame
// name); at most parallel_iterations iterations run at once. Every method
// requires `mu` to be held.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "runtime/executor_items.h"

namespace af {

class FrameState;

// A node ready to run in a frame instance and iteration; is_dead means its
// outputs are all dead and (except for Send/Recv) its kernel is skipped.
struct TaggedNode {
  const NodeItem* item = nullptr;
  FrameState* frame = nullptr;
  int64_t iter = 0;
  bool is_dead = false;
};
using ReadyQueue = std::vector<TaggedNode>;

struct IterationState {
  std::vector<TensorValue> inputs;  // FrameInfo::total_inputs slots
  std::vector<int> pending;         // by pending id
  std::vector<int> dead_count;      // by pending id
  int outstanding_ops = 0;          // ready or running nodes
  int outstanding_frame_count = 0;  // live child frame instances
  // slots_clear: every input slot is known to be empty (a step that ended
  // well consumed them all), so a large frame need not visit them.
  void Reset(const FrameInfo& frame, bool slots_clear = false);
};

// Root iteration states an executor keeps between its steps: each step of
// a large graph would otherwise allocate its pending counts and input slots
// afresh, and the allocator consolidate them when they are freed.
class IterationStatePool {
 public:
  // A state reset for `frame`: a recycled one when there is one.
  std::unique_ptr<IterationState> Take(const FrameInfo& frame);
  // Only states whose slots are all empty come back.
  void Give(std::unique_ptr<IterationState> state);

 private:
  std::mutex mu_;  // guards free_
  std::vector<std::unique_ptr<IterationState>> free_;
};

class FrameState {
 public:
  // `first`: iteration 0's state, already reset (null: a new one).
  FrameState(const FrameInfo* info, const std::vector<NodeItem>* nodes, uint64_t frame_id,
             FrameState* parent, int64_t parent_iter,
             std::unique_ptr<IterationState> first = nullptr);

  const FrameInfo* const info;
  const uint64_t frame_id;
  FrameState* const parent;
  const int64_t parent_iter;
  std::mutex mu;  // guards the fields below and the iterations; methods need it held

  int num_pending_inputs;  // Enter nodes yet to deliver into this instance
  int num_outstanding_iterations = 1;
  int64_t iteration_count = 0;  // the newest iteration started
  // NextIteration values held back while parallel_iterations are running.
  std::vector<std::pair<const NodeItem*, TensorValue>> next_iter_roots;
  // Values of constant Enters: every new iteration sees them.
  std::vector<std::pair<const NodeItem*, TensorValue>> inv_values;
  // Exits that were dead in the newest iteration (propagated when the frame
  // ends, so that a loop in an untaken branch makes its consumers dead).
  std::vector<const NodeItem*> dead_exits;

  IterationState* GetIteration(int64_t iter) const;

  // Delivers `item`'s outputs to its consumers in iteration `iter`, adding
  // those that become ready to `ready`. `outputs` may be null when the
  // node is dead; with may_move the values may be moved out.
  void ActivateNodes(const NodeItem* item, bool is_dead, int64_t iter, TensorValue* outputs,
                     bool may_move, ReadyQueue* ready);
  // The same for a graph without control flow, called without `mu` from
  // any thread: iteration 0 only, counters updated atomically, no Merge
  // destinations, and outstanding ops left to the step's own count.
  void ActivateNodesConcurrently(const NodeItem* item, bool is_dead, TensorValue* outputs,
                                 ReadyQueue* ready);
  void AddLoopInvariant(const NodeItem* item, const TensorValue& value, ReadyQueue* ready);
  void IncrementIteration(ReadyQueue* ready);
  // Returns true when the whole frame instance is done.
  bool DecrementOutstandingOps(int64_t iter, ReadyQueue* ready);
  bool CleanupIterations(int64_t iter, ReadyQueue* ready);
  bool IsFrameDone() const { return num_pending_inputs == 0 && num_outstanding_iterations == 0; }
  // Once the step has ended: iteration 0's state, wherever it is now (null:
  // none), for reuse by another step.
  std::unique_ptr<IterationState> TakeIteration0();

 private:
  bool IsIterationDone(int64_t iter) const;
  void SetIteration(int64_t iter, std::unique_ptr<IterationState> state);
  std::unique_ptr<IterationState> NewIteration();

  const std::vector<NodeItem>* nodes_;
  const int max_parallel_iterations_;
  const size_t ring_mask_;
  std::vector<std::unique_ptr<IterationState>> iterations_;  // ring by iter & ring_mask_
  std::vector<std::unique_ptr<IterationState>> spare_;       // finished, for reuse
};

}  // namespace af
