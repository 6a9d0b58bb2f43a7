#include "actors/virtual_cluster.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <random>
#include <unordered_map>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/mailbox_element.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/actor_system_holder.h"
#include "actors/resources/resource_factories.h"
#include "actors/virtual_transport.h"
#include "actors/worker/worker_actor.h"
#include "core/device_name.h"
#include "core/fault_injection/fault_injector.h"

namespace af {
namespace {

using Clock = std::chrono::steady_clock;
using actors::worker_actor;

constexpr std::string_view kScheme = "virtual:";
constexpr std::string_view kColocated = "?colocated";

// A link carries its messages one after another; deliveries on it never
// overtake each other.
struct LinkState {
  Clock::time_point busy_until{};
  Clock::time_point last_delivery{};
};

struct ClusterState {
  std::string name;
  TransportModel model;
  std::map<std::string, worker_actor> tasks;  // "job/task" -> worker actor
  std::mutex mu;  // guards links and rng
  std::unordered_map<std::string, LinkState> links;  // "src>dst"
  std::mt19937_64 rng;
  std::atomic<int64_t> messages{0}, tensor_messages{0}, bytes{0}, free_messages{0},
      straggler_delays{0};
};

std::mutex registry_mu;
std::map<std::string, std::weak_ptr<ClusterState>>& Registry() {
  static auto* registry = new std::map<std::string, std::weak_ptr<ClusterState>>();
  return *registry;
}

bool ValidName(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
  });
}

std::string Address(const std::string& cluster, const std::string& job, int task) {
  return std::string(kScheme) + cluster + "/" + job + "/" + std::to_string(task);
}

// "virtual:<cluster>/<job>/<task>[?colocated]".
Status ParseVirtual(const std::string& address, std::string* cluster, std::string* task_key,
                    bool* colocated) {
  std::string rest = address.substr(std::min(address.size(), kScheme.size()));
  *colocated = rest.size() > kColocated.size() &&
               rest.compare(rest.size() - kColocated.size(), kColocated.size(), kColocated) == 0;
  if (*colocated) rest.resize(rest.size() - kColocated.size());
  const size_t slash = rest.find('/');
  if (address.compare(0, kScheme.size(), kScheme) != 0 || slash == std::string::npos ||
      slash == 0 || rest.find('/', slash + 1) == std::string::npos) {
    return errors::InvalidArgument("virtual task address '", address,
                                   "' is not virtual:<cluster>/<job>/<task>");
  }
  *cluster = rest.substr(0, slash);
  *task_key = rest.substr(slash + 1);
  return Status::OK();
}

// The task that sent a tensor: the Send's device, first in its rendezvous
// key "src_device;src_incarnation;dst_device;name;frame:iter".
std::string SourceTask(const std::string& key) {
  std::string device = key.substr(0, key.find(';'));
  const size_t at = device.find("/device:");
  return at == std::string::npos ? device : device.substr(0, at);
}

int64_t TensorBytes(const Tensor& t) {
  return t.IsInitialized() ? static_cast<int64_t>(t.TotalBytes()) : 0;
}

// What a message carries: its bytes and, for a tensor, the sending task.
struct Charge {
  int64_t bytes = 0;
  std::string source_task;  // empty: not a tensor
  bool run_graph = false;
};

Charge Classify(const caf::type_erased_tuple& content) {
  Charge c;
  if (content.match_elements<actors::push_atom, wire::TensorPush>()) {
    const auto& push = content.get_as<wire::TensorPush>(1);
    c.bytes = TensorBytes(push.value) + static_cast<int64_t>(push.key.size());
    c.source_task = SourceTask(push.key);
  } else if (content.match_elements<actors::push_batch_atom, wire::TensorPushBatch>()) {
    const auto& batch = content.get_as<wire::TensorPushBatch>(1);
    for (const wire::TensorPush& push : batch.pushes)
      c.bytes += TensorBytes(push.value) + static_cast<int64_t>(push.key.size());
    if (!batch.pushes.empty()) c.source_task = SourceTask(batch.pushes.front().key);
  } else if (content.match_elements<actors::chunk_atom, wire::TensorChunk>()) {
    const auto& chunk = content.get_as<wire::TensorChunk>(1);
    c.bytes = static_cast<int64_t>(chunk.length + chunk.key.size());
    c.source_task = SourceTask(chunk.key);
  } else if (content.match_elements<actors::run_graph_atom, wire::RunGraphRequest>()) {
    const auto& req = content.get_as<wire::RunGraphRequest>(1);
    for (const wire::PartitionCall& call : req.partitions)
      for (const Tensor& t : call.args) c.bytes += TensorBytes(t);
    c.run_graph = true;
  }
  return c;
}

// --- the link actor: one per (session, task), forwarding with delays ----

using never_atom = caf::atom_constant<caf::atom("afvlnever")>;

struct LinkActorState {
  std::shared_ptr<ClusterState> cluster;
  caf::strong_actor_ptr target;
  std::string dst;        // "/job:J/replica:0/task:T"
  bool colocated = false;  // the session's master runs "in" this task
  static inline const char* name = "af.virtual_link";
};

using LinkPointer = caf::stateful_actor<LinkActorState>*;

// When the message reaches the task, under the model; updates the link.
// The epoch (time_point{}) means "now, directly".
Clock::time_point Schedule(LinkActorState& st, const caf::mailbox_element& elem,
                           const Charge& charge) {
  ClusterState& c = *st.cluster;
  const TransportModel& m = c.model;
  std::string source = charge.source_task;
  const bool free = source.empty() && st.colocated;
  if (source.empty()) {
    source = elem.sender ? "actor:" + std::to_string(elem.sender->id()) : "anonymous";
  }
  const auto now = Clock::now();
  const int64_t bytes = charge.bytes + m.message_overhead_bytes;
  c.messages.fetch_add(1, std::memory_order_relaxed);
  if (!charge.source_task.empty()) c.tensor_messages.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(c.mu);
  LinkState& link = c.links[source + ">" + st.dst];
  Clock::time_point deliver = now;
  if (free) {
    c.free_messages.fetch_add(1, std::memory_order_relaxed);
  } else {
    c.bytes.fetch_add(bytes, std::memory_order_relaxed);
    const double transmit_s =
        m.bandwidth_bytes_per_s > 0 ? static_cast<double>(bytes) / m.bandwidth_bytes_per_s : 0;
    link.busy_until = std::max(now, link.busy_until) +
                      std::chrono::duration_cast<Clock::duration>(
                          std::chrono::duration<double>(transmit_s));
    const double hops = elem.mid.is_request() ? 2 : 1;
    deliver = link.busy_until + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double, std::micro>(m.latency_us * hops));
  }
  if (charge.run_graph) {
    auto straggler = m.stragglers.find(st.dst);
    if (straggler != m.stragglers.end()) {
      const StragglerModel& s = straggler->second;
      std::uniform_real_distribution<double> coin(0, 1);
      if (coin(c.rng) < s.probability) {
        double ms = s.constant_ms;
        if (s.exponential_mean_ms > 0)
          ms += std::exponential_distribution<double>(1.0 / s.exponential_mean_ms)(c.rng);
        deliver += std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double, std::milli>(ms));
        c.straggler_delays.fetch_add(1, std::memory_order_relaxed);
      }
    }
  }
  // Due now, and whatever this link handed CAF's timer before surely went
  // out (the timer thread runs late by microseconds, not a millisecond):
  // deliver directly, without the timer thread's hop.
  if (deliver <= now && link.last_delivery + std::chrono::milliseconds(1) < now) {
    deliver = Clock::time_point{};
  } else {
    deliver = std::max(deliver, link.last_delivery);
    link.last_delivery = deliver;
  }
  return deliver;
}

caf::result<caf::message> Forward(LinkPointer self, caf::message_view& view) {
  LinkActorState& st = self->state;
  caf::mailbox_element* elem = self->current_mailbox_element();
  const Charge charge = Classify(view.content());
  const Clock::time_point deliver = Schedule(st, *elem, charge);
  const caf::message_id mid = elem->mid;
  auto out = caf::make_mailbox_element(elem->sender, mid, std::move(elem->stages),
                                       view.move_content_to_message());
  elem->mid.mark_as_answered();  // the task answers the sender itself
  if (deliver == Clock::time_point{}) {
    st.target->enqueue(std::move(out), self->context());
  } else {
    self->clock().schedule_message(deliver, st.target, std::move(out));
  }
  return caf::delegated<caf::message>{};
}

caf::behavior VirtualLink(LinkPointer self, std::shared_ptr<ClusterState> cluster,
                          worker_actor target, std::string dst, bool colocated) {
  self->state.cluster = std::move(cluster);
  self->state.target = caf::actor_cast<caf::strong_actor_ptr>(target);
  self->state.dst = std::move(dst);
  self->state.colocated = colocated;
  self->monitor(target);
  self->set_down_handler([self](caf::down_msg& down) { self->quit(down.reason); });
  self->set_default_handler(
      [self](caf::scheduled_actor*, caf::message_view& view) { return Forward(self, view); });
  return {[](never_atom) {}};  // everything else goes to the default handler
}

}  // namespace

namespace actors {

Status ResolveVirtualTask(caf::actor_system& system, const std::string& address,
                          worker_actor* out) {
  std::string cluster_name, task_key;
  bool colocated = false;
  AF_RETURN_IF_ERROR(ParseVirtual(address, &cluster_name, &task_key, &colocated));
  std::shared_ptr<ClusterState> cluster;
  {
    std::lock_guard<std::mutex> lock(registry_mu);
    auto it = Registry().find(cluster_name);
    if (it != Registry().end()) cluster = it->second.lock();
  }
  if (!cluster) {
    return errors::Unavailable("no virtual cluster named '", cluster_name,
                               "' runs in this process");
  }
  auto task = cluster->tasks.find(task_key);
  if (task == cluster->tasks.end()) {
    return errors::Unavailable("virtual cluster '", cluster_name, "' has no task ", task_key);
  }
  const size_t slash = task_key.find('/');
  const std::string dst = ClusterSpec::TaskName(task_key.substr(0, slash),
                                                std::atoi(task_key.c_str() + slash + 1));
  auto link = system.spawn(VirtualLink, cluster, task->second, dst, colocated);
  *out = caf::actor_cast<worker_actor>(link);
  return Status::OK();
}

}  // namespace actors

// bench_step_hops on a 2-core VM: a scalar step through one `actorflow
// server` by the direct step path (RunGraph there and back) p50 100-130 us,
// so about 60 us per one-way hop, CPU of both ends included (it was 90 us
// through CAF alone); tensors of 1-64 MiB at 1.2-3.4 GB/s between
// processes, 3 GB/s taken. bench_null_step --mode validate compares.
TransportModel TransportModel::Loopback() {
  TransportModel m;
  m.latency_us = 60;
  m.bandwidth_bytes_per_s = 3e9;
  return m;
}

VirtualClusterOptions VirtualClusterOptions::PsWorkers(int ps, int workers,
                                                       TransportModel transport) {
  VirtualClusterOptions options;
  if (ps > 0) options.jobs["ps"] = ps;
  if (workers > 0) options.jobs["worker"] = workers;
  options.transport = std::move(transport);
  return options;
}

struct VirtualCluster::Impl {
  std::shared_ptr<caf::actor_system> system;
  std::shared_ptr<ClusterState> state;
  ClusterSpec spec;
  bool stopped = false;

  void Stop() {
    if (!state || stopped) return;
    stopped = true;
    {
      std::lock_guard<std::mutex> lock(registry_mu);
      auto it = Registry().find(state->name);
      if (it != Registry().end() && it->second.lock() == state) Registry().erase(it);
    }
    for (auto& [key, worker] : state->tasks) {
      caf::anon_send_exit(worker, caf::exit_reason::user_shutdown);
    }
  }
};

VirtualCluster::VirtualCluster(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

VirtualCluster::~VirtualCluster() { Stop(); }

Status VirtualCluster::Start(const VirtualClusterOptions& options,
                             std::unique_ptr<VirtualCluster>* out) {
  static std::atomic<int> next_id{0};
  std::string name = options.name.empty() ? "vc" + std::to_string(next_id++) : options.name;
  if (!ValidName(name)) {
    return errors::InvalidArgument("VirtualCluster: name '", name,
                                   "' must be letters, digits, '_' or '-'");
  }
  if (options.jobs.empty()) return errors::InvalidArgument("VirtualCluster: no jobs");
  if (options.threads_per_task < 1) {
    return errors::InvalidArgument("VirtualCluster: threads_per_task must be at least 1");
  }
  const TransportModel& m = options.transport;
  if (m.latency_us < 0 || m.bandwidth_bytes_per_s < 0 || m.message_overhead_bytes < 0) {
    return errors::InvalidArgument("VirtualCluster: the transport model has a negative figure");
  }
  std::string flag;
  for (const auto& [job, count] : options.jobs) {
    if (count < 1) {
      return errors::InvalidArgument("VirtualCluster: job '", job, "' needs at least one task");
    }
    flag += (flag.empty() ? "" : ";") + job + "=";
    for (int t = 0; t < count; ++t) flag += (t ? "," : "") + Address(name, job, t);
  }
  auto impl = std::make_unique<Impl>();
  AF_RETURN_IF_ERROR(ClusterSpec::FromFlag(flag, &impl->spec));
  for (const auto& [task, straggler] : m.stragglers) {
    bool known = false;
    for (const TaskAddress& t : impl->spec.AllTasks())
      known = known || ClusterSpec::TaskName(t.job, t.task) == task;
    if (!known) {
      return errors::InvalidArgument("VirtualCluster: straggler model for unknown task '", task,
                                     "'");
    }
    if (straggler.constant_ms < 0 || straggler.exponential_mean_ms < 0) {
      return errors::InvalidArgument("VirtualCluster: negative straggler delay for ", task);
    }
  }
  impl->system = actors::AcquireActorSystem();
  actors::InstallResourceFactories();
  // Every task's options first, so that a bad fault spec spawns nothing.
  std::vector<std::pair<std::string, actors::WorkerOptions>> workers;
  for (const auto& [job, count] : options.jobs) {
    for (int t = 0; t < count; ++t) {
      actors::WorkerOptions worker;
      worker.job = job;
      worker.task = t;
      worker.num_cpu_devices = 1;
      worker.threads_per_device = options.threads_per_task;
      worker.stall_warning_after = std::chrono::milliseconds(options.stall_warning_ms);
      AF_RETURN_IF_ERROR(faults::FaultInjector::Create(
          options.faults, ClusterSpec::TaskName(job, t), &worker.faults));
      workers.emplace_back(job + "/" + std::to_string(t), std::move(worker));
    }
  }
  auto state = std::make_shared<ClusterState>();
  state->name = name;
  state->model = m;
  state->rng.seed(m.seed);
  {
    std::lock_guard<std::mutex> lock(registry_mu);
    auto it = Registry().find(name);
    if (it != Registry().end() && !it->second.expired()) {
      return errors::AlreadyExists("VirtualCluster: a cluster named '", name,
                                   "' already runs in this process");
    }
    for (auto& [key, worker] : workers) {
      state->tasks[key] = actors::SpawnWorkerActor(*impl->system, worker);
    }
    Registry()[name] = state;
  }
  impl->state = std::move(state);
  out->reset(new VirtualCluster(std::move(impl)));
  return Status::OK();
}

const std::string& VirtualCluster::name() const { return impl_->state->name; }

const ClusterSpec& VirtualCluster::spec() const { return impl_->spec; }

ClusterSpec VirtualCluster::ClientSpec(const std::string& job, int task) const {
  // TF_CONFIG's dict form keeps the task's own index in a one-task job.
  std::string json = "{\"cluster\": {";
  bool first_job = true;
  for (const std::string& j : impl_->spec.jobs()) {
    json += std::string(first_job ? "" : ", ") + "\"" + j + "\": {";
    first_job = false;
    bool first = true;
    for (int t : impl_->spec.task_indices(j)) {
      if (j == job && t != task) continue;
      std::string address;
      (void)impl_->spec.Address(j, t, &address);
      if (j == job) address += kColocated;
      json += std::string(first ? "" : ", ") + "\"" + std::to_string(t) + "\": \"" + address + "\"";
      first = false;
    }
    json += "}";
  }
  json += "}}";
  ClusterSpec out;
  Status s = ClusterSpec::FromTfConfig(json, &out, nullptr, nullptr);
  if (!s.ok()) return impl_->spec;  // not reached: the addresses came from spec()
  return out;
}

std::string VirtualCluster::DeviceName(const std::string& job, int task) {
  return CanonicalDeviceName(job, 0, task, "CPU", 0);
}

VirtualTransportStats VirtualCluster::stats() const {
  VirtualTransportStats s;
  const ClusterState& c = *impl_->state;
  s.messages = c.messages.load();
  s.tensor_messages = c.tensor_messages.load();
  s.bytes = c.bytes.load();
  s.free_messages = c.free_messages.load();
  s.straggler_delays = c.straggler_delays.load();
  return s;
}

void VirtualCluster::Stop() { impl_->Stop(); }

}  // namespace af
