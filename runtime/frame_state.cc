#include "runtime/frame_state.h"

namespace af {

namespace {

// Iterations live in a ring indexed by iter & mask: a power of two at least
// `n`, so finding one needs no division.
size_t RingSize(int n) {
  size_t size = 1;
  while (size < static_cast<size_t>(n)) size <<= 1;
  return size;
}

}  // namespace

void IterationState::Reset(const FrameInfo& frame, bool slots_clear) {
  // Slots are cleared as nodes run; an aborted step may leave some behind.
  if (!slots_clear)
    for (TensorValue& v : inputs) v.Clear();
  inputs.resize(frame.total_inputs);
  pending = frame.initial_pending;
  dead_count.assign(frame.initial_pending.size(), 0);
  outstanding_ops = 0;
  outstanding_frame_count = 0;
}

std::unique_ptr<IterationState> IterationStatePool::Take(const FrameInfo& frame) {
  std::unique_ptr<IterationState> state;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      state = std::move(free_.back());
      free_.pop_back();
    }
  }
  if (state) {
    state->Reset(frame, true);
  } else {
    state = std::make_unique<IterationState>();
    state->Reset(frame);
  }
  return state;
}

void IterationStatePool::Give(std::unique_ptr<IterationState> state) {
  // Steps of one executor that overlap need one state each; more than a
  // few spare would only hold memory.
  constexpr size_t kMaxSpare = 4;
  std::lock_guard<std::mutex> lock(mu_);
  if (free_.size() < kMaxSpare) free_.push_back(std::move(state));
}

FrameState::FrameState(const FrameInfo* info_in, const std::vector<NodeItem>* nodes,
                       uint64_t frame_id_in, FrameState* parent_in, int64_t parent_iter_in,
                       std::unique_ptr<IterationState> first)
    : info(info_in),
      frame_id(frame_id_in),
      parent(parent_in),
      parent_iter(parent_iter_in),
      num_pending_inputs(info_in->num_enters),
      nodes_(nodes),
      max_parallel_iterations_(info_in->parallel_iterations),
      ring_mask_(RingSize(info_in->parallel_iterations + 1) - 1),
      iterations_(ring_mask_ + 1) {
  SetIteration(0, first ? std::move(first) : NewIteration());
}

std::unique_ptr<IterationState> FrameState::TakeIteration0() {
  std::unique_ptr<IterationState>& live = iterations_[0];
  if (live) return std::move(live);
  if (spare_.empty()) return nullptr;
  std::unique_ptr<IterationState> state = std::move(spare_.back());
  spare_.pop_back();
  return state;
}

IterationState* FrameState::GetIteration(int64_t iter) const {
  return iterations_[static_cast<size_t>(iter) & ring_mask_].get();
}

void FrameState::SetIteration(int64_t iter, std::unique_ptr<IterationState> state) {
  auto& slot = iterations_[static_cast<size_t>(iter) & ring_mask_];
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
  const NodeItem* nodes = nodes_->data();
  int* pending_counts = state->pending.data();
  int* dead_counts = state->dead_count.data();
  for (const EdgeItem& e : item->out_edges) {
    const int id = e.dst_pending_id;
    const bool is_control = e.src_output == kControlSlot;
    const bool has_value = !is_dead && !is_control && outputs != nullptr &&
                           outputs[e.src_output].has_value;
    bool dst_ready = false, dst_dead = false, need_input = false;
    int& pending = pending_counts[id];
    if (e.dst_is_merge) {
      if (is_control) {
        pending -= 2;
        dst_dead = dead_counts[id] == nodes[e.dst_id].num_data_inputs;
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
        const int dead = ++dead_counts[id];
        dst_dead = dead == nodes[e.dst_id].num_data_inputs || item->is_enter;
        dst_ready = pending == 1 && dst_dead;
      }
    } else {
      if (is_control ? is_dead : !has_value) ++dead_counts[id];
      dst_dead = dead_counts[id] > 0;
      dst_ready = --pending == 0;
      need_input = has_value;
    }
    if (need_input) {
      TensorValue& slot = state->inputs[e.dst_slot];
      if (may_move && e.last_use)
        slot = std::move(outputs[e.src_output]);
      else
        slot = outputs[e.src_output];
    }
    if (dst_ready) {
      const NodeItem* dst = &nodes[e.dst_id];
      if (dst->is_control_trigger) dst_dead = false;
      ready->push_back(TaggedNode{dst, this, iter, dst_dead});
      state->outstanding_ops++;
    }
  }
}

void FrameState::ActivateNodesConcurrently(const NodeItem* item, bool is_dead,
                                           TensorValue* outputs, ReadyQueue* ready) {
  IterationState* state = GetIteration(0);
  const NodeItem* nodes = nodes_->data();
  int* pending_counts = state->pending.data();
  int* dead_counts = state->dead_count.data();
  for (const EdgeItem& e : item->out_edges) {
    const int id = e.dst_pending_id;
    const bool is_control = e.src_output == kControlSlot;
    const bool has_value = !is_dead && !is_control && outputs[e.src_output].has_value;
    const bool edge_dead = is_control ? is_dead : !has_value;
    if (has_value) {
      // Each slot has one producer; the consumer reads it only after the
      // release below made it ready.
      TensorValue& slot = state->inputs[e.dst_slot];
      if (e.last_use)
        slot = std::move(outputs[e.src_output]);
      else
        slot = outputs[e.src_output];
    }
    bool dst_dead;
    if (e.dst_single_input) {
      dst_dead = edge_dead;
    } else {
      // Deadness is counted before the pending count drops, so whichever
      // thread sees zero also sees every dead input.
      if (edge_dead) __atomic_add_fetch(&dead_counts[id], 1, __ATOMIC_RELAXED);
      if (__atomic_sub_fetch(&pending_counts[id], 1, __ATOMIC_ACQ_REL) != 0) continue;
      dst_dead = __atomic_load_n(&dead_counts[id], __ATOMIC_RELAXED) > 0;
    }
    const NodeItem* dst = &nodes[e.dst_id];
    if (dst->is_control_trigger) dst_dead = false;
    ready->push_back(TaggedNode{dst, this, 0, dst_dead});
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
    auto& slot = iterations_[static_cast<size_t>(current) & ring_mask_];
    spare_.push_back(std::move(slot));
    --num_outstanding_iterations;
    ++current;
    if (!next_iter_roots.empty()) IncrementIteration(ready);
  }
  return IsFrameDone();
}

}  // namespace af
