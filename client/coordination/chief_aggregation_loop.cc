#include "client/coordination/chief_aggregation_loop.h"
#include "core/logging.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <utility>

namespace af {
namespace {

// The chores between aggregations (re-align, count) are quick; they get a
// deadline of their own so a lost ps task cannot hold the loop.
constexpr int64_t kChoreTimeoutMs = 10000;
// Retry pace after an aggregation failed for another reason than its
// deadline (a ps task restarting: UNAVAILABLE, ABORTED).
constexpr int64_t kRetryAfterMs = 1000;
// The first aggregation of a resumed loop: the workers that survived a
// recovery resend at once, and one whose first gradients were dropped as
// stale by an accumulator not yet re-aligned waits for tokens that only
// Recover hands out.
constexpr int64_t kResumedFirstWaitMs = 3000;

RunOptions WithTimeout(int64_t ms) {
  RunOptions options;
  options.timeout_ms = ms;
  return options;
}

}  // namespace

ChiefAggregationLoop::ChiefAggregationLoop(std::string name, SyncReplicasGraph graph,
                                           ProtocolOptions options, ProgressCallback on_progress)
    : name_(std::move(name)),
      graph_(std::move(graph)),
      options_(options),
      on_progress_(std::move(on_progress)) {}

ChiefAggregationLoop::~ChiefAggregationLoop() { Stop(); }

Status ChiefAggregationLoop::Start(const Scope& scope, const SessionOptions& session_options,
                                   int32_t m, int32_t n, bool resumed) {
  Stop();
  resumed_ = resumed;
  resume_tokens_given_ = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = false;
    loop_exited_ = false;
  }
  progress_ = Progress{0, m, n};
  configured_m_ = m;
  configured_n_ = n;
  last_steps_at_shrink_.clear();
  waits_logged_ = 0;
  session_ = std::make_unique<ClientSession>(scope, session_options);
  if (!session_->status().ok()) {
    Status s = session_->status();
    session_.reset();
    return s.WithContext("coordination protocol '" + name_ + "': the chief's aggregation session");
  }
  if (on_progress_) on_progress_(progress_);
  thread_ = std::thread([this] { Run(); });
  return Status::OK();
}

void ChiefAggregationLoop::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  stopped_cv_.notify_all();
  // An aggregation that has just released the workers is about to return
  // and count its update: give it a moment, so that the statistics never
  // miss an update that happened. One still waiting for gradients is then
  // cancelled by closing the session; its takes are withdrawn and take
  // nothing.
  if (thread_.joinable()) {
    std::unique_lock<std::mutex> lock(mu_);
    stopped_cv_.wait_for(lock, std::chrono::milliseconds(200), [this] { return loop_exited_; });
  }
  if (session_) (void)session_->session()->Close();
  if (thread_.joinable()) thread_.join();
  session_.reset();
}

bool ChiefAggregationLoop::Pause(int64_t ms) {
  std::unique_lock<std::mutex> lock(mu_);
  return !stopped_cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stopping_; });
}

void ChiefAggregationLoop::Log(const std::string& line) const {
  AF_LOG(INFO) << name_ << " chief: " << line;
}

void ChiefAggregationLoop::Run() {
  struct ExitNotice {
    ChiefAggregationLoop* loop;
    ~ExitNotice() {
      {
        std::lock_guard<std::mutex> lock(loop->mu_);
        loop->loop_exited_ = true;
      }
      loop->stopped_cv_.notify_all();
    }
  } notice{this};
  const int64_t first_wait_ms =
      resumed_ ? std::min(kResumedFirstWaitMs, options_.aggregation_timeout_ms)
               : options_.aggregation_timeout_ms;
  for (;;) {
    const int64_t wait_ms =
        progress_.updates == 0 ? first_wait_ms : options_.aggregation_timeout_ms;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
    }
    ClientSession::FeedType feeds{
        {graph_.num_required, Input::Initializer(progress_.replicas_to_aggregate)},
        {graph_.num_tokens, Tensor::FromVector<int32_t>({progress_.total_num_replicas})}};
    Status s = session_->Run(WithTimeout(wait_ms), feeds, {}, {graph_.sync_op}, nullptr);
    if (s.ok()) {
      ++progress_.updates;
      waits_logged_ = 0;
      if (progress_.total_num_replicas < configured_n_) MaybeGrow();
      if (on_progress_) on_progress_(progress_);
      continue;
    }
    if (!Recover(s, wait_ms)) return;
  }
}

bool ChiefAggregationLoop::Recover(const Status& failure, int64_t waited_ms) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return false;
  }
  if (failure.code() != Code::DEADLINE_EXCEEDED) {
    Log("an aggregation failed (" + failure.ToString() + "); trying again");
    return Pause(kRetryAfterMs);
  }
  // A take served just before the deadline advanced its accumulator alone:
  // set every accumulator back to the variable's step (its gradients are
  // lost, the others' stay).
  const RunOptions chore = WithTimeout(kChoreTimeoutMs);
  Status s = session_->Run(chore, {}, {}, {graph_.chief_init}, nullptr);
  std::vector<Tensor> held;
  if (s.ok()) s = session_->Run(chore, {}, graph_.num_accumulated, {}, &held);
  if (!s.ok()) {
    Log("could not re-align the accumulators after a timed-out aggregation (" + s.ToString() +
        "); trying again");
    return Pause(kRetryAfterMs);
  }
  int32_t lo = std::numeric_limits<int32_t>::max(), hi = 0;
  for (const Tensor& t : held) {
    lo = std::min(lo, t.scalar<int32_t>());
    hi = std::max(hi, t.scalar<int32_t>());
  }
  const int32_t m = progress_.replicas_to_aggregate;
  const std::string waited = "waited " + std::to_string(waited_ms) +
                             " ms for " + std::to_string(m) + " gradients per variable, " +
                             "the accumulators hold " + std::to_string(lo) +
                             (hi != lo ? ".." + std::to_string(hi) : std::string());
  // Some takes were served before the deadline and others not (a worker
  // died between its applies): those variables lost the step's gradients,
  // and the workers wait for tokens, so no update can complete from what is
  // held. Hand out the step's tokens again: the workers left send new
  // gradients (one of them twice, for the lost worker's token), the
  // accumulators keep m each, and the next aggregation completes.
  const bool split = lo == 0 && hi > 0;
  // A loop restarted after a recovery meets the same deadlock in other
  // shapes: the take interrupted by the failure was served on some ps
  // tasks, and workers that resumed before chief_init saw their gradients
  // dropped as stale by accumulators still counting the lost step. They
  // wait for tokens too, so the first aggregation of a resumed loop that
  // cannot complete hands them out, once (a restarted chief whose workers
  // are really gone would otherwise fill the queue with tokens).
  const bool resumed_short = resumed_ && progress_.updates == 0 && lo < m && !resume_tokens_given_;
  if (resumed_short) resume_tokens_given_ = true;
  if (split || resumed_short) {
    s = session_->Run(
        chore, {{graph_.num_tokens, Tensor::FromVector<int32_t>({progress_.total_num_replicas})}},
        {}, {graph_.retry_step}, nullptr);
    Log(waited + (split ? "; the takes were served for some variables only: "
                        : "; the first aggregation since the restart is short: ") +
        (s.ok() ? "handed out the step's tokens again"
                : "could not hand out tokens (" + s.ToString() + ")"));
    return s.ok() ? true : Pause(kRetryAfterMs);
  }
  // Before the first update the workers may still be starting; with
  // nothing held nobody is there to shrink to.
  if (!options_.shrink_on_timeout || progress_.updates == 0 || lo == 0 || lo >= m) {
    if (waits_logged_++ < 3) Log(waited + "; waiting again");
    return true;
  }
  const int32_t lost = m - lo;
  // Who was there at the shrink: a worker that steps after it is back.
  last_steps_at_shrink_ = ReadLastSteps();
  progress_.replicas_to_aggregate = lo;
  progress_.total_num_replicas = std::max(progress_.total_num_replicas - lost, lo);
  Log("warning: " + waited + "; continuing with " + std::to_string(lo) + " of " +
      std::to_string(progress_.total_num_replicas) + " replicas (" + std::to_string(lost) +
      " worker(s) lost?)");
  if (on_progress_) on_progress_(progress_);
  return true;
}

std::vector<int64_t> ChiefAggregationLoop::ReadLastSteps() {
  std::vector<Tensor> out;
  Status s = session_->Run(WithTimeout(kChoreTimeoutMs), {}, {graph_.last_steps}, {}, &out);
  if (!s.ok() || out.size() != 1) return {};
  const Tensor& t = out[0];
  return std::vector<int64_t>(t.data<int64_t>(), t.data<int64_t>() + t.NumElements());
}

void ChiefAggregationLoop::MaybeGrow() {
  const std::vector<int64_t> now = ReadLastSteps();
  if (now.empty()) return;  // tried again after the next update
  if (last_steps_at_shrink_.size() != now.size()) {
    last_steps_at_shrink_ = now;  // the read at the shrink failed: count from here
    return;
  }
  int32_t stepped = 0;
  for (size_t i = 0; i < now.size(); ++i) stepped += now[i] > last_steps_at_shrink_[i] ? 1 : 0;
  const int32_t n = progress_.total_num_replicas;
  if (stepped <= n) return;
  const int32_t new_n = std::min(configured_n_, stepped);
  const int32_t new_m =
      std::min(configured_m_, progress_.replicas_to_aggregate + (new_n - n));
  // The update just made handed out n tokens: the newcomers get theirs for
  // this step now, or the next aggregation would wait for gradients that
  // no token lets anyone send.
  Status s = session_->Run(
      WithTimeout(kChoreTimeoutMs),
      {{graph_.num_tokens, Tensor::FromVector<int32_t>({new_n - n})}}, {}, {graph_.retry_step},
      nullptr);
  if (!s.ok()) {
    Log("could not hand out tokens to the workers that came back (" + s.ToString() +
        "); trying after the next update");
    return;
  }
  Log(std::to_string(stepped) + " workers stepped since the shrink: continuing with " +
      std::to_string(new_m) + " of " + std::to_string(new_n) + " replicas (was " +
      std::to_string(progress_.replicas_to_aggregate) + " of " + std::to_string(n) + ")");
  progress_.replicas_to_aggregate = new_m;
  progress_.total_num_replicas = new_n;
}

}  // namespace af
