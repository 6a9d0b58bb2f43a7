// Executor: runs one partition graph on one device, step after step.
//
// Built once per partition (kernels created, edges and pending counts laid
// out); each RunAsync gets fresh per-step state. Nodes become ready when
// their pending inputs reach zero; cheap kernels run inline on the thread
// that made them ready, expensive ones on the device's pool, and async
// kernels (Recv, queue ops) finish through a continuation so that no thread
// blocks. Frames and iterations implement Enter/Exit/NextIteration loops;
// dead tensors flow from untaken Switch branches. An error aborts the step
// (rendezvous and cancellation manager) and is reported once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "core/device_base.h"
#include "core/status.h"
#include "graph/graph.h"

namespace af {

class CallFrame;
class KernelSegment;
class CancellationManager;
class Rendezvous;
class ResourceMgr;

// Per-node timing for traces and the cost model.
struct NodeTiming {
  int node_id = 0;
  int64_t start_ns = 0;  // steady clock
  int64_t end_ns = 0;
  int thread_id = 0;     // small integer naming the executing thread
};

class Executor {
 public:
  struct Args {
    int64_t step_id = 0;
    Rendezvous* rendezvous = nullptr;
    CancellationManager* cancellation_manager = nullptr;
    CallFrame* call_frame = nullptr;
    ResourceMgr* resource_manager = nullptr;
    // The device's allocator charged to the session's memory budget; null:
    // the device's own.
    Allocator* budgeted_allocator = nullptr;
    // When set, every executed node is reported (from any thread).
    std::function<void(const NodeTiming&)> timing_sink;
  };
  using DoneCallback = std::function<void(const Status&)>;

  virtual ~Executor() = default;
  // Runs a step; `done` is called exactly once, from any thread, after all
  // of the step's nodes finished or were abandoned on error.
  virtual void RunAsync(const Args& args, DoneCallback done) = 0;
  // Convenience for tests and tools: runs and waits.
  Status Run(const Args& args);
  virtual const Graph& graph() const = 0;
};

// Creates kernels for every node of `graph` on `device` (errors name the
// node). The executor keeps the graph. With a segment (one per session and
// device), stateful kernels are shared with the session's other plans.
Status NewLocalExecutor(DeviceBase* device, std::unique_ptr<Graph> graph,
                        std::unique_ptr<Executor>* out, KernelSegment* segment = nullptr);

}  // namespace af
