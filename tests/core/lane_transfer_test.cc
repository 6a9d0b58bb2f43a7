// The data plane's synchronous side (core/net/lane_writer.h) and its lane
// messages (core/net/lane_message.h): prefixes round-trip and garbage is
// named; a LaneWriter's tensors and messages reach a TensorReceiver intact
// and in order (with and without a cluster secret, buffered and batched);
// a writer with no ready connection falls back (UNAVAILABLE) at once; a
// wrong secret is refused; Stop is prompt and idempotent.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "core/net/lane_message.h"
#include "core/net/lane_writer.h"
#include "core/net/tensor_frame.h"
#include "core/net/tensor_receiver.h"

namespace af {
namespace {

using Clock = std::chrono::steady_clock;

// One thing a receiver handed on: a tensor or a lane message.
struct Arrival {
  bool is_message = false;
  // A tensor.
  int64_t step_id = 0;
  std::string key;
  Tensor value;
  // A lane message.
  net::LanePrefix prefix;
  std::string body;
};

// What a receiver delivered and logged, in arrival order, for the test to
// wait on.
struct Inbox {
  std::mutex mu;
  std::condition_variable changed;
  std::vector<Arrival> arrivals;
  std::vector<std::string> log;

  net::TensorReceiver::Handlers Handlers() {
    net::TensorReceiver::Handlers h;
    h.deliver = [this](int64_t step_id, std::string key, Tensor value) {
      std::lock_guard<std::mutex> lock(mu);
      Arrival a;
      a.step_id = step_id;
      a.key = std::move(key);
      a.value = std::move(value);
      arrivals.push_back(std::move(a));
      changed.notify_all();
    };
    h.message = [this](const net::LanePrefix& prefix, std::string body) {
      std::lock_guard<std::mutex> lock(mu);
      Arrival a;
      a.is_message = true;
      a.prefix = prefix;
      a.body = std::move(body);
      arrivals.push_back(std::move(a));
      changed.notify_all();
    };
    h.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu);
      log.push_back(line);
      changed.notify_all();
    };
    return h;
  }
  // Waits (at most 20 s) until `done` holds (called under mu).
  template <class F>
  bool WaitFor(F done) {
    std::unique_lock<std::mutex> lock(mu);
    return changed.wait_for(lock, std::chrono::seconds(20), [&] { return done(); });
  }
  size_t Count() {
    std::lock_guard<std::mutex> lock(mu);
    return arrivals.size();
  }
};

// Collects a writer's log lines.
struct WriterLog {
  std::mutex mu;
  std::vector<std::string> lines;
  std::function<void(const std::string&)> Fn() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu);
      lines.push_back(line);
    };
  }
};

Tensor Bytes(int64_t n, uint8_t seed) {
  Tensor t(DT_UINT8, TensorShape{n});
  for (int64_t i = 0; i < n; ++i) t.data<uint8_t>()[i] = static_cast<uint8_t>(i * 31 + seed);
  return t;
}

Tensor Floats(int64_t rows, int64_t cols, float seed) {
  Tensor t(DT_FLOAT, TensorShape{rows, cols});
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = static_cast<float>(i) * 0.25f + seed;
  }
  return t;
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.TotalBytes() == b.TotalBytes() &&
         (a.TotalBytes() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0);
}

// Polls until `writer` has a ready connection to `address` (at most 10 s).
bool WaitReady(net::LaneWriter* writer, const std::string& address) {
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  writer->Prepare(address);
  while (Clock::now() < deadline) {
    if (writer->Ready(address)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return writer->Ready(address);
}

// What a test expects to arrive, in order.
struct Expected {
  bool is_message = false;
  int64_t step_id = 0;
  std::string key;
  Tensor value;
  net::LanePrefix prefix;
  std::string body;
};

Expected ExpectTensor(int64_t step_id, std::string key, Tensor value) {
  Expected e;
  e.step_id = step_id;
  e.key = std::move(key);
  e.value = std::move(value);
  return e;
}

Expected ExpectMessage(net::LaneKind kind, uint64_t correlation, int64_t step_id,
                       std::string body) {
  Expected e;
  e.is_message = true;
  e.prefix.kind = kind;
  e.prefix.correlation = correlation;
  e.prefix.step_id = step_id;
  e.prefix.body_bytes = static_cast<uint32_t>(body.size());
  e.body = std::move(body);
  return e;
}

// Sends `e` through `writer` (a tensor or a message).
Status SendExpected(net::LaneWriter* writer, const std::string& address, const Expected& e) {
  if (e.is_message) return writer->SendMessage(address, e.prefix, e.body);
  return writer->SendTensor(address, e.step_id, e.key, e.value);
}

// Checks that `inbox` holds exactly `expected`, in order.
void CheckArrivals(Inbox* inbox, const std::vector<Expected>& expected) {
  std::lock_guard<std::mutex> lock(inbox->mu);
  BOOST_TEST_REQUIRE(inbox->arrivals.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const Arrival& got = inbox->arrivals[i];
    const Expected& want = expected[i];
    BOOST_TEST_REQUIRE(got.is_message == want.is_message, "arrival " << i);
    if (want.is_message) {
      BOOST_TEST(static_cast<int>(got.prefix.kind) == static_cast<int>(want.prefix.kind),
                 "arrival " << i);
      BOOST_TEST(got.prefix.correlation == want.prefix.correlation, "arrival " << i);
      BOOST_TEST(got.prefix.step_id == want.prefix.step_id, "arrival " << i);
      BOOST_TEST(got.prefix.body_bytes == want.body.size(), "arrival " << i);
      BOOST_TEST(got.body == want.body, "arrival " << i);
    } else {
      BOOST_TEST(got.step_id == want.step_id, "arrival " << i);
      BOOST_TEST(got.key == want.key, "arrival " << i);
      BOOST_TEST(SameBytes(got.value, want.value), "arrival " << i << " (" << want.key << ")");
    }
  }
}

// A body with every byte value, NULs included.
std::string BinaryBody(size_t n, int seed) {
  std::string body(n, '\0');
  for (size_t i = 0; i < n; ++i) body[i] = static_cast<char>((i * 7 + seed) & 0xff);
  return body;
}

// The frames of the round-trip cases: tensors of several dtypes and sizes
// (one empty) and messages of every kind (one with an empty body).
std::vector<Expected> MixedTraffic() {
  std::vector<Expected> out;
  out.push_back(ExpectTensor(7, "u8;key", Bytes(17, 3)));
  out.push_back(
      ExpectMessage(net::LaneKind::kRunGraph, 0x1122334455667788ull, 7, BinaryBody(1000, 1)));
  out.push_back(ExpectTensor(7, "float;key", Floats(3, 5, 1.5f)));
  out.push_back(ExpectTensor(8, "empty;key", Tensor(DT_FLOAT, TensorShape{0, 4})));
  out.push_back(ExpectMessage(net::LaneKind::kAbortStep, 10, 8, ""));
  out.push_back(ExpectTensor(-3, "scalar", Tensor::Scalar<double>(2.75)));
  out.push_back(ExpectMessage(net::LaneKind::kRunGraphReply, 99, -3, BinaryBody(3, 9)));
  out.push_back(ExpectTensor(9, "last", Bytes(70000, 5)));
  return out;
}

const std::string kSecret = "0123456789abcdef0123456789abcdef";
const std::string kOtherSecret = "fedcba9876543210fedcba9876543210";

// Sets an environment variable for a scope (nothing else runs meanwhile).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = std::string(old);
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

BOOST_AUTO_TEST_SUITE(lane_transfer)

BOOST_AUTO_TEST_CASE(a_lane_prefix_round_trips_and_garbage_is_named) {
  for (net::LaneKind kind :
       {net::LaneKind::kRunGraph, net::LaneKind::kRunGraphReply, net::LaneKind::kAbortStep}) {
    net::LanePrefix in;
    in.kind = kind;
    in.body_bytes = 12345;
    in.correlation = 0xfedcba9876543210ull;
    in.step_id = -987654321012345ll;
    const std::array<char, net::kLanePrefixBytes> bytes = net::EncodeLanePrefix(in);
    BOOST_TEST(net::FrameMagicOf(bytes.data()) == net::kLaneMagic);
    BOOST_TEST(net::FrameMagicOf(bytes.data()) != net::kFrameMagic);
    net::LanePrefix out;
    const Status s = net::ParseLanePrefix(bytes.data(), &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST(static_cast<int>(out.kind) == static_cast<int>(kind));
    BOOST_TEST(out.body_bytes == 12345u);
    BOOST_TEST(out.correlation == 0xfedcba9876543210ull);
    BOOST_TEST(out.step_id == -987654321012345ll);
  }
  // The largest body allowed is fine.
  {
    net::LanePrefix in;
    in.body_bytes = net::kMaxLaneBodyBytes;
    const auto bytes = net::EncodeLanePrefix(in);
    net::LanePrefix out;
    BOOST_TEST(net::ParseLanePrefix(bytes.data(), &out).ok());
    BOOST_TEST(out.body_bytes == net::kMaxLaneBodyBytes);
  }

  net::LanePrefix good;
  good.kind = net::LaneKind::kRunGraph;
  good.body_bytes = 10;
  good.correlation = 5;
  good.step_id = 6;
  const auto header = net::EncodeLanePrefix(good);
  auto with = [&](size_t offset, auto field) {
    std::array<char, net::kLanePrefixBytes> copy = header;
    std::memcpy(copy.data() + offset, &field, sizeof field);
    return copy;
  };
  auto parse = [](const std::array<char, net::kLanePrefixBytes>& bytes) {
    net::LanePrefix p;
    return net::ParseLanePrefix(bytes.data(), &p);
  };
  auto names = [](const Status& s, const std::string& what) {
    return s.code() == Code::DATA_LOSS && s.message().find(what) != std::string::npos;
  };

  const Status magic = parse(with(0, uint32_t{7}));
  BOOST_TEST(names(magic, "magic"), magic);
  // A tensor frame's magic is not a lane message's.
  const Status frame_magic = parse(with(0, net::kFrameMagic));
  BOOST_TEST(names(frame_magic, "magic"), frame_magic);
  BOOST_TEST(net::FrameMagicOf(with(0, net::kFrameMagic).data()) == net::kFrameMagic);

  const Status version = parse(with(4, uint16_t{2}));
  BOOST_TEST(names(version, "version"), version);
  const Status version0 = parse(with(4, uint16_t{0}));
  BOOST_TEST(names(version0, "version"), version0);

  const Status kind9 = parse(with(6, uint16_t{9}));
  BOOST_TEST(names(kind9, "kind"), kind9);
  BOOST_TEST(names(kind9, "9"), kind9);
  const Status kind0 = parse(with(6, uint16_t{0}));
  BOOST_TEST(names(kind0, "kind"), kind0);

  const Status big = parse(with(8, uint32_t{net::kMaxLaneBodyBytes + 1}));
  BOOST_TEST(names(big, "limit"), big);
  BOOST_TEST(names(big, std::to_string(net::kMaxLaneBodyBytes + 1)), big);
  const Status huge = parse(with(8, uint32_t{0xffffffffu}));
  BOOST_TEST(huge.code() == Code::DATA_LOSS, huge);

  const Status reserved = parse(with(12, uint32_t{1}));
  BOOST_TEST(names(reserved, "reserved"), reserved);
  const Status reserved_high = parse(with(12, uint32_t{0x80000000u}));
  BOOST_TEST(names(reserved_high, "reserved"), reserved_high);

  // The correlation and step id may hold anything.
  net::LanePrefix any;
  BOOST_TEST(net::ParseLanePrefix(with(16, ~uint64_t{0}).data(), &any).ok());
  BOOST_TEST(any.correlation == ~uint64_t{0});
  BOOST_TEST(net::ParseLanePrefix(with(24, int64_t{-1}).data(), &any).ok());
  BOOST_TEST(any.step_id == -1);
}

BOOST_AUTO_TEST_CASE(tensors_and_messages_arrive_intact_and_in_order) {
  Inbox inbox;
  std::unique_ptr<net::TensorReceiver> receiver;
  BOOST_TEST_REQUIRE(net::TensorReceiver::Start("127.0.0.1", "", inbox.Handlers(), &receiver).ok());
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

BOOST_AUTO_TEST_CASE(a_batch_holds_its_frames_until_the_outermost_batch_ends) {
  Inbox inbox;
  std::unique_ptr<net::TensorReceiver> receiver;
  BOOST_TEST_REQUIRE(net::TensorReceiver::Start("127.0.0.1", "", inbox.Handlers(), &receiver).ok());
  Inbox other_inbox;
  std::unique_ptr<net::TensorReceiver> other;
  BOOST_TEST_REQUIRE(
      net::TensorReceiver::Start("127.0.0.1", "", other_inbox.Handlers(), &other).ok());
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

void MovesTrafficWithTheSecret() {
  Inbox inbox;
  std::unique_ptr<net::TensorReceiver> receiver;
  BOOST_TEST_REQUIRE(
      net::TensorReceiver::Start("127.0.0.1", kSecret, inbox.Handlers(), &receiver).ok());
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
  BOOST_TEST_REQUIRE(inbox.WaitFor([&] { return inbox.arrivals.size() >= traffic.size(); }));
  CheckArrivals(&inbox, traffic);
  writer.Stop();
  receiver->Stop();
  std::lock_guard<std::mutex> lock(inbox.mu);
  BOOST_TEST(inbox.log.empty());
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
  std::unique_ptr<net::TensorReceiver> receiver;
  BOOST_TEST_REQUIRE(
      net::TensorReceiver::Start("127.0.0.1", kSecret, inbox.Handlers(), &receiver).ok());
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

BOOST_AUTO_TEST_CASE(many_small_frames_coalesced_then_a_large_one_arrive_intact) {
  Inbox inbox;
  std::unique_ptr<net::TensorReceiver> receiver;
  BOOST_TEST_REQUIRE(net::TensorReceiver::Start("127.0.0.1", "", inbox.Handlers(), &receiver).ok());
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
  BOOST_TEST_REQUIRE(inbox.WaitFor([&] { return inbox.arrivals.size() >= traffic.size(); }));
  CheckArrivals(&inbox, traffic);

  writer.Stop();
  receiver->Stop();
  std::lock_guard<std::mutex> lock(inbox.mu);
  BOOST_TEST(inbox.log.empty());
}

BOOST_AUTO_TEST_CASE(stop_with_a_connection_open_is_idempotent_and_ends_writes) {
  Inbox inbox;
  std::unique_ptr<net::TensorReceiver> receiver;
  BOOST_TEST_REQUIRE(net::TensorReceiver::Start("127.0.0.1", "", inbox.Handlers(), &receiver).ok());
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
  std::unique_ptr<net::TensorReceiver> dialed;
  BOOST_TEST_REQUIRE(
      net::TensorReceiver::Start("127.0.0.1", "", dial_inbox.Handlers(), &dialed).ok());
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
  std::unique_ptr<net::TensorReceiver> receiver;
  BOOST_TEST_REQUIRE(net::TensorReceiver::Start("127.0.0.1", "", inbox.Handlers(), &receiver).ok());
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
