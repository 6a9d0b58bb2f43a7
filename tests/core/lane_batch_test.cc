// LaneWriter batches (core/net/lane_writer.h): frames wait for the
// outermost batch on their writer, then leave in order; many small frames
// that arrive together are read intact through the receiver's buffer.
#include <boost/test/unit_test.hpp>

#include "tests/core/lane_test_util.h"

namespace af {
namespace {

using namespace lane_testing;

BOOST_AUTO_TEST_SUITE(lane_batch)

BOOST_AUTO_TEST_CASE(a_batch_holds_its_frames_until_the_outermost_batch_ends) {
  Inbox inbox;
  std::unique_ptr<net::TensorReceiver> receiver = StartReceiver(&inbox);
  Inbox other_inbox;
  std::unique_ptr<net::TensorReceiver> other = StartReceiver(&other_inbox);
  const std::string address = receiver->address();
  net::LaneWriter writer("", [](const std::string&) {});
  BOOST_TEST_REQUIRE(WaitReady(&writer, address));

  const std::vector<Expected> traffic = MixedTraffic();
  {
    net::LaneWriter::Batch batch(&writer);
    for (const Expected& e : traffic) {
      const Status s = SendExpected(&writer, address, e);
      BOOST_TEST_REQUIRE(s.ok(), s);
    }
    // A peer with no ready connection is refused inside a batch too.
    const Status unready = writer.SendTensor(other->address(), 1, "k", Bytes(3, 1));
    BOOST_TEST(unready.code() == Code::UNAVAILABLE, unready);
    const Status unready_message = writer.SendMessage(other->address(), net::LanePrefix{}, "body");
    BOOST_TEST(unready_message.code() == Code::UNAVAILABLE, unready_message);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    BOOST_TEST(inbox.Count() == 0u);  // held by the batch
  }
  BOOST_TEST_REQUIRE(inbox.WaitFor([&] { return inbox.arrivals.size() >= traffic.size(); }));
  CheckArrivals(&inbox, traffic);

  // Nested batches: only the outermost one sends.
  {
    std::lock_guard<std::mutex> lock(inbox.mu);
    inbox.arrivals.clear();
  }
  std::vector<Expected> nested;
  nested.push_back(ExpectTensor(21, "outer.before", Bytes(10, 2)));
  nested.push_back(ExpectMessage(net::LaneKind::kRunGraph, 1, 21, "inner"));
  nested.push_back(ExpectTensor(21, "inner", Floats(2, 2, 0.5f)));
  nested.push_back(ExpectTensor(21, "outer.after", Bytes(1, 4)));
  {
    net::LaneWriter::Batch outer(&writer);
    BOOST_TEST_REQUIRE(SendExpected(&writer, address, nested[0]).ok());
    {
      net::LaneWriter::Batch inner(&writer);
      BOOST_TEST_REQUIRE(SendExpected(&writer, address, nested[1]).ok());
      BOOST_TEST_REQUIRE(SendExpected(&writer, address, nested[2]).ok());
    }
    BOOST_TEST_REQUIRE(SendExpected(&writer, address, nested[3]).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    BOOST_TEST(inbox.Count() == 0u);  // the inner batch's end sent nothing
  }
  BOOST_TEST_REQUIRE(inbox.WaitFor([&] { return inbox.arrivals.size() >= nested.size(); }));
  CheckArrivals(&inbox, nested);

  // A batch of another writer in between does not gather this writer's
  // frames, and this writer's batch does not gather the other's.
  {
    std::lock_guard<std::mutex> lock(inbox.mu);
    inbox.arrivals.clear();
  }
  net::LaneWriter second("", [](const std::string&) {});
  BOOST_TEST_REQUIRE(WaitReady(&second, address));
  {
    net::LaneWriter::Batch mine(&writer);
    BOOST_TEST_REQUIRE(writer.SendTensor(address, 31, "batched", Bytes(5, 5)).ok());
    {
      net::LaneWriter::Batch theirs(&second);
      // Not gathered by `mine`: `second` has its own batch, which ends first.
      BOOST_TEST_REQUIRE(second.SendTensor(address, 32, "second", Bytes(6, 6)).ok());
    }
    BOOST_TEST_REQUIRE(inbox.WaitFor([&] { return inbox.arrivals.size() >= 1u; }));
    {
      std::lock_guard<std::mutex> lock(inbox.mu);
      BOOST_TEST(inbox.arrivals[0].key == "second");
    }
    // Outside its batch, `second` writes straight away.
    BOOST_TEST_REQUIRE(second.SendTensor(address, 33, "direct", Bytes(7, 7)).ok());
    BOOST_TEST_REQUIRE(inbox.WaitFor([&] { return inbox.arrivals.size() >= 2u; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    BOOST_TEST(inbox.Count() == 2u);  // "batched" is still held
  }
  BOOST_TEST_REQUIRE(inbox.WaitFor([&] { return inbox.arrivals.size() >= 3u; }));
  {
    std::lock_guard<std::mutex> lock(inbox.mu);
    BOOST_TEST(inbox.arrivals[1].key == "direct");
    BOOST_TEST(inbox.arrivals[2].key == "batched");
    BOOST_TEST(SameBytes(inbox.arrivals[2].value, Bytes(5, 5)));
  }

  second.Stop();
  writer.Stop();
  receiver->Stop();
  other->Stop();
  BOOST_TEST(other_inbox.Count() == 0u);
  std::lock_guard<std::mutex> lock(inbox.mu);
  BOOST_TEST(inbox.log.empty());
}

BOOST_AUTO_TEST_CASE(many_small_frames_coalesced_then_a_large_one_arrive_intact) {
  Inbox inbox;
  std::unique_ptr<net::TensorReceiver> receiver = StartReceiver(&inbox);
  const std::string address = receiver->address();
  net::LaneWriter writer("", [](const std::string&) {});
  BOOST_TEST_REQUIRE(WaitReady(&writer, address));

  std::vector<Expected> traffic;
  for (int i = 0; i < 200; ++i) {
    const int64_t n = 1 + (i * 37) % 300;
    traffic.push_back(
        ExpectTensor(1000 + i, "small" + std::to_string(i), Bytes(n, static_cast<uint8_t>(i))));
    if (i % 25 == 0) {
      traffic.push_back(ExpectMessage(net::LaneKind::kRunGraphReply, static_cast<uint64_t>(i),
                                      1000 + i, BinaryBody(static_cast<size_t>(i) + 1, i)));
    }
  }
  {
    net::LaneWriter::Batch batch(&writer);
    for (const Expected& e : traffic) {
      const Status s = SendExpected(&writer, address, e);
      BOOST_TEST_REQUIRE(s.ok(), s);
    }
  }
  BOOST_TEST_REQUIRE(inbox.WaitFor([&] { return inbox.arrivals.size() >= traffic.size(); }));
  CheckArrivals(&inbox, traffic);

  // A large tensor after them: straight into its destination.
  const Tensor big = Bytes(int64_t{3} << 20, 11);
  traffic.push_back(ExpectTensor(2000, "big", big));
  const Status s = writer.SendTensor(address, 2000, "big", big);
  BOOST_TEST_REQUIRE(s.ok(), s);
  // And small ones behind it, which the buffer picks up again.
  traffic.push_back(ExpectTensor(2001, "after.big", Bytes(9, 12)));
  BOOST_TEST_REQUIRE(writer.SendTensor(address, 2001, "after.big", Bytes(9, 12)).ok());
  traffic.push_back(ExpectMessage(net::LaneKind::kRunGraph, 3, 2001, "tail"));
  BOOST_TEST_REQUIRE(SendExpected(&writer, address, traffic.back()).ok());
  ExpectDelivered(&inbox, traffic, &writer, receiver.get());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
