// Accumulator actors through AccumulatorInterface, as kernels use them,
// without a session: a cancelled or timed-out take is withdrawn in the
// actor and takes nothing, and a cancellation racing an apply decides in
// the actor whether the take got the gradient (served first) or the
// gradient stays for the next take (withdrawn first) — never both, never
// neither.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <future>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "actors/resources/resource_factories.h"
#include "core/accumulator_interface.h"
#include "core/cancellation.h"

namespace af::actors {
namespace {

constexpr auto kWait = std::chrono::seconds(20);

ResourceRef<AccumulatorInterface> NewAccumulator(const std::string& name) {
  InstallResourceFactories();
  AccumulatorSpec spec;
  spec.name = name;
  spec.dtype = DT_FLOAT;
  spec.shape = PartialTensorShape({1});
  AccumulatorInterface* acc = nullptr;
  Status s = CreateAccumulator(spec, &acc);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return ResourceRef<AccumulatorInterface>(acc);
}

struct Taken {
  Status status;
  float value = -1;
};

std::future<Taken> Take(AccumulatorInterface* acc, int32_t n, CancellationManager* cm,
                        int64_t deadline_ns = 0) {
  auto promise = std::make_shared<std::promise<Taken>>();
  auto future = promise->get_future();
  acc->TakeGradient(n, cm, deadline_ns, [promise](const Status& s, AccumulatorGradient g) {
    Taken t;
    t.status = s;
    if (s.ok()) t.value = g.dense.data<float>()[0];
    promise->set_value(t);
  });
  return future;
}

// Whether the gradient was applied (false: dropped as stale).
bool Apply(AccumulatorInterface* acc, int64_t step, float v) {
  auto promise = std::make_shared<std::promise<std::pair<Status, bool>>>();
  auto future = promise->get_future();
  AccumulatorGradient g;
  g.dense = Tensor::FromVector<float>({v});
  acc->ApplyGradient(step, std::move(g), [promise](const Status& s, bool applied) {
    promise->set_value({s, applied});
  });
  BOOST_REQUIRE(future.wait_for(kWait) == std::future_status::ready);
  auto [status, applied] = future.get();
  BOOST_TEST(status.ok(), status);
  return applied;
}

int32_t Held(AccumulatorInterface* acc) {
  auto promise = std::make_shared<std::promise<int32_t>>();
  auto future = promise->get_future();
  acc->NumAccumulated([promise](const Status&, int32_t n) { promise->set_value(n); });
  BOOST_REQUIRE(future.wait_for(kWait) == std::future_status::ready);
  return future.get();
}

int64_t NanosFromNow(std::chrono::milliseconds d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             (std::chrono::steady_clock::now() + d).time_since_epoch())
      .count();
}

BOOST_AUTO_TEST_SUITE(accumulator_actor)

BOOST_AUTO_TEST_CASE(a_cancelled_take_is_withdrawn_and_the_gradients_stay) {
  ResourceRef<AccumulatorInterface> acc = NewAccumulator("actor_cancel");
  BOOST_TEST(Apply(acc.get(), 0, 2.f));
  CancellationManager cm;
  auto cancelled = Take(acc.get(), 2, &cm);
  BOOST_TEST((cancelled.wait_for(std::chrono::milliseconds(20)) == std::future_status::timeout));
  cm.StartCancel();
  BOOST_REQUIRE(cancelled.wait_for(kWait) == std::future_status::ready);
  Taken t = cancelled.get();
  BOOST_TEST(t.status.code() == Code::CANCELLED);
  BOOST_TEST(t.status.message() == "TakeGrad operation was cancelled");
  // A step already cancelled is refused at once.
  auto refused = Take(acc.get(), 1, &cm);
  BOOST_REQUIRE(refused.wait_for(kWait) == std::future_status::ready);
  BOOST_TEST(refused.get().status.code() == Code::CANCELLED);

  BOOST_TEST(Held(acc.get()) == 1);
  BOOST_TEST(Apply(acc.get(), 0, 4.f));
  auto next = Take(acc.get(), 2, nullptr);
  BOOST_REQUIRE(next.wait_for(kWait) == std::future_status::ready);
  BOOST_TEST(next.get().value == 3.f);
}

BOOST_AUTO_TEST_CASE(a_deadline_withdraws_a_take_in_the_actor) {
  ResourceRef<AccumulatorInterface> acc = NewAccumulator("actor_deadline");
  auto late = Take(acc.get(), 1, nullptr, NanosFromNow(std::chrono::milliseconds(10)));
  BOOST_REQUIRE(late.wait_for(kWait) == std::future_status::ready);
  Taken t = late.get();
  BOOST_TEST(t.status.code() == Code::DEADLINE_EXCEEDED);
  BOOST_TEST(t.status.message().find("ConditionalAccumulator 'actor_deadline'") !=
             std::string::npos);
  // A deadline already past still takes gradients that are there, and the
  // step moved only for the take that was served.
  BOOST_TEST(Apply(acc.get(), 0, 5.f));
  auto past = Take(acc.get(), 1, nullptr, NanosFromNow(std::chrono::milliseconds(-5)));
  BOOST_REQUIRE(past.wait_for(kWait) == std::future_status::ready);
  BOOST_TEST(past.get().value == 5.f);
  BOOST_TEST(!Apply(acc.get(), 0, 5.f));
  BOOST_TEST(acc->dropped_gradients() == 1);
  BOOST_TEST(acc->DebugString().find("1 stale gradients dropped") != std::string::npos,
             acc->DebugString());
}

BOOST_AUTO_TEST_CASE(cancellation_racing_an_apply_never_loses_or_duplicates_a_gradient) {
  ResourceRef<AccumulatorInterface> acc = NewAccumulator("actor_race");
  int served_before_cancel = 0;
  int64_t step = 0;  // the accumulator's global step, as the takes move it
  for (int round = 0; round < 200; ++round) {
    CancellationManager cm;
    auto racing = Take(acc.get(), 1, &cm);
    std::thread canceller([&cm] { cm.StartCancel(); });
    BOOST_REQUIRE(Apply(acc.get(), step, float(round)));
    canceller.join();
    BOOST_REQUIRE(racing.wait_for(kWait) == std::future_status::ready);
    Taken first = racing.get();
    if (first.status.ok()) {
      // Served before its withdrawal arrived: it has the gradient.
      BOOST_TEST(first.value == float(round));
      ++served_before_cancel;
      ++step;
      continue;
    }
    BOOST_TEST(first.status.code() == Code::CANCELLED);
    auto second = Take(acc.get(), 1, nullptr);
    BOOST_REQUIRE(second.wait_for(kWait) == std::future_status::ready);
    BOOST_TEST(second.get().value == float(round));
    ++step;
  }
  BOOST_TEST_MESSAGE("served before the cancellation: " << served_before_cancel << " of 200");
  BOOST_TEST(Held(acc.get()) == 0);
  BOOST_TEST(acc->dropped_gradients() == 0);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::actors
