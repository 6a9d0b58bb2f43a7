#include "runtime/frame_state.h"

namespace af {

void IterationState::Reset(const FrameInfo& frame) {
  // Slots are cleared as nodes run; an aborted step may leave some behind.
  for (TensorValue& v : inputs) v.Clear();
  inputs.resize(frame.total_inputs);
  pending = frame.initial_pending;
  dead_count.assign(frame.initial_pending.size(), 0);
  outstanding_ops = 0;
  outstanding_frame_count = 0;
}

FrameState::FrameState(const FrameInfo* info_in, const std::vector<NodeItem>* nodes,
                       uint64_t frame_id_in, FrameState* parent_in, int64_t parent_iter_in)
    : info(info_in),
      frame_id(frame_id_in),
      parent(parent_in),
      parent_iter(parent_iter_in),
      num_pending_inputs(info_in->num_enters),
      nodes_(nodes),
      max_parallel_iterations_(info_in->parallel_iterations),
      iterations_(info_in->parallel_iterations + 1) {
  SetIteration(0, NewIteration());
}

IterationState* FrameState::GetIteration(int64_t iter) const {
  return iterations_[iter % iterations_.size()].get();
}

void FrameState::SetIteration(int64_t iter, std::unique_ptr<IterationState> state) {
  auto& slot = iterations_[iter % iterations_.size()];
  if (slot) spare_.push_back(std::move(slot));
  slot = std::move(state);
}

std::unique_ptr<IterationState> FrameState::NewIteration() {
  std::unique_ptr<IterationState> state;
  if (!spare_.empty()) {
    state = std::move(spare_.back());
    spare_.pop_back();
  } else {
    state = std::make_unique<IterationState>();
  }
  state->Reset(*info);
  return state;
}

void FrameState::ActivateNodes(const NodeItem* item, bool is_dead, int64_t iter,
                               TensorValue* outputs, bool may_move, ReadyQueue* ready) {
  IterationState* state = GetIteration(iter);
  const std::vector<NodeItem>& nodes = *nodes_;
  for (const EdgeItem& e : item->out_edges) {
    const NodeItem* dst = &nodes[e.dst_id];
    const int id = dst->pending_id;
    const bool is_control = e.src_output == kControlSlot;
    const bool has_value = !is_dead && !is_control && outputs != nullptr &&
                           outputs[e.src_output].has_value;
    bool dst_ready = false, dst_dead = false, need_input = false;
    int& pending = state->pending[id];
    if (dst->is_merge) {
      if (is_control) {
        pending -= 2;
        dst_dead = state->dead_count[id] == dst->num_data_inputs;
        dst_ready = pending == 0 || (pending == 1 && dst_dead);
      } else if (has_value) {
        // Only the first live input feeds the Merge; bit 0 records it.
        const int count = pending;
        pending &= ~1;
        dst_ready = count == 1;
        need_input = (count & 1) == 1;
      } else {
        // A dead Enter kills a loop's Merge at once: its NextIteration
        // input will never come.
        const int dead = ++state->dead_count[id];
        dst_dead = dead == dst->num_data_inputs || item->is_enter;
        dst_ready = pending == 1 && dst_dead;
      }
    } else {
      if (!is_control && !has_value) ++state->dead_count[id];
      else if (is_control && is_dead) ++state->dead_count[id];
      dst_dead = state->dead_count[id] > 0;
      dst_ready = --pending == 0;
      need_input = has_value;
    }
    if (need_input) {
      TensorValue& slot = state->inputs[dst->input_start + e.dst_input];
      if (may_move && e.last_use)
        slot = std::move(outputs[e.src_output]);
      else
        slot = outputs[e.src_output];
    }
    if (dst_ready) {
      if (dst->is_control_trigger) dst_dead = false;
      ready->push_back(TaggedNode{dst, this, iter, dst_dead});
      state->outstanding_ops++;
    }
  }
}

void FrameState::AddLoopInvariant(const NodeItem* item, const TensorValue& value,
                                  ReadyQueue* ready) {
  inv_values.emplace_back(item, value);
  // Every iteration started so far is still alive (none can finish before
  // all Enters delivered), so each gets the value.
  for (int64_t i = 0; i <= iteration_count; ++i) {
    TensorValue copy = value;
    ActivateNodes(item, !value.has_value, i, &copy, false, ready);
  }
}

void FrameState::IncrementIteration(ReadyQueue* ready) {
  ++iteration_count;
  const int64_t next = iteration_count;
  SetIteration(next, NewIteration());
  ++num_outstanding_iterations;
  dead_exits.clear();
  auto deferred = std::move(next_iter_roots);
  next_iter_roots.clear();
  for (auto& [item, value] : deferred)
    ActivateNodes(item, !value.has_value, next, &value, true, ready);
  for (auto& [item, value] : inv_values) {
    TensorValue copy = value;
    ActivateNodes(item, !value.has_value, next, &copy, false, ready);
  }
}

bool FrameState::IsIterationDone(int64_t iter) const {
  const IterationState* state = GetIteration(iter);
  if (state->outstanding_ops != 0 || state->outstanding_frame_count != 0) return false;
  // Iteration 0 also waits for every Enter; later ones for their
  // predecessor, since values flow forward through NextIteration.
  if (iter == 0) return num_pending_inputs == 0;
  return GetIteration(iter - 1) == nullptr;
}

bool FrameState::DecrementOutstandingOps(int64_t iter, ReadyQueue* ready) {
  IterationState* state = GetIteration(iter);
  if (--state->outstanding_ops != 0) return false;
  return CleanupIterations(iter, ready);
}

bool FrameState::CleanupIterations(int64_t iter, ReadyQueue* ready) {
  int64_t current = iter;
  while (current <= iteration_count && IsIterationDone(current)) {
    auto& slot = iterations_[current % iterations_.size()];
    spare_.push_back(std::move(slot));
    --num_outstanding_iterations;
    ++current;
    if (!next_iter_roots.empty()) IncrementIteration(ready);
  }
  return IsFrameDone();
}

}  // namespace af
