// Whole steps without actors: plan (prune, place, partition) then run each
// partition on its own device with a shared step rendezvous.
#include <boost/test/unit_test.hpp>

#include <condition_variable>
#include <mutex>

#include "graph/graph_def_import.h"
#include "runtime/rendezvous.h"
#include "runtime/step_plan.h"
#include "tests/runtime/executor_test_util.h"

namespace af::test {
namespace {

const std::string kTf = "attr { key: 'T' value { type: DT_FLOAT } }";

std::string Placeholder(const std::string& name) {
  return Node(name, "Placeholder", {}, "attr { key: 'dtype' value { type: DT_FLOAT } }");
}

std::string Pinned(const std::string& node_text, const std::string& device) {
  // Inserts a device field into a "node { ... }" line.
  std::string s = node_text;
  s.insert(s.find(" op: "), " device: '" + device + "'");
  return s;
}

struct TwoDevices {
  TwoDevices() {
    for (int i = 0; i < 2; ++i) {
      devices.push_back(std::make_unique<LocalDevice>(LocalCpuDeviceName(i), DEVICE_CPU,
                                                      GetCpuAllocator(), 1, 7 + i));
      attributes.push_back(DeviceAttributes{LocalCpuDeviceName(i), DEVICE_CPU,
                                            static_cast<uint64_t>(7 + i)});
    }
  }
  LocalDevice* Find(const std::string& name) {
    for (auto& d : devices)
      if (d->name() == name) return d.get();
    return nullptr;
  }
  std::vector<std::unique_ptr<LocalDevice>> devices;
  std::vector<DeviceAttributes> attributes;
};

// Runs every partition of `plan` concurrently and gathers the fetches.
Status RunPlan(TwoDevices& env, const StepPlan& plan, const std::vector<Tensor>& feeds,
               std::vector<Tensor>* fetches) {
  std::vector<std::unique_ptr<Executor>> executors;
  std::vector<CallFrame> frames(plan.partitions.size());
  for (size_t p = 0; p < plan.partitions.size(); ++p) {
    auto graph = std::make_unique<Graph>();
    AF_RETURN_IF_ERROR(ImportGraphDef(plan.partitions[p].graph, graph.get()));
    std::unique_ptr<Executor> exec;
    AF_RETURN_IF_ERROR(
        NewLocalExecutor(env.Find(plan.partitions[p].device), std::move(graph), &exec));
    executors.push_back(std::move(exec));
    frames[p].Reset(plan.partitions[p].num_args, plan.partitions[p].num_retvals);
  }
  for (size_t i = 0; i < feeds.size(); ++i) {
    const TensorLocation& loc = plan.feeds[i];
    if (loc.partition >= 0) frames[loc.partition].mutable_args()[loc.index] = feeds[i];
  }
  LocalRendezvous rendezvous;
  std::mutex mu;
  std::condition_variable cv;
  size_t remaining = executors.size();
  Status status;
  for (size_t p = 0; p < executors.size(); ++p) {
    Executor::Args args;
    args.rendezvous = &rendezvous;
    args.call_frame = &frames[p];
    executors[p]->RunAsync(args, [&](const Status& s) {
      std::lock_guard<std::mutex> lock(mu);
      status.Update(s);
      if (--remaining == 0) cv.notify_all();
    });
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return remaining == 0; });
  }
  AF_RETURN_IF_ERROR(status);
  fetches->assign(plan.fetches.size(), Tensor());
  for (size_t p = 0; p < frames.size(); ++p) {
    std::vector<Tensor> values;
    AF_RETURN_IF_ERROR(frames[p].ConsumeRetvals(&values));
    for (size_t i = 0; i < plan.fetches.size(); ++i)
      if (plan.fetches[i].partition == static_cast<int>(p))
        (*fetches)[i] = values[plan.fetches[i].index];
  }
  return Status::OK();
}

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

// Two tasks' CPUs, as a worker and a ps process would have them.
struct TwoTasks : TwoDevices {
  TwoTasks() {
    devices.clear();
    attributes.clear();
    for (const char* name : {kWorker, kPs}) {
      devices.push_back(std::make_unique<LocalDevice>(name, DEVICE_CPU, GetCpuAllocator(), 1, 5));
      attributes.push_back(DeviceAttributes{name, DEVICE_CPU, 5});
    }
  }
  static constexpr const char* kWorker = "/job:worker/replica:0/task:0/device:CPU:0";
  static constexpr const char* kPs = "/job:ps/replica:0/task:0/device:CPU:0";
};

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
