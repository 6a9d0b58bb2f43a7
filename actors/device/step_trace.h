// The trace of one partition's step on one device: the executor's per-node
// times go into a buffer sized before the step starts (no allocation while
// nodes run, unless a loop runs nodes more often than the graph has nodes),
// and become TensorFlow's DeviceStepStats once the step is over. Only traced
// steps (and the device's measured runs) create one. No CAF here.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "proto/step_stats.pb.h"
#include "runtime/executor.h"
#include "runtime/thread_pool.h"

namespace af {

class NodeTimingBuffer {
 public:
  struct Entry {
    NodeTiming timing;
    int pool_thread = -1;  // index in the device's pool, -1 for other threads
  };

  // `capacity`: how many timings fit without locking (the graph's node
  // ids); `pool` (may be null) names the device's own threads.
  NodeTimingBuffer(int capacity, const ThreadPool* pool);
  NodeTimingBuffer(const NodeTimingBuffer&) = delete;
  NodeTimingBuffer& operator=(const NodeTimingBuffer&) = delete;

  // From any executor thread, while the step runs.
  void Add(const NodeTiming& timing);
  // After the step is done: every timing, in arrival order.
  std::vector<Entry> Take();

 private:
  std::vector<Entry> entries_;
  std::atomic<size_t> next_{0};
  std::mutex overflow_mu_;  // guards overflow_ (timings past entries_' capacity)
  std::vector<Entry> overflow_;
  const ThreadPool* pool_;
};

// Wall-clock nanoseconds since the Unix epoch of a steady-clock reading
// (NodeTiming's clock). One offset per process, measured once, so that the
// devices of one process line up exactly; each process uses its own.
int64_t SteadyToWallNanos(int64_t steady_ns);

// "<node> = <op>(<input>, ...)"; a transfer names its rendezvous tensor and
// its peer device instead, as TensorFlow does, so that a trace can pair them:
// "<node> = _Send(<tensor_name> @<recv_device>)",
// "<node> = _Recv(<tensor_name> @<send_device>)".
std::string TimelineLabel(const Node& node);

// One NodeExecStats per timing (sorted by start), wall-clock times, thread
// ids and names. Timings of nodes `graph` does not know are skipped.
void BuildDeviceStepStats(const std::string& device, const Graph& graph,
                          const std::vector<NodeTimingBuffer::Entry>& timings,
                          tensorflow::DeviceStepStats* out);

}  // namespace af
