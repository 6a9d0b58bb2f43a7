// Embedding Actorflow in an application's own CAF actor system: the one
// header such an application includes (it uses CAF anyway, so CAF types
// appear here; the rest of Actorflow's public API stays free of CAF).
//
// Setup, on a plain thread (main), in this order:
//
//   caf::actor_system_config cfg;
//   cfg.load<caf::io::middleman>();     // required: Actorflow talks to workers through it
//   af::RegisterActorflowTypes(cfg);    // before the system exists
//   caf::actor_system system{cfg};
//   AF_CHECK_OK(af::UseActorSystem(system));      // before any Session or runtime
//   std::unique_ptr<af::EmbeddedRuntime> runtime;
//   AF_CHECK_OK(af::EmbeddedRuntime::Create(system, {}, &runtime));
//   auto app = system.spawn(my_trainer, runtime->session());
//   ...                                 // the application's actors talk to runtime->session()
//   runtime.reset();                    // stops Actorflow's actors
//   af::ReleaseActorSystem();           // before `system` is destroyed
//
// The session protocol (actors::master_session_actor, every value carried
// by value; each request's last value, or RunStepRequest::timeout_ms, is
// the time the caller grants in ms; <= 0 means 60 s):
//
//   request(session, t, extend_atom::value, std::string graph_def_bytes, int64_t timeout_ms)
//       -> wire::WireStatus
//   request(session, t, run_atom::value, wire::RunStepRequest)   (MakeRunRequest)
//       -> wire::RunStepResponse {status, outputs parallel to the fetches, step_stats}
//   request(session, t, close_atom::value, int64_t timeout_ms) -> wire::WireStatus
//       (closes the session on every worker, then the session actor quits)
//   request(session, t, containers_atom::value, bool list, std::vector<std::string>, int64_t)
//       -> (wire::WireStatus, std::vector<ContainerListing>)
//   request(session, t, stats_atom::value, int64_t timeout_ms) -> (wire::WireStatus, SessionStats)
//
// It is the very protocol a client process speaks to a session whose
// master runs in an `actorflow server` (SessionOptions::target): the same
// actor, so behaviour and errors are the same. Steps run on the session's
// device actors; an application actor waiting in `.then` holds no thread.
//
// Health events: send (watch_atom::value, caf::actor subscriber) to
// runtime->events() (or call Subscribe); the subscriber then gets a
// WorkerLost or StepAborted message (actors/health/health_events.h) for each
// worker the master declares lost and each step it aborts. A subscriber
// that terminates is dropped.
//
// Thread rules: EmbeddedRuntime::Create waits for the workers to list
// their devices, so call it from a plain thread, never from an actor's
// handler. An actor calls EmbeddedRuntime::CreateAsync instead and gets
// (created_atom, EmbeddedRuntimeCreated) back. Everything else is messages
// and never blocks. A Session created after UseActorSystem runs in the
// application's system too.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <caf/actor.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>

#include "actors/health/health_events.h"
#include "actors/interfaces.h"
#include "actors/runtime_handle.h"
#include "core/status.h"
#include "core/tensor.h"
#include "proto/graph.pb.h"

namespace af {

// Adds Actorflow's message types, its error category and its middleman
// setting (automatic connections off, see actors/actor_system_holder.cc)
// to `cfg`. The application must also load the middleman itself
// (cfg.load<caf::io::middleman>(), once). UseActorSystem checks all three.
void RegisterActorflowTypes(caf::actor_system_config& cfg);

// Makes every later Session, EmbeddedRuntime, server and queue of this
// process use `system`, which the application owns. Fails when Actorflow
// already created its own system (a Session exists or existed and still
// runs), when another application system is in use, or when the system
// lacks what RegisterActorflowTypes and the middleman provide.
Status UseActorSystem(caf::actor_system& system);
// Undoes UseActorSystem; fails while a Session, an EmbeddedRuntime or a
// queue/accumulator actor of the system still exists. Queues created by
// graphs live as long as the process's resource managers (forever), so a
// system that ran a graph with queues cannot be released or shut down.
Status ReleaseActorSystem();

// The session face an application's actors send requests to, and the
// atoms of its protocol.
using EmbeddedSession = actors::master_session_actor;
using actors::close_atom;
using actors::containers_atom;
using actors::extend_atom;
using actors::run_atom;
using actors::stats_atom;
using actors::watch_atom;

struct EmbeddedOptions {
  // Local devices /job:localhost/replica:0/task:0/device:CPU:i, as a
  // Session with default options has.
  int num_cpu_devices = 1;
  int threads_per_device = 0;  // 0: the machine's cores shared among the devices
  // Worker processes or virtual tasks to use beside the local worker.
  std::vector<RemoteTask> remote_tasks;
  std::string cluster_secret;
  std::chrono::milliseconds setup_timeout{10000};
  // Failure detection (actors/master/master_actor.h HealthCheckOptions).
  std::chrono::milliseconds heartbeat_interval{250};
  std::chrono::milliseconds worker_lost_after{1500};
};

class EmbeddedRuntime;

// What EmbeddedRuntime::CreateAsync sends back, with created_atom.
struct EmbeddedRuntimeCreated {
  Status status;
  std::shared_ptr<EmbeddedRuntime> runtime;  // null unless status is OK
};
using created_atom = caf::atom_constant<caf::atom("afcreated")>;

// A session's actors in the application's system: a master, the local
// worker with its device actors, the by-value session face and the health
// event hub. Steps always go through the actors (never on a caller's
// thread, unlike a Session's cached local steps).
class EmbeddedRuntime {
 public:
  // `system` must be the one given to UseActorSystem. Blocks until every
  // worker listed its devices (at most options.setup_timeout).
  static Status Create(caf::actor_system& system, const EmbeddedOptions& options,
                       std::unique_ptr<EmbeddedRuntime>* out);
  // The same for actors: Create runs on a detached actor of `system` (a
  // thread of its own, so no scheduler thread waits), which then sends
  // `reply_to` (created_atom, EmbeddedRuntimeCreated). The runtime lives as
  // long as the receiver keeps the shared_ptr; keep the receiver referenced
  // too, since CAF destroys an actor nothing refers to, state and all.
  static void CreateAsync(caf::actor_system& system, EmbeddedOptions options,
                          caf::actor reply_to);
  // Closes the session (without waiting) and stops the actors.
  ~EmbeddedRuntime();
  EmbeddedRuntime(const EmbeddedRuntime&) = delete;
  EmbeddedRuntime& operator=(const EmbeddedRuntime&) = delete;

  EmbeddedSession session() const;
  // The local worker; an application may monitor it, nothing more.
  actors::worker_actor worker() const;
  // Takes (watch_atom, caf::actor subscriber).
  caf::actor events() const;
  void Subscribe(const caf::actor& subscriber) const;
  // Local devices first, then each remote task's.
  const std::vector<DeviceAttributes>& devices() const;

 private:
  struct Impl;
  explicit EmbeddedRuntime(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Message helpers, so that an application builds requests and reads
// answers with Actorflow's types.
std::string SerializeGraph(const tensorflow::GraphDef& graph);
wire::RunStepRequest MakeRunRequest(std::vector<std::pair<std::string, Tensor>> feeds,
                                    std::vector<std::string> fetches,
                                    std::vector<std::string> targets,
                                    std::chrono::milliseconds timeout);
Status ToStatus(const wire::WireStatus& status);

}  // namespace af

// Local only: the runtime is a handle to this process's actors.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(af::EmbeddedRuntimeCreated)
