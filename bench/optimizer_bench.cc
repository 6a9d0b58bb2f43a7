// bench_optimizer: what the graph optimizer (graph/optimizer.h) does to
// real step graphs, and what it costs or saves at run time.
//  - gradient_built_twice: the MLP's gradients asked for twice (two
//    identical gradient subgraphs, as a model whose training is built
//    twice has): the nodes the second copy adds to the pruned step graph,
//    and per pass the nodes before and after and the time the pass took.
//  - train_step: the median training-step time of the MLP and the CNN
//    with the optimizer off and on, in one run (ratio off/on), and each
//    setting's peak tensor memory during a step above what the process
//    held before it (the CPU allocator's peak).
//
//   bench_optimizer [--steps 60]
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "client/client_session.h"
#include "client/gradients.h"
#include "client/optimizers/momentum.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "examples/models/mnist_models.h"
#include "graph/graph_def_import.h"
#include "graph/subgraph.h"
#include "runtime/step_plan.h"

namespace af {
namespace {

struct ModelGraph {
  Scope root = Scope::NewRootScope();
  Output images, labels;
  models::Model model;
};

void BuildMnistModel(const std::string& name, ModelGraph* g) {
  g->images = ops::Placeholder(g->root.WithOpName("images"), DT_FLOAT,
                               PartialTensorShape({-1, 28, 28, 1}));
  g->labels = ops::Placeholder(g->root.WithOpName("labels"), DT_INT32, PartialTensorShape({-1}));
  bench::CheckOk(models::BuildModel(g->root, name, g->images, g->labels, 1, &g->model), "model");
}

void GradientBuiltTwice() {
  ModelGraph g;
  BuildMnistModel("mlp", &g);
  const std::vector<Output> vars = TrainableVariables(g.root);
  std::vector<Output> first, second;
  bench::CheckOk(AddSymbolicGradients(g.root, {g.model.loss}, vars, &first), "gradients");
  bench::CheckOk(AddSymbolicGradients(g.root, {g.model.loss}, vars, &second), "gradients");
  // The step uses both copies (their sum), so neither is fetched by name
  // and kept for that.
  StepSignature signature;
  signature.feeds = {g.images.name(), g.labels.name()};
  for (size_t i = 0; i < first.size(); ++i)
    signature.fetches.push_back(
        Output(ops::Add(g.root.WithOpName("sum_" + std::to_string(i)), first[i], second[i]))
            .name());
  tensorflow::GraphDef def;
  bench::CheckOk(g.root.ToGraphDef(&def), "graph");
  // The second copy's nodes that the step needs.
  Graph graph;
  bench::CheckOk(ImportGraphDef(def, &graph), "import");
  std::unique_ptr<Graph> pruned;
  bench::CheckOk(PruneForExecution(graph, signature, &pruned), "prune");
  // Every node of the second copy is named under its scope ("gradients_1/").
  const std::string& a_second = second.front().node()->name();
  const std::string prefix = a_second.substr(0, a_second.find('/') + 1);
  int duplicated = 0;
  for (const Node* n : pruned->nodes())
    if (n->name().rfind(prefix, 0) == 0) ++duplicated;
  const std::vector<DeviceAttributes> devices = {
      {"/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, 1}};
  StepPlan plan;
  bench::CheckOk(BuildStepPlan(def, signature, devices, nullptr, &plan, OptimizerOptions{}),
                 "plan");
  for (const PassReport& pass : plan.optimizer_passes) {
    std::ostringstream extra;
    extra << "\"graph_nodes\":" << def.node_size() << ",\"second_copy_nodes\":" << duplicated
          << ",\"nodes_before\":" << pass.nodes_before << ",\"nodes_after\":" << pass.nodes_after
          << ",\"added\":" << pass.stats.nodes_added
          << ",\"rewritten\":" << pass.stats.nodes_rewritten << ",\"micros\":" << pass.micros;
    bench::PrintResult("optimizer", "gradient_built_twice_" + pass.pass, extra.str(),
                       "nodes_removed", pass.stats.nodes_removed, "nodes");
  }
}

// A training step of `name` at batch 64.
struct StepFigures {
  double seconds = 0;   // median step
  double peak_mib = 0;  // the largest step's peak above what it started with
};

StepFigures TrainStepFigures(const std::string& name, bool optimize, int steps) {
  ModelGraph g;
  BuildMnistModel(name, &g);
  MomentumOptimizer sgd(0.01, 0.9);
  Operation train;
  bench::CheckOk(sgd.Minimize(g.root, g.model.loss, &train), "minimize");
  SessionOptions options;
  options.threads_per_device = 2;
  options.num_gpu_devices = 0;
  if (!optimize) options.optimizer.opt_level = OptimizerOptions::L0;
  ClientSession session(g.root, options);
  bench::CheckOk(session.Run({}, {}, {GlobalVariablesInitializer(g.root)}, nullptr), "init");
  constexpr int kBatch = 64;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
  Tensor x(DT_FLOAT, TensorShape{kBatch, 28, 28, 1});
  Tensor y(DT_INT32, TensorShape{kBatch});
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = pixel(rng);
  for (int64_t i = 0; i < kBatch; ++i) y.data<int32_t>()[i] = static_cast<int32_t>(i % 10);
  const ClientSession::FeedType feeds = {{g.images, x}, {g.labels, y}};
  std::vector<double> seconds;
  StepFigures figures;
  for (int s = 0; s < steps + 10; ++s) {
    const bench::PeakTensorMemory memory;
    const auto t0 = std::chrono::steady_clock::now();
    bench::CheckOk(session.Run(feeds, {}, {train}, nullptr), "train step");
    if (s < 10) continue;
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    figures.peak_mib = std::max(figures.peak_mib, memory.MiB());
  }
  std::sort(seconds.begin(), seconds.end());
  figures.seconds = seconds[seconds.size() / 2];
  return figures;
}

void TrainStep(const std::string& name, int steps) {
  // Alternating rounds, so that a noisy neighbour hurts both settings alike.
  std::vector<StepFigures> off, on;
  for (int round = 0; round < 2; ++round) {
    off.push_back(TrainStepFigures(name, false, steps));
    on.push_back(TrainStepFigures(name, true, steps));
  }
  auto fastest = [](const std::vector<StepFigures>& v) {
    double best = v[0].seconds;
    for (const StepFigures& f : v) best = std::min(best, f.seconds);
    return best;
  };
  auto peak = [](const std::vector<StepFigures>& v) {
    double most = 0;
    for (const StepFigures& f : v) most = std::max(most, f.peak_mib);
    return most;
  };
  const double off_s = fastest(off), on_s = fastest(on);
  std::ostringstream extra;
  extra << "\"model\":\"" << name << "\",\"batch\":64,\"step_ms_off\":" << off_s * 1e3
        << ",\"step_ms_on\":" << on_s * 1e3 << ",\"peak_step_mib_off\":" << peak(off)
        << ",\"peak_step_mib_on\":" << peak(on);
  bench::PrintResult("optimizer", "train_step_" + name, extra.str(), "off_over_on",
                     off_s / on_s, "x");
}

}  // namespace
}  // namespace af

int main(int argc, char** argv) {
  int steps = 60;
  for (int i = 1; i + 1 < argc; i += 2)
    if (std::string(argv[i]) == "--steps") steps = std::max(5, std::atoi(argv[i + 1]));
  af::GradientBuiltTwice();
  for (const char* model : {"mlp", "cnn"}) af::TrainStep(model, steps);
  return 0;
}
