#include "actors/worker_server.h"

#include <algorithm>
#include <atomic>
#include <memory>

#include <caf/actor_system.hpp>
#include <caf/io/middleman.hpp>
#include <caf/send.hpp>

#include "actors/actor_system_holder.h"
#include "actors/transport/cluster_tls.h"
#include "actors/master/cluster_membership.h"
#include "actors/master/master_service.h"
#include "actors/transport/peer_auth.h"
#include "actors/resources/resource_factories.h"
#include "actors/worker/data_plane.h"
#include "actors/worker/worker_actor.h"
#include "core/cluster_secret.h"
#include "core/cluster_spec.h"
#include "core/device_name.h"
#include "core/gpu/gpu_device_context.h"
#include "core/logging.h"
#include "core/fault_injection/fault_injector.h"

namespace af {

struct WorkerServer::Impl {
  std::shared_ptr<caf::actor_system> system;
  actors::worker_actor worker;
  uint16_t port = 0;
  std::vector<std::string> device_names;
  std::string data_address;  // empty: no data plane

  void Stop() {
    if (!worker) return;
    caf::anon_send_exit(worker, caf::exit_reason::user_shutdown);
    worker = nullptr;
  }
};

WorkerServer::WorkerServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

WorkerServer::~WorkerServer() { Stop(); }

Status WorkerServer::Start(const WorkerServerOptions& options,
                           std::unique_ptr<WorkerServer>* out) {
  if (options.num_cpu_devices < 1) {
    return errors::InvalidArgument("server: --cpus must be at least 1, got ",
                                   options.num_cpu_devices);
  }
  if (options.task < 0) {
    return errors::InvalidArgument("server: --task must not be negative, got ", options.task);
  }
  if (options.cluster_secret.empty() && !IsLoopbackHost(options.host)) {
    return errors::FailedPrecondition(
        "server: refusing to listen on ", options.host, ":", options.port,
        " without a cluster secret: anyone who reaches that address could run graphs here. Give "
        "--secret_file (or set ACTORFLOW_SECRET_FILE), or listen on 127.0.0.1");
  }
  std::shared_ptr<faults::FaultInjector> faults;
  AF_RETURN_IF_ERROR(faults::FaultInjector::Create(
      options.faults, ClusterSpec::TaskName(options.job, options.task), &faults));
  actors::SetServingSecret(options.cluster_secret);
  // The process's log lines name the task it serves, unless its embedder
  // or launcher named it already.
  if (LogTaskName().empty()) SetLogTaskName(ClusterSpec::TaskName(options.job, options.task));
  auto impl = std::make_unique<Impl>();
  impl->system = actors::AcquireActorSystem();
  actors::InstallResourceFactories();  // kernels create queues (and accumulators, clocks) as actors
  actors::WorkerOptions worker;
  worker.job = options.job;
  worker.task = options.task;
  worker.num_cpu_devices = options.num_cpu_devices;
  worker.num_gpu_devices = options.num_gpu_devices;
  worker.threads_per_device = options.threads_per_device;
  worker.stall_warning_after = std::chrono::milliseconds(options.stall_warning_ms);
  worker.cluster_secret = options.cluster_secret;
  worker.faults = std::move(faults);
  worker.max_step = std::chrono::milliseconds(static_cast<int64_t>(options.max_step_secs * 1000));
  worker.session_memory_limit = options.session_memory_limit;
  actors::MasterServiceOptions service;
  service.cluster_tasks = options.cluster_tasks;
  service.cluster_secret = options.cluster_secret;
  service.max_call = worker.max_step;
  service.self_task = ClusterSpec::TaskName(options.job, options.task);
  // Known once the worker listens (port 0 is chosen then).
  auto listening = std::make_shared<std::atomic<uint16_t>>(0);
  service.self_address = [listening, host = options.host] {
    const uint16_t port = listening->load();
    return port == 0 ? std::string() : host + ":" + std::to_string(port);
  };
  service.client_timeout =
      std::chrono::milliseconds(static_cast<int64_t>(options.client_timeout_secs * 1000));
  // Large tensors leave and arrive beside CAF, on the same host as the
  // server (the same loopback-only rule without a secret, checked above).
  worker.data_plane = actors::DataPlane::Start(options.host, options.cluster_secret);
  if (worker.data_plane) impl->data_address = worker.data_plane->address();
  service.data_plane = worker.data_plane;
  worker.make_master_service = [service](caf::actor_system& system, actors::worker_actor self) {
    return actors::SpawnMasterService(system, std::move(self), service);
  };
  impl->worker = actors::SpawnWorkerActor(*impl->system, worker);
  for (int i = 0; i < options.num_cpu_devices; ++i) {
    impl->device_names.push_back(CanonicalDeviceName(options.job, 0, options.task, "CPU", i));
  }
  const int gpus = gpu::ProcessGpusToUse(options.num_gpu_devices);
  for (int i = 0; i < gpus; ++i) {
    impl->device_names.push_back(CanonicalDeviceName(options.job, 0, options.task, "GPU", i));
  }
  Status published = actors::PublishWorker(*impl->system, impl->worker,
                                           options.host, options.port, options.cluster_secret,
                                           &impl->port);
  if (!published.ok()) {
    impl->Stop();
    return published;
  }
  listening->store(impl->port);
  out->reset(new WorkerServer(std::move(impl)));
  return Status::OK();
}

uint16_t WorkerServer::port() const { return impl_->port; }

const std::vector<std::string>& WorkerServer::device_names() const {
  return impl_->device_names;
}

const std::string& WorkerServer::data_address() const { return impl_->data_address; }

void WorkerServer::Stop() { impl_->Stop(); }

Status JoinCluster(const std::string& target, WorkerServerOptions* options,
                   std::chrono::milliseconds timeout) {
  if (options->port == 0) {
    return errors::InvalidArgument(
        "--join needs this server's --port: the cluster reaches the new task there");
  }
  const std::string address = options->host + ":" + std::to_string(options->port);
  std::shared_ptr<caf::actor_system> system = actors::AcquireActorSystem();
  int index = -1;
  std::vector<RemoteTask> others;
  AF_RETURN_IF_ERROR(actors::RequestToJoin(*system, target, options->job, address,
                                           options->cluster_secret, timeout, &others, &index));
  options->task = index;
  options->cluster_tasks = std::move(others);
  return Status::OK();
}

}  // namespace af
