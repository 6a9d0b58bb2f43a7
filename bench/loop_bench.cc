// bench/loop: while loops (Enter/Merge/Switch/NextIteration/Exit, as
// TensorFlow lowers them) of 0, 1, 10, 100 and 1000 iterations carrying 1
// or 100 loop variables, each incremented every iteration. Prints
// microseconds per iteration (per run for 0 iterations).
#include "bench/bench_util.h"
#include "client/session.h"
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
    std::fprintf(stderr, "loop computed %d, expected %d\n", out[0].scalar<int32_t>(),
                 iterations);
    std::exit(1);
  }
  const double seconds = TimePerCall(step, 0.5);
  const std::string name = std::to_string(iterations) + "_iters_" + std::to_string(num_vars) + "_vars";
  const std::string fields =
      "\"iterations\":" + std::to_string(iterations) + ",\"loop_vars\":" + std::to_string(num_vars);
  if (iterations == 0)
    PrintResult("loop", name, fields, "us_per_run", seconds * 1e6, "us");
  else
    PrintResult("loop", name, fields, "us_per_iteration", seconds * 1e6 / iterations, "us");
}

}  // namespace
}  // namespace af::bench

int main() {
  for (int vars : {1, 100})
    for (int iters : {0, 1, 10, 100, 1000}) af::bench::Run(iters, vars);
  return 0;
}
