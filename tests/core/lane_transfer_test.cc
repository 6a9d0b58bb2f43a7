// The data plane's synchronous side (core/net/lane_writer.h): a
// LaneWriter's tensors and messages reach a TensorReceiver intact and in
// order (with and without a cluster secret, sealed); a writer with no ready
// connection falls back (UNAVAILABLE) at once; a wrong secret is refused;
// Stop is prompt and idempotent.
#include <boost/test/unit_test.hpp>

#include "tests/core/lane_test_util.h"

namespace af {
namespace {

using namespace lane_testing;

BOOST_AUTO_TEST_SUITE(lane_transfer)

BOOST_AUTO_TEST_CASE(tensors_and_messages_arrive_intact_and_in_order) {
  Inbox inbox;
  std::unique_ptr<net::TensorReceiver> receiver = StartReceiver(&inbox);
  const std::string address = receiver->address();
  WriterLog writer_log;
  net::LaneWriter writer("", writer_log.Fn());

  BOOST_TEST(!writer.Ready(address));
  // No connection yet: the first write falls back at once and starts one.
  const Status first = writer.SendTensor(address, 1, "early", Bytes(4, 1));
  BOOST_TEST(first.code() == Code::UNAVAILABLE, first);
  BOOST_TEST_REQUIRE(WaitReady(&writer, address));

  const std::vector<Expected> traffic = MixedTraffic();
  for (const Expected& e : traffic) {
    const Status s = SendExpected(&writer, address, e);
    BOOST_TEST_REQUIRE(s.ok(), s);
  }
  BOOST_TEST_REQUIRE(inbox.WaitFor([&] { return inbox.arrivals.size() >= traffic.size(); }));
  CheckArrivals(&inbox, traffic);

  // A tensor that cannot travel as a frame is refused, not sent.
  const Status strings = writer.SendTensor(address, 1, "s", Tensor(DT_STRING, TensorShape{2}));
  BOOST_TEST(strings.code() == Code::INVALID_ARGUMENT, strings);

  writer.Stop();
  receiver->Stop();
  BOOST_TEST(inbox.Count() == traffic.size());
  std::lock_guard<std::mutex> lock(inbox.mu);
  BOOST_TEST(inbox.log.empty());
  std::lock_guard<std::mutex> wlock(writer_log.mu);
  BOOST_TEST(writer_log.lines.empty());
}

void MovesTrafficWithTheSecret() {
  Inbox inbox;
  std::unique_ptr<net::TensorReceiver> receiver = StartReceiver(&inbox, kSecret);
  const std::string address = receiver->address();
  WriterLog writer_log;
  net::LaneWriter writer(kSecret, writer_log.Fn());
  BOOST_TEST_REQUIRE(WaitReady(&writer, address));

  std::vector<Expected> traffic = MixedTraffic();
  traffic.push_back(ExpectTensor(40, "big", Bytes((1 << 20) + 3, 8)));
  traffic.push_back(ExpectMessage(net::LaneKind::kAbortStep, 3, 40, "why"));
  for (const Expected& e : traffic) {
    const Status s = SendExpected(&writer, address, e);
    BOOST_TEST_REQUIRE(s.ok(), s);
  }
  std::vector<Expected> batched;
  batched.push_back(ExpectMessage(net::LaneKind::kRunGraph, 77, 41, BinaryBody(300, 2)));
  batched.push_back(ExpectTensor(41, "feed", Floats(4, 4, 2.0f)));
  batched.push_back(ExpectMessage(net::LaneKind::kAbortStep, 78, 41, ""));
  {
    net::LaneWriter::Batch batch(&writer);
    for (const Expected& e : batched) {
      const Status s = SendExpected(&writer, address, e);
      BOOST_TEST_REQUIRE(s.ok(), s);
    }
  }
  traffic.insert(traffic.end(), batched.begin(), batched.end());
  ExpectDelivered(&inbox, traffic, &writer, receiver.get());
  std::lock_guard<std::mutex> wlock(writer_log.mu);
  BOOST_TEST(writer_log.lines.empty());
}

BOOST_AUTO_TEST_CASE(traffic_arrives_intact_between_holders_of_the_secret) {
  MovesTrafficWithTheSecret();
}

BOOST_AUTO_TEST_CASE(traffic_arrives_intact_sealed) {
  // Encryption on loopback too: the sealed reader carries lane messages.
  ScopedEnv always("ACTORFLOW_DATA_PLANE_ENCRYPTION", "always");
  MovesTrafficWithTheSecret();
}

BOOST_AUTO_TEST_CASE(a_writer_with_another_secret_is_refused_and_falls_back) {
  Inbox inbox;
  std::unique_ptr<net::TensorReceiver> receiver = StartReceiver(&inbox, kSecret);
  const std::string address = receiver->address();
  WriterLog writer_log;
  net::LaneWriter writer(kOtherSecret, writer_log.Fn());

  net::LanePrefix prefix;
  prefix.kind = net::LaneKind::kRunGraph;
  prefix.step_id = 5;
  const Status first = writer.SendMessage(address, prefix, "request");
  BOOST_TEST(first.code() == Code::UNAVAILABLE, first);
  // The receiver refuses the handshake and says so.
  BOOST_TEST_REQUIRE(inbox.WaitFor([&] { return !inbox.log.empty(); }));
  {
    std::lock_guard<std::mutex> lock(inbox.mu);
    for (const std::string& line : inbox.log) {
      BOOST_TEST(line.find("refused a connection from 127.0.0.1:") != std::string::npos, line);
    }
  }
  // The writer says so once, and never becomes ready.
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline) {
    {
      std::lock_guard<std::mutex> lock(writer_log.mu);
      if (!writer_log.lines.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  {
    std::lock_guard<std::mutex> lock(writer_log.mu);
    BOOST_TEST_REQUIRE(writer_log.lines.size() == 1u);
    BOOST_TEST(writer_log.lines[0].find(address) != std::string::npos, writer_log.lines[0]);
  }
  for (int i = 0; i < 5; ++i) {
    BOOST_TEST(!writer.Ready(address));
    const Status again = writer.SendMessage(address, prefix, "request");
    BOOST_TEST(again.code() == Code::UNAVAILABLE, again);
    const Status tensor = writer.SendTensor(address, 5, "k", Bytes(8, 1));
    BOOST_TEST(tensor.code() == Code::UNAVAILABLE, tensor);
    {
      net::LaneWriter::Batch batch(&writer);
      const Status batched = writer.SendMessage(address, prefix, "request");
      BOOST_TEST(batched.code() == Code::UNAVAILABLE, batched);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  writer.Stop();
  receiver->Stop();
  BOOST_TEST(inbox.Count() == 0u);
  std::lock_guard<std::mutex> lock(writer_log.mu);
  BOOST_TEST(writer_log.lines.size() == 1u);  // once per address
}

BOOST_AUTO_TEST_CASE(stop_with_a_connection_open_is_idempotent_and_ends_writes) {
  Inbox inbox;
  std::unique_ptr<net::TensorReceiver> receiver = StartReceiver(&inbox);
  const std::string address = receiver->address();
  net::LaneWriter writer("", [](const std::string&) {});
  BOOST_TEST_REQUIRE(WaitReady(&writer, address));
  BOOST_TEST_REQUIRE(writer.SendTensor(address, 1, "before", Bytes(4, 1)).ok());
  BOOST_TEST_REQUIRE(inbox.WaitFor([&] { return inbox.arrivals.size() == 1u; }));

  writer.Stop();
  writer.Stop();
  BOOST_TEST(!writer.Ready(address));
  const Status tensor = writer.SendTensor(address, 1, "after", Bytes(4, 1));
  BOOST_TEST(!tensor.ok());
  const Status message = writer.SendMessage(address, net::LanePrefix{}, "after");
  BOOST_TEST(!message.ok());
  {
    net::LaneWriter::Batch batch(&writer);
    const Status batched = writer.SendTensor(address, 1, "batched", Bytes(4, 1));
    BOOST_TEST(!batched.ok());
  }
  writer.Prepare(address);  // starts nothing
  BOOST_TEST(!writer.Ready(address));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  BOOST_TEST(!writer.Ready(address));
  writer.Stop();

  receiver->Stop();
  receiver->Stop();
  BOOST_TEST(inbox.Count() == 1u);
  {
    std::lock_guard<std::mutex> lock(inbox.mu);
    // The writer's close between frames is a clean end, not a broken one.
    BOOST_TEST(inbox.log.empty());
  }

  // A writer stopped while it dials also stops (its dial sees the stop).
  Inbox dial_inbox;
  std::unique_ptr<net::TensorReceiver> dialed = StartReceiver(&dial_inbox);
  net::LaneWriter dialing("", [](const std::string&) {});
  dialing.Prepare(dialed->address());
  dialing.Stop();
  BOOST_TEST(!dialing.Ready(dialed->address()));
  BOOST_TEST(!dialing.SendTensor(dialed->address(), 1, "k", Bytes(4, 1)).ok());
  dialed->Stop();
  BOOST_TEST(dial_inbox.Count() == 0u);
}

BOOST_AUTO_TEST_CASE(a_receiver_that_stopped_makes_the_writer_fall_back) {
  Inbox inbox;
  std::unique_ptr<net::TensorReceiver> receiver = StartReceiver(&inbox);
  const std::string address = receiver->address();
  net::LaneWriter writer("", [](const std::string&) {});
  BOOST_TEST_REQUIRE(WaitReady(&writer, address));
  BOOST_TEST_REQUIRE(writer.SendTensor(address, 1, "one", Bytes(4, 1)).ok());
  BOOST_TEST_REQUIRE(inbox.WaitFor([&] { return inbox.arrivals.size() == 1u; }));
  receiver->Stop();
  // The connection is gone: a write finds it so (at once, or on the next
  // write once the close arrives) and is not OK; no write hangs.
  bool failed = false;
  for (int i = 0; i < 100 && !failed; ++i) {
    failed = !writer.SendTensor(address, 1, "k" + std::to_string(i), Bytes(4, 1)).ok();
    if (!failed) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  BOOST_TEST(failed);
  writer.Stop();
  BOOST_TEST(inbox.Count() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
