// LocalStepRunner: a published plan runs on the calling thread; a missing
// plan or a deregistered partition hands the step back to the message path;
// deadlines and a closing session end a waiting step. (Sessions take this
// path from their fourth Run of a signature on; the session and stress
// tests run it end to end.)
#include <boost/test/unit_test.hpp>

#include <google/protobuf/text_format.h>

#include <chrono>
#include <memory>
#include <thread>

#include "actors/local_step.h"
#include "core/allocator.h"
#include "core/resource_mgr.h"
#include "graph/graph_def_import.h"
#include "runtime/executor.h"
#include "runtime/local_device.h"

namespace af {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kDevice[] = "/job:localhost/replica:0/task:0/device:CPU:0";

std::string FloatAttr(const char* key) {
  return std::string("attr { key: '") + key + "' value { type: DT_FLOAT } }";
}
std::string IntAttr(const char* key, int v) {
  return std::string("attr { key: '") + key + "' value { i: " + std::to_string(v) + " } }";
}
std::string StringAttr(const char* key, const std::string& v) {
  return std::string("attr { key: '") + key + "' value { s: '" + v + "' } }";
}

// y = x * x, or (waiting) y = x + a tensor that is never sent.
std::string PartitionText(bool waits) {
  std::string text = "node { name: 'x' op: '_Arg' " + FloatAttr("T") + IntAttr("index", 0) + " }";
  if (waits) {
    text += " node { name: 'never' op: '_Recv' " + FloatAttr("tensor_type") +
            StringAttr("tensor_name", "never_sent") + StringAttr("send_device", kDevice) +
            IntAttr("send_device_incarnation", 1) + StringAttr("recv_device", kDevice) + " }";
    text += " node { name: 'op' op: 'Add' input: 'x' input: 'never' " + FloatAttr("T") + " }";
  } else {
    text += " node { name: 'op' op: 'Mul' input: 'x' input: 'x' " + FloatAttr("T") + " }";
  }
  text += " node { name: 'y' op: '_Retval' input: 'op' " + FloatAttr("T") + IntAttr("index", 0) +
          " }";
  return text;
}

struct Fixture {
  std::shared_ptr<LocalPlanCache> plans = std::make_shared<LocalPlanCache>();
  std::shared_ptr<LocalPartitionTable> table = std::make_shared<LocalPartitionTable>(
      std::make_shared<const LocalDeviceNames>(LocalDeviceNames{kDevice}));
  LocalStepRunner runner{plans, table};
  std::shared_ptr<LocalDevice> device =
      std::make_shared<LocalDevice>(kDevice, DEVICE_CPU, GetCpuAllocator(), 2, 1);
  std::string key = StepCacheKey({{"x:0", Tensor()}}, {"y:0"}, {});

  void Register(int64_t handle, bool waits) {
    tensorflow::GraphDef def;
    BOOST_REQUIRE(google::protobuf::TextFormat::ParseFromString(PartitionText(waits), &def));
    auto graph = std::make_unique<Graph>();
    Status s = ImportGraphDef(def, graph.get());
    BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
    std::shared_ptr<Executor> executor;
    std::unique_ptr<Executor> built;
    s = NewLocalExecutor(device.get(), std::move(graph), &built);
    BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
    executor = std::move(built);
    table->Add(handle, LocalPartition{executor, executor.get(), ResourceMgrForDevice(kDevice)});
    auto plan = std::make_shared<LocalPlan>();
    plan->partitions.push_back(LocalPlan::Partition{handle, 1, 1});
    plan->feeds.push_back(LocalPlan::Place{0, 0});
    plan->fetches.push_back(LocalPlan::Place{0, 0});
    plan->fetch_from_feed.push_back(-1);
    plans->Publish(key, plan);
  }

  bool Run(float x, Clock::duration timeout, std::vector<Tensor>* out, Status* s) {
    return runner.TryRun(key, {{"x:0", Tensor::Scalar<float>(x)}}, 1, Clock::now() + timeout,
                         out, s);
  }
};

BOOST_AUTO_TEST_SUITE(local_step)

BOOST_AUTO_TEST_CASE(a_published_plan_runs_on_the_calling_thread) {
  Fixture f;
  std::vector<Tensor> out;
  Status s;
  BOOST_TEST(!f.Run(3.f, std::chrono::seconds(5), &out, &s));  // nothing published yet
  f.Register(7, false);
  for (int i = 0; i < 100; ++i) {
    BOOST_REQUIRE(f.Run(static_cast<float>(i), std::chrono::seconds(5), &out, &s));
    BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
    BOOST_TEST(out[0].scalar<float>() == static_cast<float>(i * i));
  }
  // Another signature, or a call whose shape differs from the plan's, is not
  // this plan's business.
  BOOST_TEST(!f.runner.TryRun(StepCacheKey({}, {"y:0"}, {}), {}, 1,
                              Clock::now() + std::chrono::seconds(1), &out, &s));
}

BOOST_AUTO_TEST_CASE(a_deregistered_partition_or_a_cleared_cache_falls_back) {
  Fixture f;
  f.Register(7, false);
  std::vector<Tensor> out;
  Status s;
  BOOST_REQUIRE(f.Run(2.f, std::chrono::seconds(5), &out, &s));
  f.table->Remove(7);
  BOOST_TEST(!f.Run(2.f, std::chrono::seconds(5), &out, &s));
  f.Register(8, false);
  BOOST_REQUIRE(f.Run(2.f, std::chrono::seconds(5), &out, &s));
  f.plans->Clear();
  BOOST_TEST(!f.Run(2.f, std::chrono::seconds(5), &out, &s));
}

BOOST_AUTO_TEST_CASE(a_step_past_its_deadline_is_aborted) {
  Fixture f;
  f.Register(7, true);
  std::vector<Tensor> out;
  Status s;
  BOOST_REQUIRE(f.Run(1.f, std::chrono::milliseconds(50), &out, &s));
  BOOST_TEST(s.code() == Code::DEADLINE_EXCEEDED, s.ToString());
}

BOOST_AUTO_TEST_CASE(closing_cancels_running_steps_and_refuses_new_ones) {
  Fixture f;
  f.Register(7, true);
  Status waiting;
  std::thread runner([&] {
    std::vector<Tensor> out;
    BOOST_CHECK(f.Run(1.f, std::chrono::seconds(30), &out, &waiting));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  f.runner.AbortAll(errors::Cancelled("Run: the session was closed"));
  runner.join();
  BOOST_TEST(waiting.code() == Code::CANCELLED, waiting.ToString());
  std::vector<Tensor> out;
  Status later;
  BOOST_REQUIRE(f.Run(1.f, std::chrono::seconds(5), &out, &later));
  BOOST_TEST(later.code() == Code::CANCELLED, later.ToString());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
