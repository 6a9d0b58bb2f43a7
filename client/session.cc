#include "client/session.h"

#include <chrono>

#include "actors/runtime_handle.h"
#include "core/cluster_secret.h"

namespace af {
namespace {

RuntimeHandle::Clock::time_point Deadline(int64_t timeout_ms) {
  return RuntimeHandle::Clock::now() + std::chrono::milliseconds(timeout_ms);
}

}  // namespace

Session::Session(const SessionOptions& options, std::unique_ptr<RuntimeHandle> runtime)
    : options_(options), runtime_(std::move(runtime)) {}

Session::~Session() = default;

Status Session::Create(const SessionOptions& options, std::unique_ptr<Session>* out) {
  if (options.setup_timeout_ms <= 0 || options.default_timeout_ms <= 0) {
    return errors::InvalidArgument("Session: timeouts must be positive (setup ",
                                   options.setup_timeout_ms, " ms, default ",
                                   options.default_timeout_ms, " ms)");
  }
  if (options.heartbeat_interval_ms <= 0 ||
      options.worker_lost_after_ms < 2 * options.heartbeat_interval_ms) {
    return errors::InvalidArgument(
        "Session: heartbeat_interval_ms must be positive and worker_lost_after_ms at least twice "
        "it, got ",
        options.heartbeat_interval_ms, " and ", options.worker_lost_after_ms);
  }
  if (options.stall_warning_ms < 0) {
    return errors::InvalidArgument("Session: stall_warning_ms must not be negative, got ",
                                   options.stall_warning_ms);
  }
  if (options.threads_per_device < 0) {
    return errors::InvalidArgument("Session: threads_per_device must not be negative, got ",
                                   options.threads_per_device);
  }
  RuntimeOptions runtime_options;
  runtime_options.num_cpu_devices = options.num_cpu_devices;
  runtime_options.num_gpu_devices = options.num_gpu_devices;
  runtime_options.threads_per_device = options.threads_per_device;
  for (const std::string& address : options.remote_workers)
    runtime_options.remote_tasks.push_back(RemoteTask{address, ""});
  if (!options.target.empty()) {
    constexpr std::string_view kScheme = "af://";
    std::string host;
    uint16_t port = 0;
    if (options.target.compare(0, kScheme.size(), kScheme) != 0 ||
        !ParseHostPort(options.target.substr(kScheme.size()), &host, &port).ok()) {
      return errors::InvalidArgument("Session: target '", options.target,
                                     "' is not af://host:port");
    }
  }
  const std::string target_address =
      options.target.empty() ? std::string() : options.target.substr(5);
  for (const TaskAddress& task : options.cluster.AllTasks()) {
    if (task.HostPort() == target_address) continue;  // the master's own task
    runtime_options.remote_tasks.push_back(
        RemoteTask{task.HostPort(), ClusterSpec::TaskName(task.job, task.task)});
  }
  runtime_options.target = options.target;
  // Only sessions reaching other processes prove a secret; a local one must
  // not fail on a stale ACTORFLOW_SECRET_FILE.
  if (!runtime_options.remote_tasks.empty() || !options.target.empty() ||
      !options.cluster_secret_file.empty()) {
    AF_RETURN_IF_ERROR(
        LoadClusterSecret(options.cluster_secret_file, &runtime_options.cluster_secret));
  }
  runtime_options.setup_timeout = std::chrono::milliseconds(options.setup_timeout_ms);
  runtime_options.heartbeat_interval = std::chrono::milliseconds(options.heartbeat_interval_ms);
  runtime_options.worker_lost_after = std::chrono::milliseconds(options.worker_lost_after_ms);
  runtime_options.stall_warning_after = std::chrono::milliseconds(options.stall_warning_ms);
  runtime_options.stall_log = options.stall_log;
  runtime_options.optimizer = options.optimizer;
  std::unique_ptr<RuntimeHandle> runtime;
  AF_RETURN_IF_ERROR(RuntimeHandle::Create(runtime_options, &runtime));
  out->reset(new Session(options, std::move(runtime)));
  return Status::OK();
}

Status Session::Extend(const tensorflow::GraphDef& graph) {
  return runtime_->Extend(graph, Deadline(options_.default_timeout_ms));
}

Status Session::Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                    const std::vector<std::string>& fetches,
                    const std::vector<std::string>& targets, std::vector<Tensor>* outputs) {
  return Run(RunOptions{}, feeds, fetches, targets, outputs);
}

Status Session::Run(const RunOptions& run_options,
                    const std::vector<std::pair<std::string, Tensor>>& feeds,
                    const std::vector<std::string>& fetches,
                    const std::vector<std::string>& targets, std::vector<Tensor>* outputs) {
  return Run(run_options, feeds, fetches, targets, outputs, nullptr);
}

Status Session::Run(const RunOptions& run_options,
                    const std::vector<std::pair<std::string, Tensor>>& feeds,
                    const std::vector<std::string>& fetches,
                    const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                    RunMetadata* run_metadata) {
  if (outputs == nullptr) return errors::InvalidArgument("Run: outputs must not be null");
  if (run_options.timeout_ms < 0) {
    return errors::InvalidArgument("Run: timeout_ms must not be negative, got ",
                                   run_options.timeout_ms);
  }
  if (run_options.trace_level < RunOptions::NO_TRACE ||
      run_options.trace_level > RunOptions::FULL_TRACE) {
    return errors::InvalidArgument("Run: trace_level must be NO_TRACE (0) to FULL_TRACE (3), got ",
                                   static_cast<int>(run_options.trace_level));
  }
  // Without metadata to fill there is nothing to trace into.
  tensorflow::StepStats* step_stats = nullptr;
  StepTraffic* traffic = nullptr;
  if (run_metadata != nullptr) {
    run_metadata->step_stats.Clear();
    if (run_options.trace_level != RunOptions::NO_TRACE) step_stats = &run_metadata->step_stats;
    traffic = &run_metadata->traffic;
  }
  const int64_t timeout =
      run_options.timeout_ms > 0 ? run_options.timeout_ms : options_.default_timeout_ms;
  return runtime_->Run(feeds, fetches, targets, outputs, Deadline(timeout), step_stats, traffic);
}

const std::vector<DeviceAttributes>& Session::ListDevices() const { return runtime_->devices(); }

Status Session::Reset(const std::vector<std::string>& containers) {
  return runtime_->ResetContainers(containers, Deadline(options_.default_timeout_ms));
}

Status Session::GetStats(SessionStats* out) {
  if (out == nullptr) return errors::InvalidArgument("GetStats: out must not be null");
  return runtime_->GetStats(out, Deadline(options_.default_timeout_ms));
}

Status Session::ListContainers(std::vector<ContainerListing>* out) {
  if (out == nullptr) return errors::InvalidArgument("ListContainers: out must not be null");
  return runtime_->ListContainers(out, Deadline(options_.default_timeout_ms));
}

Status Session::Close() {
  return runtime_->Close(Deadline(options_.default_timeout_ms));
}

}  // namespace af
