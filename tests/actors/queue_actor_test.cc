// Queue actors through QueueInterface, as kernels use them, without a
// session: cancellation racing with an enqueue decides in the actor who
// gets the element — the cancelled dequeue (served first) or the next one
// (withdrawn first) — and it is never both or neither.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "actors/resources/resource_factories.h"
#include "core/cancellation.h"
#include "core/queue_interface.h"

namespace af::actors {
namespace {

constexpr auto kWait = std::chrono::seconds(20);

ResourceRef<QueueInterface> NewIntQueue(const std::string& name) {
  InstallResourceFactories();
  QueueSpec spec;
  spec.name = name;
  spec.component_types = {DT_INT32};
  spec.component_shapes = {PartialTensorShape(TensorShape{})};
  QueueInterface* q = nullptr;
  Status s = CreateQueue(spec, &q);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return ResourceRef<QueueInterface>(q);
}

struct Dequeued {
  Status status;
  int32_t value = -1;
};

std::future<Dequeued> Dequeue(QueueInterface* q, CancellationManager* cm, int64_t deadline_ns = 0) {
  auto promise = std::make_shared<std::promise<Dequeued>>();
  auto future = promise->get_future();
  q->Dequeue(cm, deadline_ns, [promise](const Status& s, QueueInterface::Tuple t) {
    Dequeued d;
    d.status = s;
    if (s.ok()) d.value = t[0].scalar<int32_t>();
    promise->set_value(d);
  });
  return future;
}

Status Enqueue(QueueInterface* q, int32_t v) {
  auto promise = std::make_shared<std::promise<Status>>();
  auto future = promise->get_future();
  q->Enqueue({Tensor::Scalar<int32_t>(v)}, nullptr, 0,
             [promise](const Status& s) { promise->set_value(s); });
  if (future.wait_for(kWait) != std::future_status::ready) {
    return errors::DeadlineExceeded("enqueue");
  }
  return future.get();
}

int64_t NanosFromNow(std::chrono::milliseconds d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             (std::chrono::steady_clock::now() + d).time_since_epoch())
      .count();
}

BOOST_AUTO_TEST_SUITE(queue_actor)

BOOST_AUTO_TEST_CASE(a_cancelled_dequeue_is_withdrawn_and_the_next_one_gets_the_element) {
  ResourceRef<QueueInterface> q = NewIntQueue("actor_cancel");
  CancellationManager cm;
  auto cancelled = Dequeue(q.get(), &cm);
  BOOST_TEST((cancelled.wait_for(std::chrono::milliseconds(20)) == std::future_status::timeout));
  cm.StartCancel();
  BOOST_REQUIRE(cancelled.wait_for(kWait) == std::future_status::ready);
  Dequeued d = cancelled.get();
  BOOST_TEST(d.status.code() == Code::CANCELLED);
  BOOST_TEST(d.status.message() == "Dequeue operation was cancelled");

  // A step already cancelled refuses at once.
  auto refused = Dequeue(q.get(), &cm);
  BOOST_REQUIRE(refused.wait_for(kWait) == std::future_status::ready);
  BOOST_TEST(refused.get().status.code() == Code::CANCELLED);

  BOOST_REQUIRE(Enqueue(q.get(), 3).ok());
  auto next = Dequeue(q.get(), nullptr);
  BOOST_REQUIRE(next.wait_for(kWait) == std::future_status::ready);
  BOOST_TEST(next.get().value == 3);
}

BOOST_AUTO_TEST_CASE(a_deadline_withdraws_a_dequeue_in_the_actor) {
  ResourceRef<QueueInterface> q = NewIntQueue("actor_deadline");
  auto late = Dequeue(q.get(), nullptr, NanosFromNow(std::chrono::milliseconds(10)));
  BOOST_REQUIRE(late.wait_for(kWait) == std::future_status::ready);
  Dequeued d = late.get();
  BOOST_TEST(d.status.code() == Code::DEADLINE_EXCEEDED);
  BOOST_TEST(d.status.message().find("FIFOQueue 'actor_deadline'") != std::string::npos);
  // A deadline already past still takes an element that is there.
  BOOST_REQUIRE(Enqueue(q.get(), 4).ok());
  auto past = Dequeue(q.get(), nullptr, NanosFromNow(std::chrono::milliseconds(-5)));
  BOOST_REQUIRE(past.wait_for(kWait) == std::future_status::ready);
  BOOST_TEST(past.get().value == 4);
}

BOOST_AUTO_TEST_CASE(cancellation_racing_an_enqueue_never_loses_or_duplicates_the_element) {
  ResourceRef<QueueInterface> q = NewIntQueue("actor_race");
  int served_before_cancel = 0;
  for (int32_t round = 0; round < 200; ++round) {
    CancellationManager cm;
    auto racing = Dequeue(q.get(), &cm);
    std::thread canceller([&cm] { cm.StartCancel(); });
    BOOST_REQUIRE(Enqueue(q.get(), round).ok());
    canceller.join();
    BOOST_REQUIRE(racing.wait_for(kWait) == std::future_status::ready);
    Dequeued first = racing.get();
    if (first.status.ok()) {
      // Served before its withdrawal arrived: it has the element.
      BOOST_TEST(first.value == round);
      ++served_before_cancel;
      continue;
    }
    BOOST_TEST(first.status.code() == Code::CANCELLED);
    auto second = Dequeue(q.get(), nullptr);
    BOOST_REQUIRE(second.wait_for(kWait) == std::future_status::ready);
    BOOST_TEST(second.get().value == round);
  }
  BOOST_TEST_MESSAGE("served before the cancellation: " << served_before_cancel << " of 200");
  // Nothing left over: every element went to exactly one dequeue.
  auto promise = std::make_shared<std::promise<int32_t>>();
  auto size = promise->get_future();
  q->Size([promise](const Status&, int32_t n) { promise->set_value(n); });
  BOOST_REQUIRE(size.wait_for(kWait) == std::future_status::ready);
  BOOST_TEST(size.get() == 0);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::actors
