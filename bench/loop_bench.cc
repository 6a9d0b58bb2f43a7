// bench/loop: while loops (Enter/Merge/Switch/NextIteration/Exit, as
// TensorFlow lowers them) of 0, 1, 10, 100 and 1000 iterations carrying 1
// or 100 loop variables, each incremented every iteration. Prints
// microseconds per iteration (per run for 0 iterations).
//
// Then a loop whose body is split (acc += 3 * i on one device, i += 1 and
// the condition on the other; 4 tensors cross per iteration, the LoopCond
// value included) against the same loop colocated, in one process (two
// CPU devices) and over two `actorflow server` processes on 127.0.0.1.
// `--split-only` skips the first part.
//
// Last, the LSTM classifier of examples/lstm_fashion_mnist (128 hidden, 28
// rows, batch 128, synthetic images): ms per batch forward (loss) and
// forward+backward (loss and every gradient, through the loop), beside the
// same cell unrolled 28 times without a loop. `--lstm-only` runs just that.
#include <cstring>
#include <memory>
#include <vector>

#include "bench/bench_servers.h"
#include "bench/bench_util.h"
#include "client/client_session.h"
#include "client/gradients.h"
#include "client/session.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/logging.h"
#include "examples/models/lstm_model.h"
#include "core/tensor.h"
#include "core/types.h"

namespace af::bench {
namespace {

tensorflow::GraphDef WhileLoop(int iterations, int num_vars) {
  tensorflow::GraphDef g;
  const std::string frame = "loop";
  AddScalarConst(&g, "limit", iterations);
  auto* limit = AddNode(&g, "enter_limit", "Enter", {"limit"});
  SetTypeAttr(limit, "T", DT_INT32);
  SetStringAttr(limit, "frame_name", frame);
  SetBoolAttr(limit, "is_constant", true);
  for (int v = 0; v < num_vars; ++v) {
    const std::string s = std::to_string(v);
    AddScalarConst(&g, "init" + s, 0);
    auto* enter = AddNode(&g, "enter" + s, "Enter", {"init" + s});
    SetTypeAttr(enter, "T", DT_INT32);
    SetStringAttr(enter, "frame_name", frame);
    auto* merge = AddNode(&g, "merge" + s, "Merge", {"enter" + s, "next" + s});
    SetTypeAttr(merge, "T", DT_INT32);
    SetIntAttr(merge, "N", 2);
  }
  auto* less = AddNode(&g, "less", "Less", {"merge0", "enter_limit"});
  SetTypeAttr(less, "T", DT_INT32);
  AddNode(&g, "cond", "LoopCond", {"less"});
  for (int v = 0; v < num_vars; ++v) {
    const std::string s = std::to_string(v);
    SetTypeAttr(AddNode(&g, "switch" + s, "Switch", {"merge" + s, "cond"}), "T", DT_INT32);
    SetTypeAttr(AddNode(&g, "exit" + s, "Exit", {"switch" + s + ":0"}), "T", DT_INT32);
    SetTypeAttr(AddNode(&g, "body" + s, "Identity", {"switch" + s + ":1"}), "T", DT_INT32);
    AddScalarConst(&g, "one" + s, 1, "body" + s);
    SetTypeAttr(AddNode(&g, "add" + s, "Add", {"body" + s, "one" + s}), "T", DT_INT32);
    SetTypeAttr(AddNode(&g, "next" + s, "NextIteration", {"add" + s}), "T", DT_INT32);
  }
  // A target that needs every loop variable, so pruning keeps them all.
  std::vector<std::string> exits;
  for (int v = 0; v < num_vars; ++v) exits.push_back("^exit" + std::to_string(v));
  AddNode(&g, "all_exits", "NoOp", exits);
  return g;
}

void Run(int iterations, int num_vars) {
  std::unique_ptr<Session> session;
  CheckOk(Session::Create(SessionOptions{}, &session), "create session");
  CheckOk(session->Extend(WhileLoop(iterations, num_vars)), "extend");
  std::vector<Tensor> out;
  auto step = [&] { CheckOk(session->Run({}, {"exit0:0"}, {"all_exits"}, &out), "run"); };
  step();
  if (out[0].scalar<int32_t>() != iterations) {
    AF_LOG(ERROR) << "loop computed " << out[0].scalar<int32_t>() << ", expected " << iterations;
    std::exit(1);
  }
  const double seconds = TimePerCall(step, 0.5);
  const std::string name =
      std::to_string(iterations) + "_iters_" + std::to_string(num_vars) + "_vars";
  const std::string fields =
      "\"iterations\":" + std::to_string(iterations) + ",\"loop_vars\":" + std::to_string(num_vars);
  if (iterations == 0)
    PrintResult("loop", name, fields, "us_per_run", seconds * 1e6, "us");
  else
    PrintResult("loop", name, fields, "us_per_iteration", seconds * 1e6 / iterations, "us");
}

// while (i < n) { acc += i * 3; i += 1 }: the loop variables and the
// condition on `control`, the acc update on `other`.
tensorflow::GraphDef SplitLoop(const std::string& control, const std::string& other,
                               int parallel_iterations) {
  tensorflow::GraphDef g;
  const std::string frame = "split";
  auto node = [&](const std::string& name, const std::string& op,
                  const std::vector<std::string>& inputs, const std::string& device) {
    tensorflow::NodeDef* n = AddNode(&g, name, op, inputs);
    n->set_device(device);
    if (op != "LoopCond" && op != "Const") SetTypeAttr(n, "T", DT_INT32);
    return n;
  };
  auto enter = [&](const std::string& name, const std::string& input, bool constant,
                   const std::string& device) {
    tensorflow::NodeDef* n = node(name, "Enter", {input}, device);
    SetStringAttr(n, "frame_name", frame);
    SetBoolAttr(n, "is_constant", constant);
    SetIntAttr(n, "parallel_iterations", parallel_iterations);
  };
  tensorflow::NodeDef* n = AddNode(&g, "n", "Placeholder", {});
  SetTypeAttr(n, "dtype", DT_INT32);
  n->set_device(control);
  AddScalarConst(&g, "zero", 0)->set_device(control);
  AddScalarConst(&g, "three", 3)->set_device(other);
  enter("n_enter", "n", true, control);
  enter("three_enter", "three", true, other);
  for (const std::string v : {"i", "acc"}) {
    enter(v + "_enter", "zero", false, control);
    SetIntAttr(node(v + "_merge", "Merge", {v + "_enter", v + "_next"}, control), "N", 2);
    node(v + "_switch", "Switch", {v + "_merge", "cond"}, control);
    node(v + "_exit", "Exit", {v + "_switch"}, control);
  }
  node("less", "Less", {"i_merge", "n_enter"}, control);
  node("cond", "LoopCond", {"less"}, control);
  node("bi", "Identity", {"i_switch:1"}, control);
  AddScalarConst(&g, "one", 1, "bi")->set_device(control);
  node("i_add", "Add", {"bi", "one"}, control);
  node("i_next", "NextIteration", {"i_add"}, control);
  node("times3", "Mul", {"bi", "three_enter"}, other);
  node("acc_add", "Add", {"acc_switch:1", "times3"}, other);
  node("acc_next", "NextIteration", {"acc_add"}, control);
  return g;
}

struct Place {
  const char* name;
  std::string control, other;
};

// µs per iteration of a `iterations`-long split loop in `session`.
double SplitLoopMicros(Session* session, const Place& place, int iterations,
                       int parallel_iterations) {
  CheckOk(session->Extend(SplitLoop(place.control, place.other, parallel_iterations)), "extend");
  std::vector<Tensor> out;
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"n", Tensor::Scalar<int32_t>(iterations)}};
  auto step = [&] { CheckOk(session->Run(feeds, {"acc_exit", "i_exit"}, {}, &out), "run"); };
  step();
  const int64_t expected = 3ll * iterations * (iterations - 1) / 2;
  if (out[0].scalar<int32_t>() != expected || out[1].scalar<int32_t>() != iterations) {
    AF_LOG(ERROR) << place.name << ": loop computed acc " << out[0].scalar<int32_t>() << " i "
                  << out[1].scalar<int32_t>() << ", expected " << expected << " and "
                  << iterations;
    std::exit(1);
  }
  return TimePerCall(step, 0.5) * 1e6 / iterations;
}

// A fresh session per graph: node names repeat between the graphs.
std::unique_ptr<Session> NewSession(const SessionOptions& options) {
  std::unique_ptr<Session> session;
  CheckOk(Session::Create(options, &session), "create session");
  return session;
}

void RunSplit() {
  constexpr int kIterations = 1000;
  const std::string cpu = "/job:localhost/replica:0/task:0/device:CPU:";
  const std::string task = "/job:worker/replica:0/task:";
  BenchServer one, two;
  one.Start({"--port", "0", "--task", "1", "--threads", "1"});
  two.Start({"--port", "0", "--task", "2", "--threads", "1"});
  SessionOptions local;
  local.num_cpu_devices = 2;
  local.threads_per_device = 1;
  SessionOptions remote;
  remote.remote_workers = {one.address(), two.address()};
  remote.num_cpu_devices = 1;
  remote.default_timeout_ms = 120000;

  struct Row {
    std::string setting;
    int parallel;
    double colocated, split;
  };
  std::vector<Row> rows;
  for (int parallel : {1, 10}) {
    for (bool processes : {false, true}) {
      const SessionOptions& options = processes ? remote : local;
      const Place colocated{"colocated", processes ? task + "1/device:CPU:0" : cpu + "0",
                            processes ? task + "1/device:CPU:0" : cpu + "0"};
      const Place split{"split", processes ? task + "1/device:CPU:0" : cpu + "0",
                        processes ? task + "2/device:CPU:0" : cpu + "1"};
      const double peer =
          SplitLoopMicros(NewSession(options).get(), colocated, kIterations, parallel);
      const double us = SplitLoopMicros(NewSession(options).get(), split, kIterations, parallel);
      const std::string setting = processes ? "two_processes" : "two_devices";
      const std::string fields = "\"iterations\":" + std::to_string(kIterations) +
                                 ",\"parallel_iterations\":" + std::to_string(parallel) +
                                 ",\"peer\":\"colocated\",\"peer_value\":" +
                                 std::to_string(peer) + ",\"ratio\":" + std::to_string(us / peer);
      PrintResult("loop", "split_" + setting + "_p" + std::to_string(parallel), fields,
                  "us_per_iteration", us, "us");
      rows.push_back({setting, parallel, peer, us});
    }
  }
  std::printf("# split loop, %d iterations, us per iteration\n", kIterations);
  std::printf("# %-14s %9s %10s %10s %7s\n", "setting", "parallel", "colocated", "split", "ratio");
  for (const Row& r : rows) {
    std::printf("# %-14s %9d %10.2f %10.2f %7.2f\n", r.setting.c_str(), r.parallel, r.colocated,
                r.split, r.split / r.colocated);
  }
}

// ms per batch of the LSTM classifier, forward and forward+backward.
void RunLstm(bool unrolled) {
  constexpr int kBatch = 128, kHidden = 128;
  Scope root = Scope::NewRootScope();
  auto images = ops::Placeholder(root, DT_FLOAT, PartialTensorShape({-1, 28, 28, 1}));
  auto labels = ops::Placeholder(root, DT_INT32, PartialTensorShape({-1}));
  models::LstmClassifier model;
  CheckOk(models::BuildLstmClassifier(root, images, labels, kHidden, 1, &model, unrolled),
          "build the LSTM");
  std::vector<Output> variables, grads;
  for (const Operation& op : root.GetCollection(kTrainableVariablesCollection))
    variables.push_back(op.output(0));
  CheckOk(AddSymbolicGradients(root, {model.loss}, variables, &grads), "differentiate the LSTM");
  SessionOptions options;
  options.threads_per_device = 2;
  ClientSession session(root, options);
  std::vector<Tensor> out;
  CheckOk(session.Run({}, {}, {GlobalVariablesInitializer(root)}, &out), "initialize");
  Tensor x(DT_FLOAT, TensorShape({kBatch, 28, 28, 1}));
  Tensor y(DT_INT32, TensorShape({kBatch}));
  for (int64_t i = 0; i < x.NumElements(); ++i)
    x.data<float>()[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000.0f;
  for (int i = 0; i < kBatch; ++i) y.data<int32_t>()[i] = i % 10;
  const ClientSession::FeedType feeds = {{images, x}, {labels, y}};
  std::vector<Output> backward = grads;
  backward.push_back(model.loss);
  const double forward =
      TimePerCall([&] { CheckOk(session.Run(feeds, {model.loss}, &out), "forward"); }, 2.0);
  const double both =
      TimePerCall([&] { CheckOk(session.Run(feeds, backward, &out), "backward"); }, 2.0);
  const std::string name = unrolled ? "lstm_unrolled" : "lstm_while_loop";
  const std::string fields = "\"batch\":" + std::to_string(kBatch) +
                             ",\"hidden\":" + std::to_string(kHidden) + ",\"rows\":28";
  PrintResult("loop", name + "_forward", fields, "ms_per_batch", forward * 1e3, "ms");
  PrintResult("loop", name + "_forward_backward", fields, "ms_per_batch", both * 1e3, "ms");
  std::printf("# %-16s forward %7.2f ms, forward+backward %7.2f ms per batch of %d\n",
              name.c_str(), forward * 1e3, both * 1e3, kBatch);
}

}  // namespace
}  // namespace af::bench

int main(int argc, char** argv) {
  const bool split_only = argc > 1 && std::strcmp(argv[1], "--split-only") == 0;
  const bool lstm_only = argc > 1 && std::strcmp(argv[1], "--lstm-only") == 0;
  if (!split_only && !lstm_only) {
    for (int vars : {1, 100})
      for (int iters : {0, 1, 10, 100, 1000}) af::bench::Run(iters, vars);
  }
  if (!lstm_only) af::bench::RunSplit();
  af::bench::RunLstm(false);
  af::bench::RunLstm(true);
  return 0;
}
