// StepRegistry (actors/worker/step_registry.h): a step's context is made at
// its first mention and claimed once by its RunGraph; what arrives before
// the claim reaches the claimed step; finished steps stay finished; aborts
// reach the steps they name; orphans are swept; stalled Recvs are reported
// once. No CAF here.
#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "actors/worker/step_context.h"
#include "actors/worker/step_registry.h"
#include "core/rendezvous_key.h"
#include "core/tensor.h"
#include "runtime/rendezvous.h"

namespace af {
namespace {

const std::string kLocal = "/job:worker/replica:0/task:0/device:CPU:0";
const std::string kPeer = "/job:worker/replica:0/task:1/device:CPU:0";
const std::string kWhere = "/job:worker/replica:0/task:0";

std::shared_ptr<const LocalDeviceNames> Devices() {
  return std::make_shared<const LocalDeviceNames>(LocalDeviceNames{kLocal});
}

// A key for a tensor from the peer task to this worker.
std::string KeyFor(const std::string& tensor_name) {
  return RendezvousKey(kPeer, 1, kLocal, tensor_name, 0, 0);
}

// What one RecvAsync got.
struct Received {
  std::mutex mu;
  int calls = 0;
  Status status;
  Tensor value;
  bool is_dead = false;

  Rendezvous::DoneCallback Callback() {
    return [this](const Status& s, const Tensor& v, bool dead) {
      std::lock_guard<std::mutex> lock(mu);
      ++calls;
      status = s;
      value = v;
      is_dead = dead;
    };
  }
  int Calls() {
    std::lock_guard<std::mutex> lock(mu);
    return calls;
  }
};

BOOST_AUTO_TEST_SUITE(step_registry)

BOOST_AUTO_TEST_CASE(a_step_is_claimed_once_and_stays_finished) {
  StepRegistry registry("worker0", Devices());
  BOOST_TEST(registry.size() == 0u);

  std::shared_ptr<StepContext> a = registry.GetOrCreate(1);
  BOOST_TEST_REQUIRE(a != nullptr);
  BOOST_TEST(a->step_id() == 1);
  BOOST_TEST(registry.GetOrCreate(1) == a);
  BOOST_TEST(registry.size() == 1u);
  BOOST_TEST(!registry.Finished(1));

  // The RunGraph claims the context the first mention made.
  Status why;
  std::shared_ptr<StepContext> claimed = registry.Claim(1, 100, kWhere, &why);
  BOOST_TEST_REQUIRE(claimed != nullptr, why);
  BOOST_TEST(claimed == a);
  BOOST_TEST(registry.GetOrCreate(1) == a);

  // A new id is made and claimed at once.
  std::shared_ptr<StepContext> b = registry.Claim(2, 100, kWhere, &why);
  BOOST_TEST_REQUIRE(b != nullptr, why);
  BOOST_TEST(b != a);
  BOOST_TEST(b->step_id() == 2);
  BOOST_TEST(registry.size() == 2u);

  // A second RunGraph of a running step is refused.
  Status twice;
  BOOST_TEST(registry.Claim(2, 100, kWhere, &twice) == nullptr);
  BOOST_TEST(twice.code() == Code::INVALID_ARGUMENT, twice);
  BOOST_TEST(twice.message().find("already running") != std::string::npos, twice);
  BOOST_TEST(twice.message().find(kWhere) != std::string::npos, twice);
  BOOST_TEST(twice.message().find("2") != std::string::npos, twice);
  // Whatever the session.
  Status other_session;
  BOOST_TEST(registry.Claim(2, 101, kWhere, &other_session) == nullptr);
  BOOST_TEST(other_session.code() == Code::INVALID_ARGUMENT, other_session);

  // Finished: never made again, and a RunGraph for it is refused.
  registry.Finish(2);
  BOOST_TEST(registry.Finished(2));
  BOOST_TEST(registry.GetOrCreate(2) == nullptr);
  BOOST_TEST(registry.size() == 1u);
  Status ran;
  BOOST_TEST(registry.Claim(2, 100, kWhere, &ran) == nullptr);
  BOOST_TEST(ran.code() == Code::INVALID_ARGUMENT, ran);
  BOOST_TEST(ran.message().find("already ran") != std::string::npos, ran);
  BOOST_TEST(ran.message().find(kWhere) != std::string::npos, ran);
  BOOST_TEST(registry.size() == 1u);
  // The context a holder kept is still usable.
  BOOST_TEST(b->step_id() == 2);

  // A step finished before anything else was heard of it.
  registry.Finish(3);
  BOOST_TEST(registry.Finished(3));
  BOOST_TEST(registry.GetOrCreate(3) == nullptr);
  Status never;
  BOOST_TEST(registry.Claim(3, 100, kWhere, &never) == nullptr);
  BOOST_TEST(never.message().find("already ran") != std::string::npos, never);

  // Other steps are unaffected.
  BOOST_TEST(!registry.Finished(1));
  BOOST_TEST(registry.GetOrCreate(1) == a);
  registry.Finish(1);
  BOOST_TEST(registry.size() == 0u);
}

BOOST_AUTO_TEST_CASE(a_tensor_delivered_before_the_claim_reaches_its_recv) {
  StepRegistry registry("worker0", Devices());
  const std::string key = KeyFor("x");
  BOOST_TEST_REQUIRE(registry.Deliver(5, key, Tensor::Scalar<float>(3.5f), false).ok());
  BOOST_TEST(registry.size() == 1u);

  Status why;
  std::shared_ptr<StepContext> step = registry.Claim(5, 1, kWhere, &why);
  BOOST_TEST_REQUIRE(step != nullptr, why);
  Received got;
  step->rendezvous()->RecvAsync(key, got.Callback());
  BOOST_TEST_REQUIRE(got.Calls() == 1);
  BOOST_TEST(got.status.ok(), got.status);
  BOOST_TEST(!got.is_dead);
  BOOST_TEST(got.value.scalar<float>() == 3.5f);

  // A tensor delivered after its Recv waits goes straight to it; a dead
  // flag travels along.
  const std::string dead_key = KeyFor("dead");
  Received dead;
  step->rendezvous()->RecvAsync(dead_key, dead.Callback());
  BOOST_TEST(dead.Calls() == 0);
  BOOST_TEST_REQUIRE(registry.Deliver(5, dead_key, Tensor::Scalar<int32_t>(4), true).ok());
  BOOST_TEST_REQUIRE(dead.Calls() == 1);
  BOOST_TEST(dead.status.ok(), dead.status);
  BOOST_TEST(dead.is_dead);

  // The same key again: refused and counted, the Recv not called again.
  BOOST_TEST(registry.duplicates_ignored() == 0u);
  const Status again = registry.Deliver(5, key, Tensor::Scalar<float>(9.0f), false);
  BOOST_TEST(again.code() == Code::ALREADY_EXISTS, again);
  BOOST_TEST(registry.duplicates_ignored() == 1u);
  BOOST_TEST(got.Calls() == 1);
  // Twice before its Recv: the first copy is kept.
  const std::string early_key = KeyFor("early");
  BOOST_TEST(registry.Deliver(5, early_key, Tensor::Scalar<float>(1.0f), false).ok());
  BOOST_TEST(registry.Deliver(5, early_key, Tensor::Scalar<float>(2.0f), false).code() ==
             Code::ALREADY_EXISTS);
  BOOST_TEST(registry.duplicates_ignored() == 2u);
  Received early;
  step->rendezvous()->RecvAsync(early_key, early.Callback());
  BOOST_TEST_REQUIRE(early.Calls() == 1);
  BOOST_TEST(early.value.scalar<float>() == 1.0f);
  BOOST_TEST(step->rendezvous()->NumPending() == 0u);

  // A step that finished ignores late tensors and is not brought back.
  registry.Finish(5);
  BOOST_TEST(registry.Deliver(5, KeyFor("late"), Tensor::Scalar<float>(1.0f), false).ok());
  BOOST_TEST(registry.Deliver(5, key, Tensor::Scalar<float>(1.0f), false).ok());
  BOOST_TEST(registry.size() == 0u);
  BOOST_TEST(registry.GetOrCreate(5) == nullptr);
  BOOST_TEST(registry.duplicates_ignored() == 2u);

  // Deliveries to an aborted step fail with the abort's status (not a
  // duplicate).
  std::shared_ptr<StepContext> aborted = registry.GetOrCreate(6);
  BOOST_TEST_REQUIRE(aborted != nullptr);
  aborted->Abort(errors::Cancelled("gone"));
  const Status to_aborted = registry.Deliver(6, key, Tensor::Scalar<float>(1.0f), false);
  BOOST_TEST(to_aborted.code() == Code::CANCELLED, to_aborted);
  BOOST_TEST(registry.duplicates_ignored() == 2u);
}

BOOST_AUTO_TEST_CASE(an_abort_before_the_run_graph_fails_it_and_a_finished_step_stays_gone) {
  StepRegistry registry("worker0", Devices());
  registry.Abort(7, errors::Aborted("peer failed"));
  BOOST_TEST(registry.size() == 1u);
  BOOST_TEST(!registry.Finished(7));
  Status why;
  std::shared_ptr<StepContext> step = registry.Claim(7, 1, kWhere, &why);
  BOOST_TEST_REQUIRE(step != nullptr, why);
  BOOST_TEST(step->aborted());
  BOOST_TEST(step->status().code() == Code::ABORTED, step->status());
  BOOST_TEST(step->status().message().find("peer failed") != std::string::npos, step->status());
  // Its Recvs fail at once.
  Received got;
  step->rendezvous()->RecvAsync(KeyFor("x"), got.Callback());
  BOOST_TEST_REQUIRE(got.Calls() == 1);
  BOOST_TEST(got.status.code() == Code::ABORTED, got.status);

  // An abort of a running step reaches its waiting Recv.
  std::shared_ptr<StepContext> running = registry.Claim(8, 1, kWhere, &why);
  BOOST_TEST_REQUIRE(running != nullptr, why);
  Received waiting;
  running->rendezvous()->RecvAsync(KeyFor("y"), waiting.Callback());
  BOOST_TEST(waiting.Calls() == 0);
  registry.Abort(8, errors::Unavailable("worker lost"));
  BOOST_TEST(running->aborted());
  BOOST_TEST_REQUIRE(waiting.Calls() == 1);
  BOOST_TEST(waiting.status.code() == Code::UNAVAILABLE, waiting.status);

  // A finished step: nothing, and it does not come back.
  registry.Finish(8);
  registry.Finish(9);
  const size_t before = registry.size();
  registry.Abort(8, errors::Aborted("late"));
  registry.Abort(9, errors::Aborted("late"));
  BOOST_TEST(registry.size() == before);
  BOOST_TEST(registry.GetOrCreate(8) == nullptr);
  BOOST_TEST(registry.GetOrCreate(9) == nullptr);
  BOOST_TEST(registry.Finished(9));
  Status ran;
  BOOST_TEST(registry.Claim(9, 1, kWhere, &ran) == nullptr);
  BOOST_TEST(ran.message().find("already ran") != std::string::npos, ran);
}

BOOST_AUTO_TEST_CASE(abort_session_aborts_its_claimed_steps_only) {
  StepRegistry registry("worker0", Devices());
  Status why;
  std::shared_ptr<StepContext> s1a = registry.Claim(1, 10, kWhere, &why);
  std::shared_ptr<StepContext> s1b = registry.Claim(2, 10, kWhere, &why);
  std::shared_ptr<StepContext> s2 = registry.Claim(3, 11, kWhere, &why);
  std::shared_ptr<StepContext> unclaimed = registry.GetOrCreate(4);
  // Mentioned first, claimed later by session 11.
  BOOST_TEST_REQUIRE(registry.Deliver(5, KeyFor("x"), Tensor::Scalar<float>(1.0f), false).ok());
  std::shared_ptr<StepContext> s2_late = registry.Claim(5, 11, kWhere, &why);
  BOOST_TEST_REQUIRE(s1a != nullptr);
  BOOST_TEST_REQUIRE(s1b != nullptr);
  BOOST_TEST_REQUIRE(s2 != nullptr);
  BOOST_TEST_REQUIRE(unclaimed != nullptr);
  BOOST_TEST_REQUIRE(s2_late != nullptr);

  Received waiting;
  s1a->rendezvous()->RecvAsync(KeyFor("w"), waiting.Callback());
  registry.AbortSession(10, errors::Cancelled("session 10 closed"));
  BOOST_TEST(s1a->aborted());
  BOOST_TEST(s1b->aborted());
  BOOST_TEST(s1a->status().code() == Code::CANCELLED, s1a->status());
  BOOST_TEST(!s2->aborted());
  BOOST_TEST(!s2_late->aborted());
  BOOST_TEST(!unclaimed->aborted());
  BOOST_TEST_REQUIRE(waiting.Calls() == 1);
  BOOST_TEST(waiting.status.code() == Code::CANCELLED, waiting.status);
  // The steps stay known (their RunGraphs finish them).
  BOOST_TEST(registry.size() == 5u);

  // A session with no steps: nothing.
  registry.AbortSession(12, errors::Cancelled("nothing"));
  BOOST_TEST(!s2->aborted());
  BOOST_TEST(!unclaimed->aborted());

  registry.AbortSession(11, errors::Cancelled("session 11 closed"));
  BOOST_TEST(s2->aborted());
  BOOST_TEST(s2_late->aborted());
  BOOST_TEST(!unclaimed->aborted());

  // AbortAll reaches every step, claimed or not; finished ones stay gone.
  std::shared_ptr<StepContext> fresh = registry.Claim(6, 13, kWhere, &why);
  BOOST_TEST_REQUIRE(fresh != nullptr);
  registry.Finish(1);
  registry.AbortAll(errors::Unavailable("shutting down"));
  BOOST_TEST(unclaimed->aborted());
  BOOST_TEST(unclaimed->status().code() == Code::UNAVAILABLE, unclaimed->status());
  BOOST_TEST(fresh->aborted());
  BOOST_TEST(fresh->status().code() == Code::UNAVAILABLE, fresh->status());
  // The first abort's status stays.
  BOOST_TEST(s1b->status().code() == Code::CANCELLED, s1b->status());
  BOOST_TEST(registry.GetOrCreate(1) == nullptr);
}

BOOST_AUTO_TEST_CASE(sweep_orphans_drops_unclaimed_steps_only) {
  StepRegistry registry("worker0", Devices());
  std::shared_ptr<StepContext> orphan1 = registry.GetOrCreate(1);
  BOOST_TEST_REQUIRE(registry.Deliver(2, KeyFor("x"), Tensor::Scalar<float>(1.0f), false).ok());
  registry.Abort(3, errors::Aborted("before its RunGraph"));
  Status why;
  std::shared_ptr<StepContext> claimed = registry.Claim(4, 1, kWhere, &why);
  BOOST_TEST_REQUIRE(claimed != nullptr, why);
  // Mentioned first, then claimed: not an orphan.
  registry.GetOrCreate(5);
  BOOST_TEST_REQUIRE(registry.Claim(5, 1, kWhere, &why) != nullptr);
  BOOST_TEST(registry.size() == 5u);

  // Young steps stay.
  BOOST_TEST(registry.SweepOrphans(std::chrono::hours(1)).empty());
  BOOST_TEST(registry.size() == 5u);

  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::vector<int64_t> swept = registry.SweepOrphans(std::chrono::milliseconds(1));
  std::sort(swept.begin(), swept.end());
  BOOST_TEST(swept == std::vector<int64_t>({1, 2, 3}), boost::test_tools::per_element());
  BOOST_TEST(registry.size() == 2u);
  BOOST_TEST(registry.GetOrCreate(4) == claimed);
  // Swept steps are forgotten, not finished.
  BOOST_TEST(!registry.Finished(1));
  BOOST_TEST(registry.SweepOrphans(std::chrono::milliseconds(1)).empty());
  BOOST_TEST(registry.size() == 2u);

  // A sweep with no lifetime at all takes a new orphan too.
  BOOST_TEST_REQUIRE(registry.GetOrCreate(6) != nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const std::vector<int64_t> again = registry.SweepOrphans(std::chrono::milliseconds(0));
  BOOST_TEST(again == std::vector<int64_t>({6}), boost::test_tools::per_element());
  BOOST_TEST(registry.size() == 2u);
  // The context a holder kept is still usable.
  BOOST_TEST(orphan1->step_id() == 1);
}

BOOST_AUTO_TEST_CASE(a_stalled_recv_is_reported_once) {
  StepRegistry registry("worker0", Devices());
  Status why;
  std::shared_ptr<StepContext> step = registry.Claim(7, 1, kWhere, &why);
  BOOST_TEST_REQUIRE(step != nullptr, why);
  std::shared_ptr<StepContext> quiet = registry.Claim(8, 1, kWhere, &why);
  BOOST_TEST_REQUIRE(quiet != nullptr, why);
  const std::string key = KeyFor("stuck");
  Received stuck;
  step->rendezvous()->RecvAsync(key, stuck.Callback());
  // A Recv that got its tensor is no stall.
  BOOST_TEST_REQUIRE(registry.Deliver(8, KeyFor("fine"), Tensor::Scalar<float>(1.0f), false).ok());
  Received fine;
  quiet->rendezvous()->RecvAsync(KeyFor("fine"), fine.Callback());
  BOOST_TEST_REQUIRE(fine.Calls() == 1);

  BOOST_TEST(registry.NewStalls(std::chrono::hours(1)).empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const std::vector<StepRegistry::Stall> stalls = registry.NewStalls(std::chrono::milliseconds(10));
  BOOST_TEST_REQUIRE(stalls.size() == 1u);
  BOOST_TEST(stalls[0].step_id == 7);
  BOOST_TEST(stalls[0].key == key);
  BOOST_TEST(stalls[0].seconds >= 0.01);
  // Reported once.
  BOOST_TEST(registry.NewStalls(std::chrono::milliseconds(10)).empty());
  BOOST_TEST(registry.NewStalls(std::chrono::milliseconds(0)).empty());

  // Another key of the same step is a new stall.
  const std::string other_key = KeyFor("also_stuck");
  Received also;
  step->rendezvous()->RecvAsync(other_key, also.Callback());
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const std::vector<StepRegistry::Stall> more = registry.NewStalls(std::chrono::milliseconds(10));
  BOOST_TEST_REQUIRE(more.size() == 1u);
  BOOST_TEST(more[0].step_id == 7);
  BOOST_TEST(more[0].key == other_key);
  BOOST_TEST(registry.NewStalls(std::chrono::milliseconds(10)).empty());

  // The tensor arrives: the Recv runs, and nothing is reported again.
  BOOST_TEST_REQUIRE(registry.Deliver(7, key, Tensor::Scalar<float>(2.0f), false).ok());
  BOOST_TEST_REQUIRE(stuck.Calls() == 1);
  BOOST_TEST(stuck.status.ok(), stuck.status);
  BOOST_TEST(stuck.value.scalar<float>() == 2.0f);

  // Clean up: the abort runs the Recv still waiting.
  registry.AbortAll(errors::Cancelled("test over"));
  BOOST_TEST_REQUIRE(also.Calls() == 1);
  BOOST_TEST(also.status.code() == Code::CANCELLED, also.status);
  BOOST_TEST(registry.NewStalls(std::chrono::milliseconds(0)).empty());
  BOOST_TEST(step->rendezvous()->NumPending() == 0u);
  BOOST_TEST(stuck.Calls() == 1);
}

BOOST_AUTO_TEST_CASE(finished_steps_are_remembered_for_a_bounded_while) {
  StepRegistry registry("worker0", Devices());
  for (int64_t id = 1; id <= 5000; ++id) registry.Finish(id);
  BOOST_TEST(registry.size() == 0u);
  // The latest ones are still finished.
  BOOST_TEST(registry.Finished(5000));
  BOOST_TEST(registry.GetOrCreate(5000) == nullptr);
  BOOST_TEST(registry.Finished(5000 - 4095));
  // The oldest are forgotten (the memory is bounded).
  BOOST_TEST(!registry.Finished(1));
  BOOST_TEST(registry.GetOrCreate(1) != nullptr);
  // Finishing a step twice does not push others out early.
  StepRegistry again("worker0", Devices());
  for (int i = 0; i < 5000; ++i) again.Finish(42);
  again.Finish(43);
  BOOST_TEST(again.Finished(42));
  BOOST_TEST(again.Finished(43));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
