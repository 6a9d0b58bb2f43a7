// Recv scheduling (graph/recv_scheduling.h) through whole step plans: which
// transfers are held, that every hold waits on the receiving task, and that
// results do not change.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <random>

#include "core/node_def_util.h"

#include "tests/runtime/step_plan_test_util.h"

namespace af::test {
namespace {

std::string ShapeAttr(int rows, int cols) {
  return "attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'shape' value { shape { "
         "dim { size: " +
         std::to_string(rows) + " } dim { size: " + std::to_string(cols) + " } } } }";
}

// x [batch, n] on `worker` times w1..wN ([n, n] constants on `ps`, as a
// ps task's weights would be), one MatMul per layer on the worker; the last
// layer is fetched (through a Merge with x when `behind_switch`: the chain
// then starts at a Switch's true side).
struct Chain {
  Chain(int layers, int batch, int n, const std::string& worker, const std::string& ps,
        bool behind_switch = false, bool computed_weights = false, bool backward = false,
        bool variable_w1 = false) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> value(-0.1f, 0.1f);
    auto random = [&](int rows, int cols) {
      Tensor t(DT_FLOAT, TensorShape{rows, cols});
      for (int64_t k = 0; k < t.NumElements(); ++k) t.data<float>()[k] = value(rng);
      return t;
    };
    std::string text = Pinned(Node("x", "Placeholder", {}, ShapeAttr(batch, n)), worker);
    signature.feeds.push_back("x:0");
    feeds.push_back(random(batch, n));
    std::string input = "x";
    if (behind_switch) {
      text += Pinned(Node("pred", "Placeholder", {}, "attr { key: 'dtype' value { type: DT_BOOL } }"),
                     worker);
      text += Pinned(Node("sw", "Switch", {"x", "pred"}, kTf), worker);
      signature.feeds.push_back("pred:0");
      feeds.push_back(Tensor::Scalar<bool>(true));
      input = "sw:1";
    }
    for (int i = 1; i <= layers; ++i) {
      const std::string h = "h" + std::to_string(i);
      std::string w = "w" + std::to_string(i);
      if (computed_weights) {
        text += Pinned(Node("neg_" + w, "Neg", {w}, kTf), ps);
        w = "neg_" + w;
      }
      text += Pinned(Node(h, "MatMul", {input, w}, kTf), worker);
      input = h;
    }
    // A backward pass's use of each weight: g = g * w_i^T, last layer first.
    for (int i = backward ? layers : 0; i >= 1; --i) {
      const std::string g = "g" + std::to_string(i);
      text += Pinned(Node(g, "MatMul", {input, "w" + std::to_string(i)},
                          kTf + " attr { key: 'transpose_b' value { b: true } }"),
                     worker);
      input = g;
    }
    if (behind_switch) {
      text += Pinned(Node("out", "Merge", {"sw:0", input},
                          kTf + " attr { key: 'N' value { i: 2 } }"),
                     worker);
      input = "out";
    }
    signature.fetches.push_back(input + ":0");
    if (variable_w1) {
      // w1 is a variable, updated by x^T * g2 (a gradient's shape).
      text += Pinned(Node("w1", "VariableV2", {},
                          "attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'shape' "
                          "value { shape { dim { size: " +
                              std::to_string(n) + " } dim { size: " + std::to_string(n) +
                              " } } } }"),
                     ps);
      text += Pinned(Node("delta", "MatMul", {"x", "g2"},
                          kTf + " attr { key: 'transpose_a' value { b: true } }"),
                     worker);
      text += Pinned(Node("update", "AssignAdd", {"w1", "delta"}, kTf), ps);
      signature.targets.push_back("update");
    }
    graph = ParseGraph(text);
    for (int i = variable_w1 ? 2 : 1; i <= layers; ++i) {
      weights.push_back(random(n, n));
      tensorflow::NodeDef* w = graph.add_node();
      w->set_name("w" + std::to_string(i));
      w->set_op("Const");
      w->set_device(ps);
      SetAttr(w, "dtype", DT_FLOAT);
      tensorflow::TensorProto* proto = (*w->mutable_attr())["value"].mutable_tensor();
      proto->set_dtype(tensorflow::DT_FLOAT);
      for (int d = 0; d < 2; ++d) proto->mutable_tensor_shape()->add_dim()->set_size(n);
      proto->set_tensor_content(weights.back().data<float>(), weights.back().NumElements() * 4);
    }
  }
  tensorflow::GraphDef graph;
  StepSignature signature;
  std::vector<Tensor> feeds;
  std::vector<Tensor> weights;
};

StepPlan Plan(TwoDevices& env, const Chain& chain, const OptimizerOptions& options) {
  StepPlan plan;
  Status s = BuildStepPlan(chain.graph, chain.signature, env.attributes, nullptr,
                           &plan, options);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return plan;
}

std::vector<const tensorflow::NodeDef*> Holds(const StepPlan& plan) {
  std::vector<const tensorflow::NodeDef*> holds;
  for (const auto& p : plan.partitions)
    for (const auto& n : p.graph.node())
      if (n.op() == "Identity" && n.name().find("/_recv_hold") != std::string::npos)
        holds.push_back(&n);
  return holds;
}

const PassReport* Report(const StepPlan& plan, const std::string& pass) {
  for (const PassReport& r : plan.optimizer_passes)
    if (r.pass == pass) return &r;
  return nullptr;
}

Tensor RunOne(TwoDevices& env, const StepPlan& plan, const std::vector<Tensor>& feeds) {
  std::vector<Tensor> out;
  Status s = RunPlan(env, plan, feeds, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return out[0];
}

bool BitwiseEqual(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  for (int64_t k = 0; k < a.NumElements(); ++k)
    if (a.data<float>()[k] != b.data<float>()[k]) return false;
  return true;
}

OptimizerOptions WithoutRecvScheduling() {
  OptimizerOptions options;
  options.do_recv_scheduling = false;
  return options;
}

// Six 1 MiB weights on the ps task, each MatMul ~6.7 ms by the static cost
// model and each transfer ~1.1 ms: the first two layers need their weights
// at once; the later ones are held until the layer two before their own.
BOOST_AUTO_TEST_CASE(late_weights_wait_for_the_worker_and_results_do_not_change) {
  TwoTasks env;
  const Chain chain(6, 256, 512, TwoTasks::kWorker, TwoTasks::kPs);
  const StepPlan held = Plan(env, chain, OptimizerOptions{});
  const std::vector<const tensorflow::NodeDef*> holds = Holds(held);
  BOOST_TEST(holds.size() == 4u);
  const PassReport* report = Report(held, "recv_scheduling");
  BOOST_TEST_REQUIRE(report != nullptr);
  BOOST_TEST(report->stats.nodes_added == static_cast<int>(holds.size()));
  for (const tensorflow::NodeDef* hold : holds) {
    BOOST_TEST(hold->device() == TwoTasks::kPs);
    BOOST_TEST(hold->name().rfind("w1/", 0) != 0, hold->name());  // needed at once
    // Held by a control input that arrives from the worker.
    bool from_worker = false;
    for (const std::string& input : hold->input())
      if (!input.empty() && input[0] == '^') {
        for (const auto& p : held.partitions)
          for (const auto& n : p.graph.node())
            if (n.name() == input.substr(1) && n.op() == "_Recv" && p.device == TwoTasks::kPs) {
              std::string send_device;
              BOOST_TEST(GetNodeAttr(n, "send_device", &send_device).ok());
              from_worker = send_device == TwoTasks::kWorker;
            }
      }
    BOOST_TEST(from_worker, hold->name());
  }
  const StepPlan plain = Plan(env, chain, WithoutRecvScheduling());
  BOOST_TEST(Holds(plain).empty());
  BOOST_TEST(Report(plain, "recv_scheduling") == nullptr);
  const Tensor a = RunOne(env, held, chain.feeds);
  const Tensor b = RunOne(env, plain, chain.feeds);
  BOOST_TEST(BitwiseEqual(a, b));
  // And the value itself: row 0 of the product, in double precision.
  std::vector<double> row(512);
  for (int j = 0; j < 512; ++j) row[j] = chain.feeds[0].data<float>()[j];
  for (int layer = 1; layer <= 6; ++layer) {
    std::vector<double> next(512, 0.0);
    const float* w = chain.weights[layer - 1].data<float>();
    for (int k = 0; k < 512; ++k)
      for (int j = 0; j < 512; ++j) next[j] += row[k] * w[k * 512 + j];
    row = next;
  }
  for (int j = 0; j < 512; ++j)
    BOOST_TEST(std::abs(a.data<float>()[j] - row[j]) <= 1e-6 + 1e-4 * std::abs(row[j]));
}

// Resending: each weight is used in the forward pass and again, much
// later, in the backward pass; all but the last layers' weights cross a
// second time, each group held until shortly before it.
BOOST_AUTO_TEST_CASE(resending_gives_the_backward_pass_its_own_late_transfer) {
  TwoTasks env;
  const Chain chain(6, 256, 512, TwoTasks::kWorker, TwoTasks::kPs, false, false,
                    /*backward=*/true);
  OptimizerOptions resend;
  resend.recv_scheduling_resend = true;
  const StepPlan twice = Plan(env, chain, resend);
  const StepPlan once = Plan(env, chain, OptimizerOptions{});
  const size_t held_once = Holds(once).size();
  BOOST_TEST(held_once == 4u);
  BOOST_TEST(Holds(twice).size() > held_once);
  int sends_once = 0, sends_twice = 0;
  for (const auto& p : once.partitions)
    for (const auto& n : p.graph.node()) sends_once += n.op() == "_Send" && p.device == TwoTasks::kPs;
  for (const auto& p : twice.partitions)
    for (const auto& n : p.graph.node()) sends_twice += n.op() == "_Send" && p.device == TwoTasks::kPs;
  BOOST_TEST(sends_twice > sends_once);
  const Tensor a = RunOne(env, twice, chain.feeds);
  BOOST_TEST(BitwiseEqual(a, RunOne(env, once, chain.feeds)));
  BOOST_TEST(BitwiseEqual(a, RunOne(env, Plan(env, chain, WithoutRecvScheduling()), chain.feeds)));
}

// A variable sent twice must not change in between: its writer waits for
// the consumers of the second transfer (a control input from the worker).
BOOST_AUTO_TEST_CASE(a_resent_variable_is_written_only_after_its_late_consumers) {
  TwoTasks env;
  const Chain chain(6, 256, 512, TwoTasks::kWorker, TwoTasks::kPs, false, false, true,
                    /*variable_w1=*/true);
  auto update_inputs = [&](const StepPlan& plan) {
    int controls = 0;
    for (const auto& p : plan.partitions)
      for (const auto& n : p.graph.node())
        if (n.name() == "update")
          for (const std::string& input : n.input()) controls += input[0] == '^';
    return controls;
  };
  OptimizerOptions resend;
  resend.recv_scheduling_resend = true;
  const StepPlan twice = Plan(env, chain, resend);
  int w1_holds = 0;
  for (const tensorflow::NodeDef* hold : Holds(twice)) w1_holds += hold->name().rfind("w1/", 0) == 0;
  BOOST_TEST(w1_holds == 1);  // the backward pass's transfer; the forward one is needed at once
  BOOST_TEST(update_inputs(twice) == update_inputs(Plan(env, chain, OptimizerOptions{})) + 1);
}

BOOST_AUTO_TEST_CASE(small_computed_and_one_process_transfers_are_not_held) {
  TwoTasks tasks;
  const Chain small(6, 256, 64, TwoTasks::kWorker, TwoTasks::kPs);  // 16 KiB weights
  BOOST_TEST(Holds(Plan(tasks, small, OptimizerOptions{})).empty());
  OptimizerOptions low = OptimizerOptions{};
  low.recv_scheduling_min_bytes = 1024;
  BOOST_TEST(!Holds(Plan(tasks, small, low)).empty());
  // A tensor computed on the sender would only be kept there instead.
  const Chain computed(6, 256, 512, TwoTasks::kWorker, TwoTasks::kPs, false, true);
  OptimizerOptions unfolded;  // or Neg(w) would become a constant
  unfolded.do_constant_folding = false;
  BOOST_TEST(Holds(Plan(tasks, computed, unfolded)).empty());
  TwoDevices local;
  const Chain one_process(6, 256, 512, LocalCpuDeviceName(0), LocalCpuDeviceName(1));
  BOOST_TEST(Holds(Plan(local, one_process, OptimizerOptions{})).empty());
}

// A trigger downstream of a Switch could be dead, and a dead control input
// would kill the held weight: such chains keep their transfers as they are,
// and both sides of the branch give the right value.
BOOST_AUTO_TEST_CASE(consumers_behind_a_switch_are_not_held) {
  TwoTasks env;
  Chain chain(6, 256, 512, TwoTasks::kWorker, TwoTasks::kPs, /*behind_switch=*/true);
  const StepPlan plan = Plan(env, chain, OptimizerOptions{});
  BOOST_TEST(Holds(plan).empty());
  const StepPlan plain = Plan(env, chain, WithoutRecvScheduling());
  for (bool pred : {true, false}) {
    chain.feeds[1] = Tensor::Scalar<bool>(pred);
    const Tensor out = RunOne(env, plan, chain.feeds);
    BOOST_TEST(BitwiseEqual(out, RunOne(env, plain, chain.feeds)));
    if (!pred) BOOST_TEST(BitwiseEqual(out, chain.feeds[0]));
  }
}

BOOST_AUTO_TEST_CASE(the_pass_is_switched_off_by_name) {
  OptimizerOptions options;
  BOOST_TEST_REQUIRE(OptimizerOptions::Parse("off:recv", &options).ok());
  BOOST_TEST(!options.do_recv_scheduling);
  BOOST_TEST(options.do_constant_folding);
  BOOST_TEST(options.ToString() == "off:recv");
  BOOST_TEST_REQUIRE(OptimizerOptions::Parse("off", &options).ok());
  TwoTasks env;
  BOOST_TEST(Holds(Plan(env, Chain(6, 256, 512, TwoTasks::kWorker, TwoTasks::kPs), options)).empty());
}

}  // namespace
}  // namespace af::test
