#include "runtime/executor_state.h"

#include <chrono>
#include <thread>

#include "core/attr_value_util.h"
#include "core/cancellation.h"
#include "core/rendezvous.h"

namespace af {

namespace {

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Small, stable ids for threads in traces.
int CurrentThreadTraceId() {
  static std::atomic<int> next{0};
  thread_local int id = next.fetch_add(1);
  return id;
}

uint64_t ChildFrameId(uint64_t parent_id, int64_t parent_iter, const std::string& name) {
  uint64_t h = parent_id * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(parent_iter) + 1;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
  return h == 0 ? 1 : h;
}

}  // namespace

// An async kernel in flight: owns what the kernel's context points into.
struct ExecutorState::AsyncNode {
  TaggedNode node;
  TensorValue* inputs = nullptr;
  std::vector<TensorValue> outputs;
  OpKernelContext::Params params;
  std::unique_ptr<OpKernelContext> ctx;
  int64_t start_ns = 0;
};

ExecutorState::ExecutorState(const ExecutorItems* items, DeviceBase* device,
                             const Executor::Args& args, Executor::DoneCallback done,
                             IterationStatePool* root_states)
    : items_(items),
      device_(device),
      args_(args),
      done_(std::move(done)),
      root_states_(root_states) {
  pool_ = device_->intra_op_pool();
  if (pool_ != nullptr) {
    ThreadPoolInterface* pool = pool_;
    runner_ = [pool](std::function<void()> fn) { pool->Schedule(std::move(fn)); };
  } else {
    runner_ = [](std::function<void()> fn) { fn(); };
  }
  const FrameInfo& root = *items_->frames[0];
  root_frame_ = std::make_unique<FrameState>(
      &root, &items_->nodes, 0, nullptr, 0,
      root_states_ != nullptr ? root_states_->Take(root) : nullptr);
  root_iteration_ = root_frame_->GetIteration(0);
}

ExecutorState::~ExecutorState() = default;

void ExecutorState::Start() {
  if (items_->roots.empty()) {
    Finish();
    return;
  }
  ReadyQueue inline_ready;
  inline_ready.reserve(items_->roots.size());
  IterationState* iteration = root_frame_->GetIteration(0);
  for (const NodeItem* root : items_->roots)
    inline_ready.push_back(TaggedNode{root, root_frame_.get(), 0, false});
  iteration->outstanding_ops = static_cast<int>(inline_ready.size());
  num_outstanding_ops_.store(static_cast<int64_t>(inline_ready.size()));
  // Expensive roots go to the pool like any other ready node.
  ReadyQueue cheap;
  ScheduleReady(&inline_ready, &cheap, true);
  RunQueue(&cheap);
}

// Nodes one RunQueue call runs before it hands the rest to the pool: a
// few milliseconds of cheap nodes, above the steps of most graphs that are
// not loops (a hand-off costs a step a thread switch).
constexpr size_t kInlineNodeBudget = 65536;

void ExecutorState::FillParams(const TaggedNode& node, TensorValue* inputs,
                               TensorValue* outputs, OpKernelContext::Params* params) {
  params->step_id = args_.step_id;
  params->device = device_;
  params->op_kernel = node.item->kernel;
  params->inputs = inputs;
  params->outputs = outputs;
  params->is_input_dead = node.is_dead;
  params->frame_iter = FrameAndIter{node.frame->frame_id, node.iter};
  params->rendezvous = args_.rendezvous;
  params->cancellation_manager = args_.cancellation_manager;
  params->resource_manager = args_.resource_manager;
  params->call_frame = args_.call_frame;
  params->step_resources = &step_resources_;
  params->budgeted_allocator = args_.budgeted_allocator;
  params->runner = &runner_;
}

void ExecutorState::RunQueue(ReadyQueue* inline_ready, int64_t deferred) {
  ReadyQueue ready;
  std::vector<TensorValue> outputs;
  size_t head = 0;
  size_t ran = 0;
  while (head < inline_ready->size()) {
    // The queue is first in, first out; dropping what already ran keeps it
    // the size of the frontier rather than of the graph.
    if (head >= 1024 && head * 2 >= inline_ready->size()) {
      inline_ready->erase(inline_ready->begin(),
                          inline_ready->begin() + static_cast<std::ptrdiff_t>(head));
      head = 0;
    }
    // A long chain of cheap nodes (a while loop) would hold the calling
    // thread, often one of the actor system's few, for as long as it runs:
    // no message (an abort, a heartbeat, a stop) could reach this server.
    // Past a budget the rest continues on the device's pool, in a fresh
    // queue (this one only grows while the loop runs).
    if (ran >= kInlineNodeBudget && pool_ != nullptr) {
      ReadyQueue rest(inline_ready->begin() + static_cast<std::ptrdiff_t>(head),
                      inline_ready->end());
      ExecutorState* self = this;
      // The rest's nodes are outstanding: the step cannot finish (and
      // delete this state) before they run.
      pool_->Schedule([self, rest = std::move(rest)]() mutable { self->RunQueue(&rest); });
      FlushDeferred(deferred);
      return;
    }
    ++ran;
    const TaggedNode node = (*inline_ready)[head++];
    const NodeItem& item = *node.item;
    ready.clear();

    if (aborted_.load(std::memory_order_relaxed)) {
      NodeDone(Status::OK(), &ready, inline_ready, head == inline_ready->size(), &deferred);
      continue;
    }
    // A step past its deadline, whose client left or whose server stops is
    // cancelled: a runaway loop ends at its next node instead of running
    // on (the step's own status names why).
    if (args_.cancellation_manager != nullptr &&
        args_.cancellation_manager->CancelRequested()) {
      const Status cancelled = errors::Cancelled("step ", args_.step_id,
                                                 " was cancelled before node '",
                                                 item.node->name(), "' ran");
      NodeDone(cancelled, &ready, inline_ready, head == inline_ready->size(), &deferred);
      continue;
    }

    IterationState* iteration = root_iteration_;
    if (node.frame != root_frame_.get()) {
      std::lock_guard<std::mutex> lock(node.frame->mu);
      iteration = node.frame->GetIteration(node.iter);
    }
    TensorValue* inputs = iteration->inputs.data() + item.input_start;

    if (item.derefs_ref_inputs) {
      Status deref = DerefRefInputs(item, inputs);
      if (!deref.ok()) {
        for (int i = 0; i < item.num_inputs; ++i) inputs[i].Clear();
        NodeDone(deref, &ready, inline_ready, head == inline_ready->size(), &deferred);
        continue;
      }
    }

    if (item.is_async && !(node.is_dead && !item.is_transfer)) {
      LaunchAsync(node, inputs);
      continue;  // the kernel's continuation finishes the node
    }

    outputs.resize(item.num_outputs);
    for (int i = 0; i < item.num_outputs; ++i) outputs[i].Clear();
    Status status;
    if (item.is_noop && !args_.timing_sink) {
      // Nothing to compute; a dead NoOp propagates deadness the same way.
    } else if (!node.is_dead || item.is_transfer) {
      OpKernelContext::Params params;
      FillParams(node, inputs, outputs.data(), &params);
      OpKernelContext ctx(&params);
      const int64_t start = args_.timing_sink ? NowNanos() : 0;
      item.kernel->Compute(&ctx);
      if (args_.timing_sink) ReportTiming(item, start);
      if (item.num_outputs > 0 || !ctx.status().ok())
        status = CheckOutputs(item, ctx, outputs.data(), node.is_dead);
    }
    for (int i = 0; i < item.num_inputs; ++i) inputs[i].Clear();
    if (status.ok()) PropagateOutputs(node, outputs.data(), &ready);
    NodeDone(status, &ready, inline_ready, head == inline_ready->size(), &deferred);
  }
  FlushDeferred(deferred);
}

void ExecutorState::FlushDeferred(int64_t deferred) {
  if (deferred == 0) return;  // the state may already be gone
  if (num_outstanding_ops_.fetch_add(deferred) + deferred == 0) Finish();
}

// A kernel taking a value gets the variable's current tensor (sharing its
// buffer), read under the variable's mutex, as TensorFlow's executor does.
Status ExecutorState::DerefRefInputs(const NodeItem& item, TensorValue* inputs) const {
  for (int i = 0; i < item.num_inputs; ++i) {
    TensorValue& v = inputs[i];
    if (v.ref == nullptr || IsRefType(item.kernel->input_type(i))) continue;
    {
      std::unique_lock<std::mutex> lock;
      if (v.ref_mu != nullptr) lock = std::unique_lock<std::mutex>(*v.ref_mu);
      if (!v.ref->IsInitialized()) {
        const auto& requested = item.node->def().input();
        return NodeStatus(item.node->def(),
                          errors::FailedPrecondition(
                              "Attempting to use uninitialized value ",
                              i < requested.size() ? requested[i] : item.node->name()));
      }
      v.tensor = *v.ref;
    }
    v.ref = nullptr;
    v.ref_mu = nullptr;
  }
  return Status::OK();
}

void ExecutorState::LaunchAsync(const TaggedNode& node, TensorValue* inputs) {
  auto* async = new AsyncNode;
  async->node = node;
  async->inputs = inputs;
  async->outputs.resize(node.item->num_outputs);
  FillParams(node, inputs, async->outputs.data(), &async->params);
  async->ctx = std::make_unique<OpKernelContext>(&async->params);
  async->start_ns = args_.timing_sink ? NowNanos() : 0;
  AsyncOpKernel* kernel = node.item->kernel->AsAsync();
  kernel->ComputeAsync(async->ctx.get(), [this, async]() {
    const NodeItem& item = *async->node.item;
    if (args_.timing_sink) ReportTiming(item, async->start_ns);
    Status status = CheckOutputs(item, *async->ctx, async->outputs.data(), async->node.is_dead);
    for (int i = 0; i < item.num_inputs; ++i) async->inputs[i].Clear();
    ReadyQueue ready;
    if (status.ok()) PropagateOutputs(async->node, async->outputs.data(), &ready);
    delete async;
    ReadyQueue inline_ready;
    int64_t deferred = 0;
    NodeDone(status, &ready, &inline_ready, true, &deferred);
    RunQueue(&inline_ready, deferred);
  });
}

Status ExecutorState::CheckOutputs(const NodeItem& item, const OpKernelContext& ctx,
                                   const TensorValue* outputs, bool is_dead) const {
  if (!ctx.status().ok()) {
    const Status& s = ctx.status();
    const std::string& name = item.node->name();
    // Kernels using ctx->NodeError() already name their node.
    if (s.message().rfind("node '" + name + "'", 0) == 0) return s;
    return ctx.NodeError(s);
  }
  if (is_dead) return Status::OK();
  for (int i = 0; i < item.num_outputs; ++i) {
    const TensorValue& v = outputs[i];
    if (!v.has_value) {
      // Switch leaves its untaken output unset and a Recv of a dead value
      // sets nothing: that is how deadness starts.
      if (item.is_switch || item.is_transfer) continue;
      return ctx.NodeError(errors::Internal("the kernel did not produce output ", i));
    }
    const DataType expected = BaseType(item.kernel->output_type(i));
    if (BaseType(v.get().dtype()) != expected)
      return ctx.NodeError(errors::Internal("output ", i, " has type ",
                                            DataTypeString(v.get().dtype()),
                                            " but the op declares ",
                                            DataTypeString(expected)));
  }
  return Status::OK();
}

void ExecutorState::ReportTiming(const NodeItem& item, int64_t start_ns) const {
  NodeTiming t;
  t.node_id = item.node->id();
  t.start_ns = start_ns;
  t.end_ns = NowNanos();
  t.thread_id = CurrentThreadTraceId();
  args_.timing_sink(t);
}

void ExecutorState::PropagateOutputs(const TaggedNode& node, TensorValue* outputs,
                                     ReadyQueue* ready) {
  const NodeItem* item = node.item;
  FrameState* frame = node.frame;
  if (!items_->has_control_flow) {
    frame->ActivateNodesConcurrently(item, node.is_dead, outputs, ready);
    return;
  }
  const int64_t iter = node.iter;
  bool frame_done = false;

  if (item->is_enter) {
    FrameState* child = FindOrCreateChildFrame(frame, iter, *item);
    {
      std::lock_guard<std::mutex> lock(child->mu);
      if (item->is_constant_enter) {
        TensorValue value = node.is_dead ? TensorValue() : outputs[0];
        child->AddLoopInvariant(item, value, ready);
      } else {
        child->ActivateNodes(item, node.is_dead, 0, outputs, true, ready);
      }
      child->num_pending_inputs--;
    }
    std::lock_guard<std::mutex> lock(frame->mu);
    frame_done = frame->DecrementOutstandingOps(iter, ready);
  } else if (item->is_exit) {
    if (node.is_dead) {
      std::lock_guard<std::mutex> lock(frame->mu);
      if (iter == frame->iteration_count) frame->dead_exits.push_back(item);
      frame_done = frame->DecrementOutstandingOps(iter, ready);
    } else {
      {
        std::lock_guard<std::mutex> lock(frame->parent->mu);
        frame->parent->ActivateNodes(item, false, frame->parent_iter, outputs, true, ready);
      }
      std::lock_guard<std::mutex> lock(frame->mu);
      frame_done = frame->DecrementOutstandingOps(iter, ready);
    }
  } else if (item->is_next_iteration) {
    std::lock_guard<std::mutex> lock(frame->mu);
    if (node.is_dead) {
      // Deadness stops here: a dead value never starts an iteration.
    } else if (iter == frame->iteration_count &&
               frame->num_outstanding_iterations == frame->info->parallel_iterations) {
      frame->next_iter_roots.emplace_back(item, std::move(outputs[0]));
    } else {
      if (iter == frame->iteration_count) frame->IncrementIteration(ready);
      frame->ActivateNodes(item, false, iter + 1, outputs, true, ready);
    }
    frame_done = frame->DecrementOutstandingOps(iter, ready);
  } else {
    std::lock_guard<std::mutex> lock(frame->mu);
    frame->ActivateNodes(item, node.is_dead, iter, outputs, true, ready);
    frame_done = frame->DecrementOutstandingOps(iter, ready);
  }
  if (frame_done && frame->parent != nullptr) DeleteFrame(frame, ready);
}

FrameState* ExecutorState::FindOrCreateChildFrame(FrameState* frame, int64_t iter,
                                                  const NodeItem& enter) {
  std::lock_guard<std::mutex> lock(mu_);
  auto key = std::make_tuple(frame, iter, enter.child_frame);
  auto it = child_frames_.find(key);
  if (it != child_frames_.end()) return it->second.get();
  auto child = std::make_unique<FrameState>(
      enter.child_frame, &items_->nodes,
      ChildFrameId(frame->frame_id, iter, enter.child_frame->name), frame, iter);
  {
    std::lock_guard<std::mutex> parent_lock(frame->mu);
    frame->GetIteration(iter)->outstanding_frame_count++;
  }
  FrameState* raw = child.get();
  child_frames_.emplace(key, std::move(child));
  return raw;
}

void ExecutorState::DeleteFrame(FrameState* frame, ReadyQueue* ready) {
  FrameState* parent = frame->parent;
  const int64_t parent_iter = frame->parent_iter;
  // One critical section: between dropping the child count and cleaning up,
  // a node finishing in the parent iteration could otherwise retire that
  // iteration (or the whole parent) first, and the cleanup here would read
  // a freed iteration or delete the parent twice.
  bool parent_done;
  {
    std::lock_guard<std::mutex> lock(parent->mu);
    for (const NodeItem* exit : frame->dead_exits)
      parent->ActivateNodes(exit, true, parent_iter, nullptr, false, ready);
    parent->GetIteration(parent_iter)->outstanding_frame_count--;
    parent_done = parent->CleanupIterations(parent_iter, ready);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    child_frames_.erase(std::make_tuple(parent, parent_iter, frame->info));
  }
  if (parent_done && parent->parent != nullptr) DeleteFrame(parent, ready);
}

void ExecutorState::NodeDone(const Status& status, ReadyQueue* ready,
                             ReadyQueue* inline_ready, bool caller_idle, int64_t* deferred) {
  if (!status.ok()) RecordError(status);
  // After an error nothing new starts; the step ends once running nodes
  // (and aborted waits) have finished.
  const int64_t num_ready =
      aborted_.load(std::memory_order_relaxed) ? 0 : static_cast<int64_t>(ready->size());
  const int64_t delta = *deferred + num_ready - 1;
  if (delta <= 0) {
    // Left too high for now: no other thread can see the count reach zero
    // while this one still owes its decrements.
    *deferred = delta;
  } else {
    // New work must be counted before another thread can run (and finish) it.
    num_outstanding_ops_.fetch_add(delta);
    *deferred = 0;
  }
  if (num_ready > 0) ScheduleReady(ready, inline_ready, caller_idle);
}

void ExecutorState::ScheduleReady(ReadyQueue* ready, ReadyQueue* inline_ready,
                                  bool caller_idle) {
  // A scheduled node may finish the step and delete this state before the
  // loop ends, so touch no member after the first hand-off.
  ThreadPoolInterface* pool = pool_;
  ExecutorState* self = this;
  const TaggedNode* keep_expensive = nullptr;
  int num_cheap = 0;
  for (const TaggedNode& node : *ready) {
    if (!node.item->is_expensive || pool == nullptr) {
      inline_ready->push_back(node);
      ++num_cheap;
      continue;
    }
    if (keep_expensive != nullptr) {
      const TaggedNode n = *keep_expensive;
      pool->Schedule([self, n] {
        ReadyQueue q{n};
        self->RunQueue(&q);
      });
    }
    keep_expensive = &node;
  }
  if (keep_expensive == nullptr) return;
  // The last expensive node stays on this thread if it has nothing else to
  // do: a hand-off would only add latency.
  if (caller_idle && num_cheap == 0) {
    inline_ready->push_back(*keep_expensive);
  } else {
    const TaggedNode n = *keep_expensive;
    pool->Schedule([self, n] {
      ReadyQueue q{n};
      self->RunQueue(&q);
    });
  }
}

void ExecutorState::RecordError(const Status& status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!status_.ok()) return;
    status_ = status;
    aborted_.store(true);
  }
  // Wake every waiting Recv and queue op of the step so it can end.
  if (args_.rendezvous != nullptr) args_.rendezvous->StartAbort(status);
  if (args_.cancellation_manager != nullptr) args_.cancellation_manager->StartCancel();
}

void ExecutorState::Finish() {
  Status status;
  {
    std::lock_guard<std::mutex> lock(mu_);
    status = status_;
  }
  // After a step that ended well every input slot was consumed, so the
  // root iteration can serve the next step as it is.
  if (status.ok() && root_states_ != nullptr) {
    std::unique_ptr<IterationState> root = root_frame_->TakeIteration0();
    if (root) root_states_->Give(std::move(root));
  }
  Executor::DoneCallback done = std::move(done_);
  delete this;
  done(status);
}

}  // namespace af
