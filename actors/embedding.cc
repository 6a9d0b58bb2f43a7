#include "actors/embedding.h"

#include <algorithm>
#include <unordered_map>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/blocking_actor.hpp>
#include <caf/deserializer.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/serializer.hpp>
#include <caf/send.hpp>

#include "actors/actor_system_holder.h"
#include "actors/spawn_without_arguments.h"
#include "actors/cluster_connect.h"
#include "actors/master/local_master.h"
#include "actors/master/master_actor.h"
#include "actors/master/master_service.h"
#include "actors/transport/peer_auth.h"
#include "actors/resources/resource_factories.h"
#include "actors/worker/worker_actor.h"
#include "core/cluster_spec.h"

namespace af {

// Statuses travel as WireStatus, whose codes survive a newer peer.
caf::error inspect(caf::serializer& f, WorkerLost& x) {
  wire::WireStatus reason = wire::ToWire(x.reason);
  return f(caf::meta::type_name("af.WorkerLost"), x.task, reason);
}
caf::error inspect(caf::deserializer& f, WorkerLost& x) {
  wire::WireStatus reason;
  if (auto err = f(caf::meta::type_name("af.WorkerLost"), x.task, reason)) return err;
  x.reason = wire::FromWire(reason);
  return caf::none;
}
caf::error inspect(caf::serializer& f, StepAborted& x) {
  wire::WireStatus status = wire::ToWire(x.status);
  return f(caf::meta::type_name("af.StepAborted"), x.step_id, status);
}
caf::error inspect(caf::deserializer& f, StepAborted& x) {
  wire::WireStatus status;
  if (auto err = f(caf::meta::type_name("af.StepAborted"), x.step_id, status)) return err;
  x.status = wire::FromWire(status);
  return caf::none;
}

void RegisterActorflowTypes(caf::actor_system_config& cfg) {
  actors::RegisterMessageTypes(cfg);
  actors::RegisterStatusErrors(cfg);
  cfg.add_message_type<WorkerLost>("af.WorkerLost");
  cfg.add_message_type<StepAborted>("af.StepAborted");
  // No automatic connections: servers that a session introduces to each
  // other are connected by one of them dialing the other at OpenSession
  // (actors/worker/peer_connections.h). With automatic connections both
  // dialed at once, and a first step's tensors going both ways between
  // them were sometimes lost.
  cfg.set("middleman.enable-automatic-connections", false);
}

Status UseActorSystem(caf::actor_system& system) { return actors::UseActorSystem(system); }

Status ReleaseActorSystem() { return actors::ReleaseActorSystem(); }

namespace {

using Clock = std::chrono::steady_clock;

// Fans the master's health events out to the subscribers. A separate actor
// (not the master) so that subscribing needs no change to the master's
// interface and a slow subscriber never delays the master.
caf::behavior EventHub(caf::event_based_actor* self) {
  auto subscribers = std::make_shared<std::vector<caf::actor>>();
  self->set_down_handler([=](caf::down_msg& down) {
    subscribers->erase(std::remove_if(subscribers->begin(), subscribers->end(),
                                      [&](const caf::actor& a) { return a.address() == down.source; }),
                       subscribers->end());
  });
  return {
      [=](actors::watch_atom, const caf::actor& subscriber) {
        if (!subscriber) return;
        if (std::find(subscribers->begin(), subscribers->end(), subscriber) != subscribers->end()) {
          return;
        }
        self->monitor(subscriber);
        subscribers->push_back(subscriber);
      },
      [=](const WorkerLost& event) {
        for (const caf::actor& s : *subscribers) self->send(s, event);
      },
      [=](const StepAborted& event) {
        for (const caf::actor& s : *subscribers) self->send(s, event);
      },
  };
}

}  // namespace

struct EmbeddedRuntime::Impl {
  std::shared_ptr<caf::actor_system> system;  // the application's, not owned
  actors::worker_actor worker;
  actors::master_actor master;
  EmbeddedSession session;
  caf::actor events;
  std::vector<DeviceAttributes> devices;

  void Stop() {
    if (master) {
      // Closes the session on the workers, then ends the master; nothing
      // waits, so a destructor on any thread returns at once.
      auto call = std::make_shared<CloseCall>();
      call->deadline = Clock::now() + std::chrono::seconds(10);
      actors::master_actor m = master;
      call->on_finish = [m] { caf::anon_send_exit(m, caf::exit_reason::user_shutdown); };
      caf::anon_send(master, actors::close_atom::value, call);
    }
    if (session) caf::anon_send_exit(session, caf::exit_reason::user_shutdown);
    if (events) caf::anon_send_exit(events, caf::exit_reason::user_shutdown);
    if (worker) caf::anon_send_exit(worker, caf::exit_reason::user_shutdown);
    master = nullptr;
    session = nullptr;
    events = nullptr;
    worker = nullptr;
  }
};

EmbeddedRuntime::EmbeddedRuntime(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

EmbeddedRuntime::~EmbeddedRuntime() { impl_->Stop(); }

Status EmbeddedRuntime::Create(caf::actor_system& system, const EmbeddedOptions& options,
                               std::unique_ptr<EmbeddedRuntime>* out) {
  if (options.num_cpu_devices < 1) {
    return errors::InvalidArgument("EmbeddedRuntime: num_cpu_devices must be at least 1, got ",
                                   options.num_cpu_devices);
  }
  auto impl = std::make_unique<Impl>();
  impl->system = actors::CurrentActorSystem();
  if (impl->system.get() != &system) {
    return errors::FailedPrecondition(
        "EmbeddedRuntime: call UseActorSystem(system) with this system first");
  }
  actors::InstallResourceFactories();  // kernels create queues (and accumulators, clocks) as actors

  actors::LocalMasterOptions o;
  o.worker.num_cpu_devices = options.num_cpu_devices;
  o.worker.threads_per_device = options.threads_per_device;
  o.worker.cluster_secret = options.cluster_secret;
  o.remote_tasks = options.remote_tasks;
  o.setup_timeout = options.setup_timeout;
  impl->events = actors::SpawnWithoutArguments<caf::event_based_actor>(system, EventHub);
  o.health.interval = options.heartbeat_interval;
  o.health.lost_after = options.worker_lost_after;
  o.health.events = impl->events;
  // No local plans: a cached step would otherwise run on the thread that
  // asks, and the askers here are actors.
  Status s = actors::StartLocalMaster(system, std::move(o), &impl->worker, &impl->master);
  if (!s.ok()) {
    impl->Stop();
    return s;
  }

  auto call = std::make_shared<InitCall>();
  call->deadline = Clock::now() + options.setup_timeout;
  caf::anon_send(impl->master, actors::init_atom::value, call);
  if (!call->done.WaitUntil(call->deadline + std::chrono::milliseconds(500))) {
    s = errors::DeadlineExceeded("EmbeddedRuntime: the workers did not list their devices");
  } else {
    s = call->status;
  }
  if (s.ok()) s = actors::CheckTasks(options.remote_tasks, call->devices);
  if (!s.ok()) {
    impl->Stop();
    return s;
  }
  impl->devices = std::move(call->devices);
  impl->session = actors::SpawnMasterSession(system, impl->master, caf::actor{});
  out->reset(new EmbeddedRuntime(std::move(impl)));
  return Status::OK();
}

void EmbeddedRuntime::CreateAsync(caf::actor_system& system, EmbeddedOptions options,
                                  caf::actor reply_to) {
  // A blocking actor always gets its own thread.
  auto create = [options = std::move(options), reply_to](caf::blocking_actor* self) {
    std::unique_ptr<EmbeddedRuntime> runtime;
    EmbeddedRuntimeCreated created;
    created.status = Create(self->system(), options, &runtime);
    created.runtime = std::move(runtime);
    self->send(reply_to, created_atom::value, std::move(created));
  };
  actors::SpawnWithoutArguments<caf::blocking_actor>(system, std::move(create));
}

EmbeddedSession EmbeddedRuntime::session() const { return impl_->session; }

actors::worker_actor EmbeddedRuntime::worker() const { return impl_->worker; }

caf::actor EmbeddedRuntime::events() const { return impl_->events; }

void EmbeddedRuntime::Subscribe(const caf::actor& subscriber) const {
  caf::anon_send(impl_->events, actors::watch_atom::value, subscriber);
}

const std::vector<DeviceAttributes>& EmbeddedRuntime::devices() const { return impl_->devices; }

std::string SerializeGraph(const tensorflow::GraphDef& graph) {
  return graph.SerializeAsString();
}

wire::RunStepRequest MakeRunRequest(std::vector<std::pair<std::string, Tensor>> feeds,
                                    std::vector<std::string> fetches,
                                    std::vector<std::string> targets,
                                    std::chrono::milliseconds timeout) {
  wire::RunStepRequest request;
  for (auto& [name, value] : feeds) {
    request.feed_names.push_back(std::move(name));
    request.feed_values.push_back(std::move(value));
  }
  request.fetches = std::move(fetches);
  request.targets = std::move(targets);
  request.timeout_ms = timeout.count();
  return request;
}

Status ToStatus(const wire::WireStatus& status) { return wire::FromWire(status); }

}  // namespace af
