// `actorflow run`: runs one step of a GraphDef through a Session, with
// feeds read from .npy files, and prints and saves the fetched tensors.
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "client/chrome_trace.h"
#include "client/const_op.h"
#include "client/gradients.h"
#include "client/scope.h"
#include "client/session.h"
#include "core/node_def_util.h"
#include "core/npy.h"
#include "graph/graph_def_import.h"
#include "tools/flags.h"
#include "tools/subcommands.h"

namespace af::tools {
namespace {

constexpr std::string_view kUsage =
    "usage: actorflow run --graph G.pb|G.pbtxt [--feed NAME[:PORT]=FILE.npy ...]\n"
    "                     --fetch NAME[:PORT] ... [--target NODE ...]\n"
    "                     [--grad Y[:PORT] ... --wrt X[:PORT] ... [--grad_ys FILE.npy ...]]\n"
    "                     [--devices cpu:N[,gpu:M]] [--out DIR] [--trace FILE.json]\n"
    "                     [--cluster SPEC | --target af://HOST:PORT] [--secret_file PATH]\n"
    "\n"
    "Runs one step of the graph: feeds the named tensors from .npy files, computes\n"
    "the fetches and runs the targets. Prints each fetched tensor's dtype, shape\n"
    "and first values; with --out writes DIR/<name>_<port>.npy ('/' in names\n"
    "becomes '_'). An error prints the Status and exits with 1.\n"
    "\n"
    "  --grad Y          also compute the gradient of sum(Y) (of every --grad Y,\n"
    "                    summed) with respect to each --wrt X; printed as\n"
    "                    grad(X) and written to DIR/grad_<x>_<port>.npy\n"
    "  --grad_ys F.npy   weights of the Ys instead of ones: one file per --grad,\n"
    "                    shaped like its Y\n"
    "  --devices cpu:N[,gpu:M]  CPU devices to place the graph on (default 1) and\n"
    "                    GPUs (default: every GPU of the process; gpu:0 for none)\n"
    "  --cluster SPEC    also use every task of a cluster of `actorflow server`s,\n"
    "                    \"ps=h:p,h:p;worker=h:p,...\" (default: TF_CONFIG's cluster\n"
    "                    when set); nodes placed on /job:ps/task:1 run there\n"
    "  --target af://HOST:PORT\n"
    "                    run the session's master in that `actorflow server`, over\n"
    "                    its devices and its cluster's (this process only sends\n"
    "                    the graph, feeds and fetches); a --target that is not an\n"
    "                    af:// address names a node to run\n"
    "  --secret_file PATH the cluster secret the servers require (default: the file\n"
    "                    ACTORFLOW_SECRET_FILE names)\n"
    "  --trace F.json    run the step traced and write a Chrome trace (one process\n"
    "                    per device, a track per thread, arrows from Send to Recv)\n"
    "                    for chrome://tracing or ui.perfetto.dev\n";

struct RunFlags {
  std::string graph;
  std::vector<std::pair<std::string, std::string>> feeds;  // tensor name, file
  std::vector<std::string> fetches, targets;
  std::vector<std::string> grad_ys, wrt, grad_ys_files;
  int num_cpus = 1;
  int num_gpus = -1;  // -1: every GPU of the process
  std::string out_dir;
  std::string trace_file;
  ClusterSpec cluster;
  std::string session_target;  // "af://host:port"
  std::string secret_file;     // empty: ACTORFLOW_SECRET_FILE's
};

Status ReadRunFlags(const Args& args, RunFlags* flags) {
  std::vector<Flag> list;
  AF_RETURN_IF_ERROR(ParseFlags(args, {}, &list));
  for (const Flag& f : list) {
    if (f.name == "--graph") {
      flags->graph = f.value;
    } else if (f.name == "--feed") {
      const size_t eq = f.value.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == f.value.size())
        return errors::InvalidArgument("--feed wants NAME[:PORT]=FILE.npy, got '", f.value, "'");
      flags->feeds.emplace_back(f.value.substr(0, eq), f.value.substr(eq + 1));
    } else if (f.name == "--fetch") {
      flags->fetches.push_back(f.value);
    } else if (f.name == "--target") {
      // Node names cannot hold "://", so the two meanings never meet.
      if (f.value.find("://") != std::string::npos) {
        if (!flags->session_target.empty())
          return errors::InvalidArgument("give one --target af://HOST:PORT, got '",
                                         flags->session_target, "' and '", f.value, "'");
        flags->session_target = f.value;
      } else {
        flags->targets.push_back(f.value);
      }
    } else if (f.name == "--grad") {
      flags->grad_ys.push_back(f.value);
    } else if (f.name == "--wrt") {
      flags->wrt.push_back(f.value);
    } else if (f.name == "--grad_ys") {
      flags->grad_ys_files.push_back(f.value);
    } else if (f.name == "--devices") {
      std::string spec = f.value;
      std::transform(spec.begin(), spec.end(), spec.begin(), ::tolower);
      // "cpu:N", "gpu:M" or both, comma-separated.
      size_t start = 0;
      while (start <= spec.size()) {
        const size_t comma = spec.find(',', start);
        const std::string part =
            spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        bool ok = false;
        if (part.rfind("cpu:", 0) == 0) ok = ParseInt(part.substr(4), 1, 256, &flags->num_cpus);
        if (part.rfind("gpu:", 0) == 0) ok = ParseInt(part.substr(4), 0, 64, &flags->num_gpus);
        if (!ok) {
          return errors::InvalidArgument(
              "--devices wants cpu:N (1..256) and/or gpu:M (0..64), comma-separated, got '",
              f.value, "'");
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (f.name == "--out") {
      flags->out_dir = f.value;
    } else if (f.name == "--trace") {
      flags->trace_file = f.value;
    } else if (f.name == "--cluster") {
      AF_RETURN_IF_ERROR(ClusterSpec::FromFlag(f.value, &flags->cluster));
    } else if (f.name == "--secret_file") {
      flags->secret_file = f.value;
    } else {
      return errors::InvalidArgument("unknown flag '", f.name, "'");
    }
  }
  if (flags->graph.empty()) return errors::InvalidArgument("--graph is required");
  if (flags->cluster.jobs().empty() && flags->session_target.empty()) {
    if (const char* tf_config = std::getenv("TF_CONFIG"); tf_config != nullptr && *tf_config) {
      AF_RETURN_IF_ERROR(ClusterSpec::FromTfConfig(tf_config, &flags->cluster, nullptr, nullptr));
    }
  }
  if (flags->fetches.empty() && flags->targets.empty() && flags->grad_ys.empty())
    return errors::InvalidArgument("give at least one --fetch, --target or --grad");
  if (flags->grad_ys.empty() != flags->wrt.empty())
    return errors::InvalidArgument("--grad and --wrt go together");
  if (!flags->grad_ys_files.empty() && flags->grad_ys_files.size() != flags->grad_ys.size())
    return errors::InvalidArgument("give one --grad_ys file per --grad (", flags->grad_ys.size(),
                                   " --grad, ", flags->grad_ys_files.size(), " --grad_ys)");
  return Status::OK();
}

// "scope/name:1" -> "scope_name_1"; a bare name is port 0.
std::string OutputFileStem(const std::string& tensor_name) {
  std::string name = tensor_name, port = "0";
  if (const size_t colon = name.rfind(':'); colon != std::string::npos) {
    port = name.substr(colon + 1);
    name = name.substr(0, colon);
  }
  std::replace(name.begin(), name.end(), '/', '_');
  return name + "_" + port;
}

void PrintTensor(const std::string& name, const Tensor& t, std::ostream& out) {
  out << name << ": dtype " << DataTypeString(t.dtype()) << ", shape "
      << t.shape().DebugString() << "\n  values:";
  const int64_t n = std::min<int64_t>(t.NumElements(), 10);
  for (int64_t i = 0; i < n; ++i) out << ' ' << t.ValueString(i);
  if (t.NumElements() > n) out << " ... (" << t.NumElements() << " values)";
  out << "\n";
}

// "name[:port]" of the imported graph as an Output.
Status FindOutput(const Graph& g, const std::string& tensor_name, Output* out) {
  TensorId id;
  AF_RETURN_IF_ERROR(ParseTensorName(tensor_name, &id));
  Node* n = g.FindNode(id.node);
  if (n == nullptr || id.is_control())
    return errors::NotFound("no tensor '", tensor_name, "' in the graph");
  if (id.index >= n->num_outputs())
    return errors::InvalidArgument("node '", id.node, "' has ", n->num_outputs(),
                                   " output(s); '", tensor_name, "' asks for another");
  *out = Output(n, id.index);
  return Status::OK();
}

// Adds d(sum of the Ys, weighted by --grad_ys)/dX for every --wrt X to the
// graph and names the gradient tensors to fetch.
Status AddGradients(const RunFlags& flags, tensorflow::GraphDef* graph,
                    std::vector<std::string>* grad_fetches) {
  Graph g;
  AF_RETURN_IF_ERROR(ImportGraphDef(*graph, &g));
  Scope root = Scope::NewRootScopeForGraph(&g);
  std::vector<Output> ys(flags.grad_ys.size()), xs(flags.wrt.size()), grad_ys, grads;
  for (size_t i = 0; i < ys.size(); ++i)
    AF_RETURN_IF_ERROR(FindOutput(g, flags.grad_ys[i], &ys[i]).WithContext("--grad"));
  for (size_t i = 0; i < xs.size(); ++i)
    AF_RETURN_IF_ERROR(FindOutput(g, flags.wrt[i], &xs[i]).WithContext("--wrt"));
  for (const std::string& file : flags.grad_ys_files) {
    Tensor t;
    AF_RETURN_IF_ERROR(ReadNpy(file, &t).WithContext("--grad_ys '" + file + "'"));
    grad_ys.push_back(ops::Const(root, Input::Initializer(t)));
  }
  AF_RETURN_IF_ERROR(root.status());
  if (grad_ys.empty()) {
    AF_RETURN_IF_ERROR(AddSymbolicGradients(root, ys, xs, &grads));
  } else {
    AF_RETURN_IF_ERROR(AddSymbolicGradients(root, ys, xs, grad_ys, &grads));
  }
  for (const Output& grad : grads) grad_fetches->push_back(grad.name());
  return root.ToGraphDef(graph);
}

Status RunStep(const RunFlags& flags, std::ostream& out) {
  tensorflow::GraphDef graph;
  AF_RETURN_IF_ERROR(ReadGraphDefFile(flags.graph, &graph));
  std::vector<std::string> fetches = flags.fetches, labels = flags.fetches;
  if (!flags.grad_ys.empty()) {
    std::vector<std::string> grad_fetches;
    AF_RETURN_IF_ERROR(AddGradients(flags, &graph, &grad_fetches));
    fetches.insert(fetches.end(), grad_fetches.begin(), grad_fetches.end());
    for (const std::string& x : flags.wrt) labels.push_back("grad(" + x + ")");
  }
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& [name, file] : flags.feeds) {
    Tensor t;
    AF_RETURN_IF_ERROR(ReadNpy(file, &t).WithContext("feed '" + name + "'"));
    feeds.emplace_back(name, std::move(t));
  }
  SessionOptions options;
  options.num_cpu_devices = flags.num_cpus;
  options.num_gpu_devices = flags.num_gpus;
  options.cluster = flags.cluster;
  options.target = flags.session_target;
  options.cluster_secret_file = flags.secret_file;
  std::unique_ptr<Session> session;
  AF_RETURN_IF_ERROR(Session::Create(options, &session));
  AF_RETURN_IF_ERROR(session->Extend(graph));
  std::vector<Tensor> outputs;
  RunOptions run_options;
  if (!flags.trace_file.empty()) run_options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  AF_RETURN_IF_ERROR(
      session->Run(run_options, feeds, fetches, flags.targets, &outputs, &metadata));
  if (!flags.out_dir.empty()) {
    if (mkdir(flags.out_dir.c_str(), 0755) != 0 && errno != EEXIST)
      return errors::PermissionDenied("cannot create output directory '", flags.out_dir, "'");
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    PrintTensor(labels[i], outputs[i], out);
    if (!flags.out_dir.empty()) {
      const bool is_grad = i >= flags.fetches.size();
      const std::string stem =
          is_grad ? "grad_" + OutputFileStem(flags.wrt[i - flags.fetches.size()])
                  : OutputFileStem(flags.fetches[i]);
      const std::string path = flags.out_dir + "/" + stem + ".npy";
      AF_RETURN_IF_ERROR(WriteNpy(path, outputs[i]));
      out << "  written to " << path << "\n";
    }
  }
  if (!flags.trace_file.empty()) {
    AF_RETURN_IF_ERROR(WriteChromeTrace(metadata.step_stats, flags.trace_file, metadata.traffic));
    int nodes = 0;
    for (const auto& device : metadata.step_stats.dev_stats()) nodes += device.node_stats_size();
    out << "trace of " << nodes << " node executions on " << metadata.step_stats.dev_stats_size()
        << " device(s) written to " << flags.trace_file << "\n";
  }
  return session->Close();
}

int RunMain(const Args& args, std::ostream& out, std::ostream& err) {
  RunFlags flags;
  Status s = ReadRunFlags(args, &flags);
  if (!s.ok()) {
    err << "actorflow run: " << s.message() << "\n\n" << kUsage;
    return kExitUsage;
  }
  s = RunStep(flags, out);
  if (!s.ok()) {
    err << "actorflow run: " << s << "\n";
    return kExitError;
  }
  return kExitOk;
}

}  // namespace

extern const Subcommand kRunCommand{"run", "run one step of a graph with .npy feeds",
                                    kUsage, &RunMain};

}  // namespace af::tools
