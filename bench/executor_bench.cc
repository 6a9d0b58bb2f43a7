// bench/executor: TensorFlow's BM_executor shapes, random DAGs of NoOps
// joined by control edges, run through Session::Run of a cached step.
// Prints nodes/s on one CPU device and on two.
#include <chrono>
#include <cstdio>
#include <string>
#include <random>

#include "bench/bench_util.h"
#include "client/session.h"

namespace af::bench {
namespace {

// Layer by layer: a random subset of the current frontier joins into one
// node, which fans out to 1..width new nodes. A final sink depends on every
// leaf so that one target runs the whole graph.
tensorflow::GraphDef RandomNoOpDag(int width, int depth, int64_t* num_nodes) {
  std::mt19937 rng(1729);
  tensorflow::GraphDef g;
  int64_t next = 0;
  auto new_node = [&](const std::vector<std::string>& deps) {
    std::vector<std::string> inputs;
    for (const auto& d : deps) inputs.push_back("^" + d);
    const std::string name = "n" + std::to_string(next++);
    AddNode(&g, name, "NoOp", inputs);
    return name;
  };
  std::vector<std::string> frontier;
  const int first = 1 + static_cast<int>(rng() % width);
  for (int i = 0; i < first; ++i) frontier.push_back(new_node({}));
  for (int d = 0; d < depth; ++d) {
    std::shuffle(frontier.begin(), frontier.end(), rng);
    const size_t take = 1 + rng() % frontier.size();
    std::vector<std::string> joined(frontier.end() - static_cast<long>(take), frontier.end());
    frontier.resize(frontier.size() - take);
    const std::string join = new_node(joined);
    const int fan = 1 + static_cast<int>(rng() % width);
    for (int i = 0; i < fan; ++i) frontier.push_back(new_node({join}));
  }
  std::vector<std::string> leaves = frontier;
  AddNode(&g, "sink", "NoOp", {});
  for (const auto& leaf : leaves) g.mutable_node(g.node_size() - 1)->add_input("^" + leaf);
  *num_nodes = next + 1;
  return g;
}

void Run(int width, int depth, int devices, double seconds_to_time = 1.0,
         bool optimize = false) {
  int64_t nodes = 0;
  tensorflow::GraphDef g = RandomNoOpDag(width, depth, &nodes);
  SessionOptions options;
  options.num_cpu_devices = devices;
  // The executor's throughput, as TensorFlow's BM_executor measures it: the
  // graph optimizer would merge the NoOps that share their only input.
  if (!optimize) options.optimizer.opt_level = OptimizerOptions::L0;
  std::unique_ptr<Session> session;
  CheckOk(Session::Create(options, &session), "create session");
  CheckOk(session->Extend(g), "extend");
  std::vector<Tensor> out;
  const std::string name = std::to_string(width) + "x" + std::to_string(depth);
  const std::string fields = "\"devices\":" + std::to_string(devices) +
                             ",\"nodes\":" + std::to_string(nodes) +
                             ",\"optimizer\":" + (optimize ? "true" : "false");
  // The first Run prunes, optimizes, places, partitions and builds the
  // executors: what a large graph costs before its first step.
  const auto first = std::chrono::steady_clock::now();
  CheckOk(session->Run({}, {}, {"sink"}, &out), "first run");
  PrintResult("executor", name, fields, "first_run_s",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - first).count(),
              "s");
  if (optimize) return;  // the optimizer removed most of the nodes counted
  const double seconds = TimePerCall(
      [&] { CheckOk(session->Run({}, {}, {"sink"}, &out), "run"); }, seconds_to_time, 3,
      4);
  PrintResult("executor", name, fields, "nodes_per_s", static_cast<double>(nodes) / seconds,
              "1/s");
}

}  // namespace
}  // namespace af::bench

// With an argument WIDTHxDEPTH (e.g. 1024x1024) only that shape runs, on one
// device and is timed for 10 s: what a profiler wants. A second argument
// `optimizer` runs it with the graph optimizer on and prints only the first
// Run's time.
int main(int argc, char** argv) {
  int width = 0, depth = 0;
  if (argc > 1 && std::sscanf(argv[1], "%dx%d", &width, &depth) == 2) {
    const bool optimize = argc > 2 && std::string(argv[2]) == "optimizer";
    af::bench::Run(width, depth, 1, 10.0, optimize);
    return 0;
  }
  const int shapes[][2] = {{16, 1024}, {32, 8192}, {1024, 16}, {8192, 32}, {1024, 1024}};
  for (int devices : {1, 2})
    for (const auto& s : shapes) af::bench::Run(s[0], s[1], devices);
  return 0;
}
