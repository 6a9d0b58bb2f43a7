// The sync chief's aggregation loop (TensorFlow's chief_queue_runner): a
// thread of the chief's process that runs the sync_op step again and again
// — take m gradients from every accumulator, apply their average, advance
// the global step, hand out n tokens — while the chief's own training steps
// go on beside it. It runs in a session of its own, so that Stop can close
// that session and so cancel a take that waits, without touching the
// session the chief trains in.
//
// Elastic (issue 11 item 4): an aggregation that waits longer than
// aggregation_timeout_ms is withdrawn (takes take nothing when withdrawn);
// the chief then re-aligns the accumulators' global step with the
// variable's (a take served just before the deadline moved its own), reads
// how many gradients each accumulator holds and, once the training has made
// an update, continues with m and n lowered to what arrived, with a
// warning: a lost worker's replacement had the whole timeout to come back.
// While shrunk, the chief reads after each update which workers made a
// step since the shrink (SyncReplicasGraph::last_steps); when more did than
// n counts (a replacement joined), m and n grow back, by as many, up to
// what they were configured to.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/client_session.h"
#include "client/coordination/protocol_factory.h"
#include "client/coordination/sync_replicas_graph.h"

namespace af {

class ChiefAggregationLoop {
 public:
  struct Progress {
    int64_t updates = 0;
    int32_t replicas_to_aggregate = 0;
    int32_t total_num_replicas = 0;
  };
  // Called after every change of progress (an update, a shrink), on the
  // loop's thread.
  using ProgressCallback = std::function<void(const Progress&)>;

  // `name` labels log lines ("sync", "backup:1").
  ChiefAggregationLoop(std::string name, SyncReplicasGraph graph, ProtocolOptions options,
                       ProgressCallback on_progress);
  ~ChiefAggregationLoop();  // stops
  ChiefAggregationLoop(const ChiefAggregationLoop&) = delete;
  ChiefAggregationLoop& operator=(const ChiefAggregationLoop&) = delete;

  // Opens the loop's session on `scope`'s graph with `session_options` and
  // starts the thread aggregating m of n. `resumed`: the training is past
  // its first step (a restarted chief, a recovery), so the workers are
  // already running and the first aggregation waits only briefly before
  // it re-aligns the accumulators and looks at what they hold.
  Status Start(const Scope& scope, const SessionOptions& session_options, int32_t m, int32_t n,
               bool resumed = false);
  // Closes the loop's session (a waiting take is withdrawn) and joins the
  // thread. Idempotent.
  void Stop();

 private:
  void Run();
  // After a failed aggregation: re-align and maybe shrink. False to stop.
  bool Recover(const Status& failure, int64_t waited_ms);
  // While shrunk, after an update: grows m and n by the workers that came back.
  void MaybeGrow();
  // Each worker's last local step (empty on a failed read).
  std::vector<int64_t> ReadLastSteps();
  void Log(const std::string& line) const;
  // Waits up to `ms` unless stopped; false when stopped.
  bool Pause(int64_t ms);

  const std::string name_;
  const SyncReplicasGraph graph_;
  const ProtocolOptions options_;
  const ProgressCallback on_progress_;
  std::unique_ptr<ClientSession> session_;
  std::thread thread_;
  Progress progress_;  // the loop's thread only
  int32_t configured_m_ = 0, configured_n_ = 0;  // set by Start
  std::vector<int64_t> last_steps_at_shrink_;   // the loop's thread only
  int64_t waits_logged_ = 0;
  bool resumed_ = false;  // set by Start
  bool resume_tokens_given_ = false;  // the loop's thread only

  std::mutex mu_;  // guards stopping_ and loop_exited_
  std::condition_variable stopped_cv_;
  bool stopping_ = false;
  bool loop_exited_ = false;  // Run returned (under mu_)
};

}  // namespace af
