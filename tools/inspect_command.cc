// `actorflow inspect GRAPH`: what a GraphDef contains, at a glance.
#include <algorithm>
#include <iomanip>

#include "core/gpu/gpu_device_context.h"
#include "graph/graph_def_import.h"
#include "tools/graph_summary.h"
#include "tools/subcommands.h"

namespace af::tools {
namespace {

constexpr std::string_view kUsage =
    "usage: actorflow inspect GRAPH\n"
    "       actorflow inspect --devices\n"
    "\n"
    "--devices lists the devices a worker of this process would have: the CPU and\n"
    "every GPU (CUDA's, or ACTORFLOW_EMULATED_GPUS emulated ones) with its memory.\n"
    "\n"
    "Loads a GraphDef (binary .pb or text .pbtxt), checks it, and prints its node\n"
    "count, ops by count, inputs (Placeholders), outputs (nodes that feed nothing)\n"
    "and parameter count (elements of floating-point Consts and variables), and the\n"
    "variables' bytes per requested device (how they spread over ps tasks).\n";

void PrintTensors(std::ostream& out, const char* title, const std::vector<TensorInfo>& tensors) {
  out << title << " (" << tensors.size() << "):\n";
  for (const TensorInfo& t : tensors) {
    out << "  " << t.name << "  " << DataTypeString(t.dtype) << " " << t.shape.DebugString()
        << "\n";
  }
}

void PrintSummary(std::ostream& out, const std::string& path, const GraphSummary& s) {
  out << "graph: " << path << "\n";
  out << "nodes: " << WithThousandsSeparators(s.num_nodes) << "\n";
  out << "ops (" << s.ops.size() << "):\n";
  size_t width = 0;
  for (const auto& [op, count] : s.ops) width = std::max(width, op.size());
  for (const auto& [op, count] : s.ops) {
    out << "  " << std::left << std::setw(static_cast<int>(width)) << op << "  "
        << std::right << count << "\n";
  }
  PrintTensors(out, "inputs", s.inputs);
  PrintTensors(out, "outputs", s.outputs);
  out << "parameters: " << WithThousandsSeparators(s.parameters) << " ("
      << WithThousandsSeparators(s.parameter_bytes) << " bytes)\n";
  if (s.variables_by_device.empty()) return;
  // How a placement (say, the replica device setter's) spreads the state
  // over parameter servers: one ps with most of the bytes takes most of the
  // traffic.
  int64_t total = 0;
  for (const auto& load : s.variables_by_device) total += load.bytes;
  out << "variables by device:\n";
  for (const auto& load : s.variables_by_device) {
    out << "  " << (load.device.empty() ? "(no device)" : load.device) << ": " << load.variables
        << (load.variables == 1 ? " variable, " : " variables, ")
        << WithThousandsSeparators(load.bytes) << " bytes";
    if (total > 0) out << " (" << (100 * load.bytes + total / 2) / total << "%)";
    out << "\n";
  }
}

int PrintDevices(std::ostream& out, std::ostream& err) {
  out << "/job:localhost/replica:0/task:0/device:CPU:0  CPU\n";
  const int gpus = gpu::ProcessGpuCount();
  for (int i = 0; i < gpus; ++i) {
    gpu::GpuDeviceContext* ctx = nullptr;
    Status s = gpu::GetProcessGpuContext(i, &ctx);
    if (!s.ok()) {
      err << "actorflow inspect: GPU " << i << ": " << s << "\n";
      return kExitError;
    }
    const gpu::DeviceProperties& p = ctx->properties();
    out << "/job:localhost/replica:0/task:0/device:GPU:" << i << "  GPU  " << p.name << "  "
        << WithThousandsSeparators(p.total_memory >> 20) << " MiB (allocator limit "
        << WithThousandsSeparators(ctx->memory_limit() >> 20) << " MiB)";
    if (p.emulated) {
      out << "  emulated";
    } else {
      out << "  compute capability " << p.compute_capability_major << "."
          << p.compute_capability_minor << ", " << p.multiprocessor_count << " multiprocessors";
    }
    out << "\n";
  }
  if (gpus == 0) {
    out << "no GPU" << (gpu::CudaBuilt() ? " (no CUDA device)" : " (built without CUDA)")
        << "; ACTORFLOW_EMULATED_GPUS=N emulates N\n";
  }
  return kExitOk;
}

int InspectMain(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.size() == 1 && args[0] == "--devices") return PrintDevices(out, err);
  if (args.size() != 1) {
    err << kUsage;
    return kExitUsage;
  }
  const std::string& path = args[0];
  tensorflow::GraphDef def;
  Status s = ReadGraphDefFile(path, &def);
  Graph g;
  if (s.ok()) s = ImportGraphDef(def, &g).WithContext(path);
  if (!s.ok()) {
    err << "actorflow inspect: " << s << "\n";
    return kExitError;
  }
  PrintSummary(out, path, SummarizeGraph(g));
  return kExitOk;
}

}  // namespace

const Subcommand kInspectCommand = {
    "inspect", "summarize a GraphDef: ops, inputs, outputs, parameter count", kUsage,
    &InspectMain};

}  // namespace af::tools
