#include "actors/runtime_handle.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <algorithm>

#include <caf/actor_system.hpp>
#include <caf/io/middleman.hpp>
#include <caf/send.hpp>

#include "actors/actor_system_holder.h"
#include "actors/client_calls.h"
#include "actors/cluster_connect.h"
#include "actors/interfaces.h"
#include "actors/local_step.h"
#include "actors/remote_step.h"
#include "actors/master/local_master.h"
#include "actors/master/master_actor.h"
#include "actors/master/remote_master.h"
#include "actors/resources/resource_factories.h"
#include "actors/worker/worker_actor.h"
#include "core/cluster_spec.h"

namespace af {
namespace {

using actors::master_actor;
using actors::worker_actor;

// How long a caller waits past its deadline for the master's own
// DEADLINE_EXCEEDED (which also aborts the step) before giving up alone.
constexpr auto kReplyGrace = std::chrono::milliseconds(500);

}  // namespace

struct RuntimeHandle::Impl {
  std::shared_ptr<caf::actor_system> system;
  worker_actor local_worker;
  master_actor master;
  std::vector<DeviceAttributes> devices;
  // Cached in-process steps run on the caller's thread (actors/local_step.h).
  std::shared_ptr<LocalPlanCache> local_plans = std::make_shared<LocalPlanCache>();
  std::shared_ptr<LocalPartitionTable> local_partitions =
      std::make_shared<LocalPartitionTable>();
  LocalStepRunner local_runner{local_plans, local_partitions};
  // Cached steps with partitions on remote workers run on the caller's
  // thread too, by the direct step path (actors/remote_step.h).
  std::shared_ptr<actors::LocalDirectPathSlot> direct_path =
      std::make_shared<actors::LocalDirectPathSlot>();
  std::shared_ptr<actors::RemoteStepRunner> remote_runner =
      std::make_shared<actors::RemoteStepRunner>(local_plans, local_partitions, direct_path);

  std::mutex mu;  // guards calls_in_flight and closed
  std::condition_variable idle;
  int calls_in_flight = 0;
  bool closed = false;

  // Admits a call unless the session is closed; pairs with EndCall.
  bool BeginCall() {
    std::lock_guard<std::mutex> lock(mu);
    if (closed) return false;
    ++calls_in_flight;
    return true;
  }
  void EndCall() {
    std::lock_guard<std::mutex> lock(mu);
    if (--calls_in_flight == 0) idle.notify_all();
  }

  // Sends `call` to the master and waits for its answer or the deadline.
  template <class Atom, class CallType>
  Status Call(Atom atom, const std::shared_ptr<CallType>& call, std::string_view what) {
    caf::anon_send(master, atom, call);
    if (!call->done.WaitUntil(call->deadline + kReplyGrace)) {
      return errors::DeadlineExceeded(what, ": no answer from the master before the deadline");
    }
    return call->status;
  }

  // The session's master in this process, over this process's worker and
  // the remote tasks.
  Status StartMaster(const RuntimeOptions& options) {
    actors::LocalMasterOptions o;
    o.worker.num_cpu_devices = options.num_cpu_devices;
    o.worker.num_gpu_devices = options.num_gpu_devices;
    o.worker.threads_per_device = options.threads_per_device;
    o.worker.stall_warning_after = options.stall_warning_after;
    o.worker.stall_log = options.stall_log;
    o.worker.local_partitions = local_partitions;
    o.worker.direct_path = direct_path;
    // A lost worker fails the steps this process's threads run with it.
    local_plans->set_on_worker_lost(
        [weak = std::weak_ptr<actors::RemoteStepRunner>(remote_runner)](const Status& why) {
          if (auto runner = weak.lock()) runner->AbortAll(why, /*close=*/false);
        });
    o.worker.cluster_secret = options.cluster_secret;
    o.remote_tasks = options.remote_tasks;
    o.setup_timeout = options.setup_timeout;
    o.health.interval = options.heartbeat_interval;
    o.health.lost_after = options.worker_lost_after;
    o.local_plans = local_plans;
    o.optimizer = options.optimizer;
    return actors::StartLocalMaster(*system, std::move(o), &local_worker, &master);
  }

  // The session's master in the target server; a proxy here speaks for it.
  Status StartRemoteMaster(const RuntimeOptions& options) {
    constexpr std::string_view kScheme = "af://";
    if (options.target.compare(0, kScheme.size(), kScheme) != 0) {
      return errors::InvalidArgument("Session: target '", options.target,
                                     "' is not af://host:port");
    }
    const std::string address = options.target.substr(kScheme.size());
    std::vector<worker_actor> server;
    AF_RETURN_IF_ERROR(actors::ConnectToTasks(*system, {RemoteTask{address, ""}},
                                              Clock::now() + options.setup_timeout, &server,
                                              options.cluster_secret));
    wire::MasterSessionRequest request;
    for (const RemoteTask& task : options.remote_tasks) {
      request.task_addresses.push_back(task.address);
      request.task_names.push_back(task.task);
    }
    request.setup_timeout_ms = options.setup_timeout.count();
    request.heartbeat_interval_ms = options.heartbeat_interval.count();
    request.worker_lost_after_ms = options.worker_lost_after.count();
    request.optimizer = options.optimizer.ToString();
    request.max_folded_constant_bytes = options.optimizer.max_folded_constant_in_bytes;
    request.bfloat16_transfer = options.optimizer.bfloat16_transfer;
    request.bfloat16_transfer_pattern = options.optimizer.bfloat16_transfer_pattern;
    master = actors::SpawnRemoteMaster(*system, std::move(server[0]), options.target,
                                       std::move(request));
    return Status::OK();
  }

  void StopActors() {
    if (master) caf::anon_send_exit(master, caf::exit_reason::user_shutdown);
    if (local_worker) caf::anon_send_exit(local_worker, caf::exit_reason::user_shutdown);
    master = nullptr;
    local_worker = nullptr;
  }
};

RuntimeHandle::RuntimeHandle(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

RuntimeHandle::~RuntimeHandle() {
  (void)Close(Clock::now() + std::chrono::seconds(10));
  impl_->StopActors();
}

Status RuntimeHandle::Create(const RuntimeOptions& options, std::unique_ptr<RuntimeHandle>* out) {
  if (options.num_cpu_devices < 1) {
    return errors::InvalidArgument("Session: num_cpu_devices must be at least 1, got ",
                                   options.num_cpu_devices);
  }
  auto impl = std::make_unique<Impl>();
  impl->system = actors::AcquireActorSystem();
  actors::InstallResourceFactories();  // kernels create queues (and accumulators, clocks) as actors
  Status s =
      options.target.empty() ? impl->StartMaster(options) : impl->StartRemoteMaster(options);
  if (!s.ok()) {
    impl->StopActors();
    return s;
  }
  auto call = std::make_shared<InitCall>();
  call->deadline = Clock::now() + options.setup_timeout;
  s = impl->Call(actors::init_atom::value, call, "Session");
  if (!s.ok()) {
    impl->StopActors();
    return s;
  }
  impl->devices = std::move(call->devices);
  s = actors::CheckTasks(options.remote_tasks, impl->devices);
  if (!s.ok()) {
    RuntimeHandle doomed(std::move(impl));  // closes the sessions it opened
    return s;
  }
  out->reset(new RuntimeHandle(std::move(impl)));
  return Status::OK();
}

const std::vector<DeviceAttributes>& RuntimeHandle::devices() const { return impl_->devices; }

Status RuntimeHandle::Extend(const tensorflow::GraphDef& graph, Clock::time_point deadline) {
  if (!impl_->BeginCall()) return errors::FailedPrecondition("Extend: the session is closed");
  auto call = std::make_shared<ExtendCall>();
  call->graph = graph;
  call->deadline = deadline;
  Status s = impl_->Call(actors::extend_atom::value, call, "Extend");
  impl_->EndCall();
  return s;
}

Status RuntimeHandle::Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                          const std::vector<std::string>& fetches,
                          const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                          Clock::time_point deadline, tensorflow::StepStats* step_stats,
                          StepTraffic* traffic) {
  if (!impl_->BeginCall()) return errors::FailedPrecondition("Run: the session is closed");
  if (traffic != nullptr) traffic->clear();
  if (step_stats == nullptr) {  // a traced step collects node times through the actors
    // A step the client's thread runs itself never leaves the process.
    Status s;
    const std::string key = StepCacheKey(feeds, fetches, targets);
    if (impl_->local_runner.TryRun(key, feeds, fetches.size(), deadline, outputs, &s) ||
        (traffic == nullptr &&
         impl_->remote_runner->TryRun(key, feeds, fetches.size(), deadline, outputs, &s))) {
      impl_->EndCall();
      return s;
    }
  }
  auto call = std::make_shared<RunCall>();
  call->feeds = feeds;
  call->fetches = fetches;
  call->targets = targets;
  call->deadline = deadline;
  call->trace = step_stats != nullptr;
  Status s = impl_->Call(actors::run_atom::value, call, "Run");
  if (s.ok()) *outputs = std::move(call->outputs);
  if (s.ok() && step_stats != nullptr) step_stats->Swap(&call->step_stats);
  if (s.ok() && traffic != nullptr) *traffic = std::move(call->traffic);
  impl_->EndCall();
  return s;
}

Status RuntimeHandle::ResetContainers(const std::vector<std::string>& containers,
                                      Clock::time_point deadline) {
  if (!impl_->BeginCall()) return errors::FailedPrecondition("Reset: the session is closed");
  auto call = std::make_shared<ContainerCall>();
  call->containers = containers;
  call->deadline = deadline;
  Status s = impl_->Call(actors::containers_atom::value, call, "Reset");
  impl_->EndCall();
  return s;
}

Status RuntimeHandle::ListContainers(std::vector<ContainerListing>* out,
                                     Clock::time_point deadline) {
  if (!impl_->BeginCall()) {
    return errors::FailedPrecondition("ListContainers: the session is closed");
  }
  auto call = std::make_shared<ContainerCall>();
  call->list = true;
  call->deadline = deadline;
  Status s = impl_->Call(actors::containers_atom::value, call, "ListContainers");
  if (s.ok()) *out = std::move(call->listing);
  impl_->EndCall();
  return s;
}

Status RuntimeHandle::GetStats(SessionStats* out, Clock::time_point deadline) {
  if (!impl_->BeginCall()) return errors::FailedPrecondition("GetStats: the session is closed");
  auto call = std::make_shared<StatsCall>();
  call->deadline = deadline;
  Status s = impl_->Call(actors::stats_atom::value, call, "GetStats");
  if (s.ok()) *out = call->stats;
  impl_->EndCall();
  return s;
}

Status RuntimeHandle::Close(Clock::time_point deadline) {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->closed) return Status::OK();
    impl_->closed = true;
  }
  impl_->local_runner.AbortAll(errors::Cancelled("Run: the session was closed"));
  impl_->remote_runner->AbortAll(errors::Cancelled("Run: the session was closed"), /*close=*/true);
  auto call = std::make_shared<CloseCall>();
  call->deadline = deadline;
  Status s = impl_->Call(actors::close_atom::value, call, "Close");
  // The master failed every running step; their callers return promptly.
  std::unique_lock<std::mutex> lock(impl_->mu);
  if (!impl_->idle.wait_until(lock, deadline + kReplyGrace,
                              [&] { return impl_->calls_in_flight == 0; })) {
    s.Update(errors::DeadlineExceeded("Close: calls still running at the deadline"));
  }
  return s;
}

}  // namespace af
