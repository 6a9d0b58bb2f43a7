#include "actors/device/device_actor.h"

#include <atomic>
#include <cstdio>
#include <memory>
#include <unordered_map>

#include <caf/local_actor.hpp>
#include <caf/spawn_options.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/any_thread_send.h"
#include "actors/device/step_trace.h"
#include "actors/worker/step_context.h"
#include "core/logging.h"
#include "core/memory_budget.h"
#include "core/resource_mgr.h"
#include "runtime/kernel_segment.h"
#include "graph/graph_def_import.h"
#include "runtime/executor.h"
#include "runtime/gpu_device.h"
#include "runtime/local_device.h"

namespace af::actors {
namespace {

// An executor and the device it computes on; shared with running steps so
// that it outlives a deregistration in the middle of a step.
struct RegisteredPartition {
  std::shared_ptr<LocalDevice> device;
  std::unique_ptr<Executor> executor;  // declared after `device`: freed first
  std::atomic<int> runs{0};
};

// The first run pays one-time costs (primitive creation, page faults), so
// the next two runs are the ones measured; later runs are not timed at all
// unless the step is traced.
bool ShouldMeasure(int run) { return run == 2 || run == 3; }

// Node times of a measured run go to the master's cost model; those of a
// traced step become the device's StepStats.
void ReportTimings(const Executor& executor, const std::string& device,
                   const std::vector<NodeTimingBuffer::Entry>& timings, bool measured,
                   const std::shared_ptr<StepContext>& step, int32_t slot) {
  if (measured) {
    std::vector<std::string> nodes;
    std::vector<double> micros;
    for (const NodeTimingBuffer::Entry& e : timings) {
      const Node* node = executor.graph().FindNodeId(e.timing.node_id);
      if (node == nullptr) continue;
      nodes.push_back(node->name());
      micros.push_back(static_cast<double>(e.timing.end_ns - e.timing.start_ns) / 1000.0);
    }
    step->SetCosts(slot, std::move(nodes), std::move(micros));
  }
  if (step->tracing()) {
    tensorflow::DeviceStepStats stats;
    BuildDeviceStepStats(device, executor.graph(), timings, &stats);
    step->SetTrace(slot, stats.SerializeAsString());
  }
}

struct DeviceState {
  std::shared_ptr<LocalDevice> device;
  // The device's variable containers: process-wide by device name, so they
  // outlive this actor and are shared by every session on the device.
  ResourceMgr* resource_manager = nullptr;
  // Stateful kernels shared by the plans of this device actor's session
  // (each local session has its own worker; a server's worker serves all).
  std::shared_ptr<KernelSegment> kernel_segment = std::make_shared<KernelSegment>();
  std::unordered_map<int64_t, std::shared_ptr<RegisteredPartition>> partitions;
  // Why the device could not be opened (a GPU that failed), or OK.
  Status unavailable;
  // The device's allocator charged to each session's memory budget, made
  // once per session (they are never freed: core/memory_budget.h).
  std::unordered_map<const MemoryBudget*, Allocator*> budgeted_allocators;
  static inline const char* name = "af.device";
};

using DevicePointer = device_actor::stateful_pointer<DeviceState>;

Status BuildPartition(const std::shared_ptr<LocalDevice>& device, KernelSegment* segment,
                      const std::string& bytes,
                      wire::RegisterGraphResponse* response,
                      std::shared_ptr<RegisteredPartition>* out) {
  tensorflow::GraphDef def;
  if (!def.ParseFromString(bytes)) {
    return errors::InvalidArgument("RegisterGraph on ", device->name(),
                                   ": the partition is not a valid GraphDef");
  }
  for (const tensorflow::NodeDef& node : def.node()) {
    if (node.op() == "_Arg") ++response->num_args;
    if (node.op() == "_Retval") ++response->num_retvals;
  }
  auto graph = std::make_unique<Graph>();
  Status s = ImportGraphDef(def, graph.get());
  if (!s.ok()) return s.WithContext("RegisterGraph on " + device->name());
  auto partition = std::make_shared<RegisteredPartition>();
  partition->device = device;
  s = NewLocalExecutor(device.get(), std::move(graph), &partition->executor, segment);
  if (!s.ok()) return s.WithContext("RegisterGraph on " + device->name());
  *out = std::move(partition);
  return Status::OK();
}

// The device itself: a CPU's allocator and pool, or a GPU's context (its
// streams and memory, shared by every device actor of the process that
// drives the same GPU).
Status MakeDevice(const DeviceActorOptions& options, std::shared_ptr<LocalDevice>* out) {
  if (options.type != DEVICE_GPU) {
    *out = std::make_shared<LocalDevice>(options.name, options.type, GetCpuAllocator(),
                                         options.num_threads, options.incarnation);
    return Status::OK();
  }
  gpu::GpuDeviceContext* context = nullptr;
  AF_RETURN_IF_ERROR(gpu::GetProcessGpuContext(options.gpu_ordinal, &context));
  *out = std::make_shared<GpuDevice>(options.name, context, options.num_threads,
                                     options.incarnation);
  return Status::OK();
}

device_actor::behavior_type DeviceBehavior(DevicePointer self, DeviceActorOptions options) {
  Status made = MakeDevice(options, &self->state.device);
  if (!made.ok()) {
    // A GPU that cannot be opened still answers: every partition placed on
    // it fails to register with the reason.
    AF_LOG(ERROR) << "device " << options.name << " unavailable: " << made.ToString();
    self->state.device = std::make_shared<LocalDevice>(options.name, options.type,
                                                       GetCpuAllocator(), 1,
                                                       options.incarnation);
    self->state.unavailable = made;
  }
  self->state.resource_manager = ResourceMgrForDevice(options.name);
  return {
      [=](reg_graph_atom, int64_t handle, const std::string& bytes) {
        wire::RegisterGraphResponse response;
        response.handle = handle;
        std::shared_ptr<RegisteredPartition> partition;
        Status s = self->state.unavailable;
        if (s.ok()) {
          s = BuildPartition(self->state.device, self->state.kernel_segment.get(), bytes,
                             &response, &partition);
        }
        if (s.ok()) {
          if (options.local_partitions) {
            options.local_partitions->Add(
                handle, LocalPartition{partition, partition->executor.get(),
                                       self->state.resource_manager});
          }
          self->state.partitions[handle] = std::move(partition);
        }
        response.status = wire::ToWire(s);
        return response;
      },
      [=](dereg_atom, int64_t handle) {
        if (options.local_partitions) options.local_partitions->Remove(handle);
        self->state.partitions.erase(handle);
      },
      [=](run_part_atom, const std::shared_ptr<StepContext>& step, int32_t slot, int64_t handle) {
        auto it = self->state.partitions.find(handle);
        if (it == self->state.partitions.end()) {
          step->PartitionDone(errors::NotFound("step ", step->step_id(), ": partition handle ",
                                               handle, " is not registered on ",
                                               self->state.device->name()));
          return;
        }
        step->KeepAlive(slot, it->second);
        Executor::Args args;
        args.step_id = step->step_id();
        args.rendezvous = step->rendezvous();
        args.cancellation_manager = step->cancellation_manager();
        args.call_frame = step->frame(slot);
        args.resource_manager = self->state.resource_manager;
        if (const auto& budget = step->memory_budget()) {
          Allocator*& budgeted = self->state.budgeted_allocators[budget.get()];
          if (budgeted == nullptr) {
            budgeted = MakeBudgetedAllocator(self->state.device->GetAllocator(), budget);
          }
          args.budgeted_allocator = budgeted;
        }
        std::shared_ptr<RegisteredPartition> partition = it->second;
        const bool measure = ShouldMeasure(++partition->runs);
        if (measure || step->tracing()) {
          // Sized for one run of every node before the step starts.
          auto timings = std::make_shared<NodeTimingBuffer>(
              partition->executor->graph().num_node_ids(), partition->device->pool());
          args.timing_sink = [timings](const NodeTiming& t) { timings->Add(t); };
          HandlerScope scope(self);
          partition->executor->RunAsync(
              args, [step, slot, partition, timings, measure](const Status& status) {
                if (status.ok()) {
                  ReportTimings(*partition->executor, partition->device->name(), timings->Take(),
                                measure, step, slot);
                }
                step->PartitionDone(status);
              });
          return;
        }
        HandlerScope scope(self);
        partition->executor->RunAsync(
            args, [step](const Status& status) { step->PartitionDone(status); });
      },
  };
}

}  // namespace

device_actor SpawnDeviceActor(caf::local_actor* parent, const DeviceActorOptions& options) {
  return parent->spawn<caf::linked>(DeviceBehavior, options);
}

}  // namespace af::actors
