// Whole steps without actors: plan (prune, place, partition) then run each
// partition on its own device with a shared step rendezvous.
#include <boost/test/unit_test.hpp>

#include "tests/runtime/step_plan_test_util.h"

namespace af::test {
namespace {

BOOST_AUTO_TEST_CASE(two_device_step_sends_each_cut_tensor_once) {
  TwoDevices env;
  // x feeds two consumers on CPU:1; y = (x + x) * x computed there.
  const std::string g = Placeholder("x") +
                        Pinned(Node("sum", "Add", {"x", "x"}, kTf), "/device:CPU:1") +
                        Pinned(Node("prod", "Mul", {"sum", "x"}, kTf), "/device:CPU:1") +
                        Pinned(Node("neg", "Neg", {"x"}, kTf), "/device:CPU:0");
  StepSignature sig{{"x:0"}, {"prod:0", "neg:0"}, {}};
  StepPlan plan;
  Status s = BuildStepPlan(ParseGraph(g), sig, env.attributes, nullptr, &plan);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(plan.partitions.size() == 2u);
  int sends = 0, recvs = 0;
  for (const auto& p : plan.partitions)
    for (const auto& n : p.graph.node()) {
      sends += n.op() == "_Send";
      recvs += n.op() == "_Recv";
    }
  BOOST_TEST(sends == recvs);
  BOOST_TEST(sends <= 1);  // x crosses once (or the _Arg sits on CPU:1 and neg's input crosses)

  Tensor x = Tensor::FromVector<float>({1, 2, 3});
  std::vector<Tensor> out;
  s = RunPlan(env, plan, {x}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  for (int i = 0; i < 3; ++i) {
    const float v = static_cast<float>(i + 1);
    BOOST_TEST(out[0].data<float>()[i] == 2 * v * v);
    BOOST_TEST(out[1].data<float>()[i] == -v);
  }
}

int CountCasts(const StepPlan& plan) {
  int casts = 0;
  for (const auto& p : plan.partitions)
    for (const auto& n : p.graph.node()) casts += n.op() == "Cast";
  return casts;
}

BOOST_AUTO_TEST_CASE(bfloat16_transfer_truncates_float_tensors_crossing_processes) {
  TwoTasks env;
  // neg (float) and n (int32) cross from the worker to the ps task.
  const std::string g =
      Pinned(Placeholder("x"), TwoTasks::kWorker) +
      Pinned(Node("neg", "Neg", {"x"}, kTf), TwoTasks::kWorker) +
      Pinned(Node("n", "Placeholder", {}, "attr { key: 'dtype' value { type: DT_INT32 } }"),
             TwoTasks::kWorker) +
      Pinned(Node("y", "Identity", {"neg"}, kTf), TwoTasks::kPs) +
      Pinned(Node("m", "Identity", {"n"}, "attr { key: 'T' value { type: DT_INT32 } }"),
             TwoTasks::kPs);
  const StepSignature sig{{"x:0", "n:0"}, {"y:0", "m:0"}, {}};
  // 1 + 2^-10 needs 10 mantissa bits; bfloat16 keeps 7, so it arrives as 1.
  const float fine = 1.0f + 1.0f / 1024;
  const Tensor x = Tensor::FromVector<float>({-fine, 3.0f});
  const Tensor n = Tensor::FromVector<int32_t>({16777217});
  for (const char* pattern : {"", "neg(:0)?", "nothing_matches"}) {
    OptimizerOptions options;
    options.bfloat16_transfer = true;
    options.bfloat16_transfer_pattern = pattern;
    const bool narrowed = std::string(pattern) != "nothing_matches";
    StepPlan plan;
    Status s = BuildStepPlan(ParseGraph(g), sig, env.attributes, nullptr, &plan, options);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(CountCasts(plan) == (narrowed ? 2 : 0), pattern);
    std::vector<Tensor> out;
    s = RunPlan(env, plan, {x, n}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].data<float>()[0] == (narrowed ? 1.0f : fine), pattern);
    BOOST_TEST(out[0].data<float>()[1] == -3.0f);
    BOOST_TEST(out[1].data<int32_t>()[0] == 16777217);  // other types cross exactly
  }
  // Off by default; devices of one process never narrow.
  StepPlan plan;
  BOOST_TEST_REQUIRE(BuildStepPlan(ParseGraph(g), sig, env.attributes, nullptr, &plan).ok());
  BOOST_TEST(CountCasts(plan) == 0);
  TwoDevices local;
  OptimizerOptions on;
  on.bfloat16_transfer = true;
  const std::string one_process = Placeholder("x") +
                                  Pinned(Node("y", "Identity", {"x"}, kTf), "/device:CPU:1");
  BOOST_TEST_REQUIRE(BuildStepPlan(ParseGraph(one_process), StepSignature{{"x:0"}, {"y:0"}, {}},
                                   local.attributes, nullptr, &plan, on)
                         .ok());
  BOOST_TEST(CountCasts(plan) == 0);
  on.bfloat16_transfer_pattern = "(";
  Status bad = BuildStepPlan(ParseGraph(g), sig, env.attributes, nullptr, &plan, on);
  BOOST_TEST(bad.code() == Code::INVALID_ARGUMENT, bad.ToString());
}

BOOST_AUTO_TEST_CASE(unknown_fetch_and_infeasible_device_are_invalid_argument) {
  TwoDevices env;
  StepPlan plan;
  Status s = BuildStepPlan(ParseGraph(Placeholder("x")), StepSignature{{}, {"nope:0"}, {}},
                           env.attributes, nullptr, &plan);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("nope") != std::string::npos, s.ToString());

  s = BuildStepPlan(ParseGraph(Pinned(Placeholder("x"), "/device:GPU:0")),
                    StepSignature{{"x:0"}, {"x:0"}, {}}, env.attributes, nullptr, &plan);
  // Feeding x replaces it, so ask for a node that must run there instead.
  s = BuildStepPlan(ParseGraph(Placeholder("x") + Pinned(Node("n", "Neg", {"x"}, kTf), "/device:GPU:0")),
                    StepSignature{{"x:0"}, {"n:0"}, {}}, env.attributes, nullptr, &plan);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("CPU:1") != std::string::npos, s.ToString());
}

BOOST_AUTO_TEST_CASE(signature_key_ignores_order) {
  StepSignature a{{"b:0", "a:0"}, {"c:0"}, {"t"}};
  StepSignature b{{"a:0", "b:0"}, {"c:0"}, {"t"}};
  StepSignature c{{"a:0"}, {"b:0", "c:0"}, {"t"}};
  BOOST_TEST(StepSignatureKey(a) == StepSignatureKey(b));
  BOOST_TEST(StepSignatureKey(a) != StepSignatureKey(c));
}

}  // namespace
}  // namespace af::test
