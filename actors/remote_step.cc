#include "actors/remote_step.h"

#include <atomic>
#include <optional>
#include <random>

#include "actors/completion.h"
#include "actors/local_step.h"
#include "actors/transport/lane_replies.h"
#include "actors/transport/wire_codec.h"
#include "actors/worker/data_plane.h"
#include "actors/worker/direct_steps.h"
#include "actors/worker/step_registry.h"
#include "core/hop_trace.h"
#include "core/net/lane_message.h"
#include "core/net/lane_writer.h"
#include "runtime/executor.h"

namespace af::actors {
namespace {

// Remote workers remember step ids across all their clients: these start
// at a random value per process, as a master's do.
std::atomic<int64_t> g_next_step_id = [] {
  std::random_device rd;
  const uint64_t r = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  return static_cast<int64_t>(r >> 2);
}();

std::atomic<uint64_t> g_steps_run{0};

// How long an aborted step's own partitions get to notice, past the
// deadline, before the caller is answered anyway.
constexpr auto kAbortGrace = std::chrono::milliseconds(500);

}  // namespace

// One step in flight: shared with the reply callbacks (reader threads) and
// the local partitions' end, which hold it weakly.
struct RemoteStepRunner::Running {
  int64_t step_id = 0;
  std::shared_ptr<StepContext> step;
  std::shared_ptr<DataPlane> plane;
  Completion done;
  std::mutex mu;                     // guards the fields below
  std::vector<std::string> sent_to;  // lanes that got their RunGraph
  std::vector<uint64_t> correlations;
  std::vector<wire::RunGraphResponse> responses;  // parallel to the plan's remotes
  int pending = 0;
  Status error;
  bool remotes_aborted = false;

  void OneDone() {
    std::lock_guard<std::mutex> lock(mu);
    if (--pending == 0) done.Notify();
  }
  // The first failure ends the step: here, on every remote worker, and for
  // the caller at once.
  void Fail(const Status& why) {
    std::vector<std::string> targets;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!error.ok()) return;
      error = why;
      if (!remotes_aborted) {
        remotes_aborted = true;
        targets = sent_to;
      }
    }
    step->Abort(why);
    net::LanePrefix prefix;
    prefix.kind = net::LaneKind::kAbortStep;
    prefix.correlation = static_cast<uint64_t>(why.code());
    prefix.step_id = step_id;
    for (const std::string& address : targets)
      (void)plane->SendMessage(address, prefix, why.message());
    done.Notify();
  }
};

bool RemoteStepRunner::TryRun(const std::string& key,
                              const std::vector<std::pair<std::string, Tensor>>& feeds,
                              size_t num_fetches, Clock::time_point deadline,
                              std::vector<Tensor>* outputs, Status* status) {
  std::shared_ptr<const LocalPlan> plan = plans_->Find(key);
  if (plan == nullptr || plan->remotes.empty() || plan->feeds.size() != feeds.size() ||
      plan->remote_feeds.size() != feeds.size() || plan->fetches.size() != num_fetches ||
      plan->remote_fetches.size() != num_fetches) {
    return false;
  }
  std::shared_ptr<const LocalDirectPath> path = path_->Get();
  if (path == nullptr || path->plane == nullptr || !path->plane->direct()) return false;
  std::shared_ptr<const RemoteSender> router = path->direct->Router(plan->session_id);
  if (router == nullptr) return false;
  for (const LocalPlan::Remote& remote : plan->remotes) {
    if (!path->plane->Ready(remote.lane_address)) {
      path->plane->Prepare(remote.lane_address);
      return false;
    }
  }
  const size_t n = plan->partitions.size();
  std::vector<LocalPartition> parts;
  if (!FindPlanPartitions(*plan, *partitions_, &parts)) return false;
  if (Clock::now() >= deadline) {
    *status = errors::DeadlineExceeded("Run: the deadline passed before the step started");
    return true;
  }

  const int64_t step_id = g_next_step_id.fetch_add(1, std::memory_order_relaxed);
  HopTrace::Mark(step_id, Hop::kRunStart);
  Status refused;
  std::shared_ptr<StepContext> step =
      path->registry->Claim(step_id, plan->session_id, "this process", &refused);
  if (step == nullptr) {
    *status = refused;
    return true;
  }
  g_steps_run.fetch_add(1, std::memory_order_relaxed);
  auto run = std::make_shared<Running>();
  run->step_id = step_id;
  run->step = step;
  run->plane = path->plane;
  run->responses.resize(plan->remotes.size());
  run->pending = static_cast<int>(plan->remotes.size()) + (n > 0 ? 1 : 0);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!closed_.ok()) {
      *status = closed_;
      path->registry->Finish(step_id);
      return true;
    }
    running_.insert(run);
  }
  auto finish = [&](const Status& s) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      running_.erase(run);
    }
    std::vector<uint64_t> correlations;
    {
      std::lock_guard<std::mutex> lock(run->mu);
      correlations = run->correlations;
    }
    for (uint64_t c : correlations) LaneReplies::Global().Forget(c);
    path->registry->Finish(step_id);
    *status = s;
    HopTrace::Mark(step_id, Hop::kRunEnd);
    return true;
  };

  // The remote workers' requests, their feeds in place.
  std::vector<wire::RunGraphRequest> requests(plan->remotes.size());
  for (size_t r = 0; r < plan->remotes.size(); ++r) {
    const LocalPlan::Remote& remote = plan->remotes[r];
    wire::RunGraphRequest& req = requests[r];
    req.session_id = plan->session_id;
    req.incarnation = remote.incarnation;
    req.step_id = step_id;
    req.partitions.resize(remote.handles.size());
    for (size_t p = 0; p < remote.handles.size(); ++p) {
      req.partitions[p].handle = remote.handles[p];
      req.partitions[p].args.resize(remote.num_args[p]);
    }
  }
  std::vector<CallFrame> frames = PlanFrames(*plan, feeds);
  for (size_t f = 0; f < feeds.size(); ++f) {
    const LocalPlan::RemotePlace& there = plan->remote_feeds[f];
    if (there.remote >= 0) {
      requests[there.remote].partitions[there.partition].args[there.index] = feeds[f].second;
    }
  }

  step->set_remote_sender(router);
  std::weak_ptr<Running> weak = run;
  if (n > 0) {
    step->Start(std::move(frames), [weak] {
      std::shared_ptr<Running> r = weak.lock();
      if (r == nullptr) return;
      if (Status s = r->step->status(); !s.ok()) r->Fail(s);
      r->OneDone();
    });
  }
  // Requests first: a remote partition waiting for our tensors is started
  // before they come. Requests and the feeds our partitions send while
  // starting leave together when the batch ends.
  std::optional<net::LaneWriter::Batch> batch(std::in_place, path->plane->lane());
  for (size_t r = 0; r < requests.size(); ++r) {
    const LocalPlan::Remote& remote = plan->remotes[r];
    const uint64_t correlation =
        LaneReplies::Global().Register([weak, r](wire::RunGraphResponse& response) {
          std::shared_ptr<Running> running = weak.lock();
          if (running == nullptr) return;
          if (Status s = wire::FromWire(response.status); !s.ok()) running->Fail(s);
          {
            std::lock_guard<std::mutex> lock(running->mu);
            running->responses[r] = std::move(response);
          }
          running->OneDone();
        });
    {
      std::lock_guard<std::mutex> lock(run->mu);
      run->correlations.push_back(correlation);
    }
    std::string body = wire::EncodeRunGraphRequest(requests[r]);
    net::LanePrefix prefix;
    prefix.kind = net::LaneKind::kRunGraph;
    prefix.correlation = correlation;
    prefix.step_id = step_id;
    Status sent =
        body.size() > net::kMaxLaneBodyBytes
            ? errors::ResourceExhausted("Run: the feeds for ", remote.task, " total ", body.size(),
                                        " bytes, more than a lane message "
                                        "carries")
            : path->plane->SendMessage(remote.lane_address, prefix, body);
    if (!sent.ok()) {
      run->Fail(sent.WithContext("Run (step " + std::to_string(step_id) + "): " + remote.task));
      break;
    }
    std::lock_guard<std::mutex> lock(run->mu);
    run->sent_to.push_back(remote.lane_address);
  }
  bool started = false;
  {
    std::lock_guard<std::mutex> lock(run->mu);
    started = run->error.ok();
  }
  if (started && n > 0) {
    RunPartitions(step, parts);
  } else if (n > 0) {
    // Never started: nothing of ours will end it.
    step->Abort(run->error);
  }
  HopTrace::Mark(step_id, Hop::kPartitionsStarted);
  batch.reset();

  if (!run->done.WaitUntil(deadline)) {
    run->Fail(errors::DeadlineExceeded("Run (step ", step_id,
                                       "): the step did not finish before the deadline"));
    (void)run->done.WaitUntil(Clock::now() + kAbortGrace);
  }
  Status failed;
  std::vector<wire::RunGraphResponse> responses;
  {
    std::lock_guard<std::mutex> lock(run->mu);
    failed = run->error;
    if (failed.ok()) responses = std::move(run->responses);  // all replies are in
  }
  if (!failed.ok()) return finish(failed);

  std::vector<std::vector<Tensor>> retvals(n);
  for (size_t i = 0; i < n; ++i) {
    if (Status s = step->ConsumeRetvals(static_cast<int>(i), &retvals[i]); !s.ok()) {
      return finish(s);
    }
  }
  outputs->resize(num_fetches);
  for (size_t f = 0; f < num_fetches; ++f) {
    const int from_feed = plan->fetch_from_feed[f];
    if (from_feed >= 0) {
      (*outputs)[f] = feeds[from_feed].second;
      continue;
    }
    const LocalPlan::RemotePlace& there = plan->remote_fetches[f];
    if (there.remote >= 0) {
      auto& parts_back = responses[there.remote].partitions;
      if (there.partition >= static_cast<int>(parts_back.size()) ||
          there.index >= static_cast<int>(parts_back[there.partition].retvals.size())) {
        return finish(errors::Internal("Run: ", plan->remotes[there.remote].task,
                                       " returned too few values for step ", step_id));
      }
      (*outputs)[f] = std::move(parts_back[there.partition].retvals[there.index]);
      continue;
    }
    const LocalPlan::Place& place = plan->fetches[f];
    (*outputs)[f] = std::move(retvals[place.partition][place.index]);
  }
  return finish(Status::OK());
}

uint64_t RemoteStepRunner::StepsRun() { return g_steps_run.load(); }

void RemoteStepRunner::AbortAll(const Status& why, bool close) {
  std::vector<std::shared_ptr<Running>> running;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (close) closed_ = why;
    running.assign(running_.begin(), running_.end());
  }
  for (const auto& run : running) run->Fail(why);
}

}  // namespace af::actors
