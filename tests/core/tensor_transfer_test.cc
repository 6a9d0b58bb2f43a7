// The data plane's CAF-free parts (core/net/): frames are checked before
// anything is allocated, a TensorSender's tensors reach a TensorReceiver
// intact (with and without a cluster secret), a transfer that cannot be
// made goes to its fallback, and Stop never hangs, with work queued or
// connections idle.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "core/net/tensor_frame.h"
#include "core/net/tensor_receiver.h"
#include "core/net/tensor_sender.h"

namespace af {
namespace {

using Clock = std::chrono::steady_clock;

struct Received {
  int64_t step_id;
  std::string key;
  Tensor value;
};

// What a receiver delivered, logged and failed, for the test to wait on.
struct Inbox {
  std::mutex mu;
  std::condition_variable changed;
  std::vector<Received> tensors;
  std::vector<std::string> log;
  int fallbacks = 0;

  net::TensorReceiver::Handlers Handlers() {
    net::TensorReceiver::Handlers h;
    h.deliver = [this](int64_t step_id, std::string key, Tensor value) {
      std::lock_guard<std::mutex> lock(mu);
      tensors.push_back(Received{step_id, std::move(key), std::move(value)});
      changed.notify_all();
    };
    h.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu);
      log.push_back(line);
      changed.notify_all();
    };
    return h;
  }
  std::function<void()> Fallback() {
    return [this] {
      std::lock_guard<std::mutex> lock(mu);
      ++fallbacks;
      changed.notify_all();
    };
  }
  // Waits (at most 20 s) until `done` holds.
  template <class F>
  bool WaitFor(F done) {
    std::unique_lock<std::mutex> lock(mu);
    return changed.wait_for(lock, std::chrono::seconds(20), [&] { return done(); });
  }
};

Tensor Bytes(int64_t n, uint8_t seed) {
  Tensor t(DT_UINT8, TensorShape{n});
  for (int64_t i = 0; i < n; ++i) t.data<uint8_t>()[i] = static_cast<uint8_t>(i * 31 + seed);
  return t;
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0;
}

const std::string kSecret = "0123456789abcdef0123456789abcdef";

BOOST_AUTO_TEST_SUITE(tensor_transfer)

BOOST_AUTO_TEST_CASE(a_frame_header_round_trips_and_garbage_is_named) {
  Tensor value(DT_FLOAT, TensorShape{3, 5});
  const std::string header = net::EncodeFrameHeader(42, "a;key", value);
  net::FramePrefix prefix;
  BOOST_TEST_REQUIRE(net::ParseFramePrefix(header.data(), uint64_t{1} << 30, &prefix).ok());
  BOOST_TEST(prefix.step_id == 42);
  BOOST_TEST(prefix.dtype == DT_FLOAT);
  BOOST_TEST(prefix.payload_bytes == 60u);
  TensorShape shape;
  std::string key;
  const std::string_view rest(header.data() + net::kFramePrefixBytes, prefix.rest_bytes());
  BOOST_TEST_REQUIRE(net::ParseFrameRest(prefix, rest, &shape, &key).ok());
  BOOST_TEST(shape == TensorShape({3, 5}));
  BOOST_TEST(key == "a;key");

  auto with = [&](size_t offset, auto field) {
    std::string copy = header;
    std::memcpy(copy.data() + offset, &field, sizeof field);
    return copy;
  };
  auto prefix_error = [](const std::string& bytes, uint64_t max = uint64_t{1} << 30) {
    net::FramePrefix p;
    return net::ParseFramePrefix(bytes.data(), max, &p);
  };
  BOOST_TEST(prefix_error(with(0, uint32_t{7})).message().find("bad magic") != std::string::npos);
  BOOST_TEST(prefix_error(with(4, uint16_t{9})).message().find("version") != std::string::npos);
  BOOST_TEST(prefix_error(with(6, static_cast<uint16_t>(DT_STRING))).code() == Code::DATA_LOSS);
  BOOST_TEST(prefix_error(with(6, uint16_t{999})).code() == Code::DATA_LOSS);
  BOOST_TEST(prefix_error(with(8, uint32_t{255})).message().find("rank") != std::string::npos);
  BOOST_TEST(prefix_error(with(12, uint32_t{0})).code() == Code::DATA_LOSS);
  BOOST_TEST(prefix_error(with(12, uint32_t{1} << 20)).code() == Code::DATA_LOSS);
  BOOST_TEST(prefix_error(header, 59).message().find("memory") != std::string::npos);
  // Dims that disagree with the payload, and a negative dim.
  BOOST_TEST(net::ParseFrameRest(prefix, with(32, int64_t{4}).substr(32, prefix.rest_bytes()),
                                 &shape, &key)
                 .code() == Code::DATA_LOSS);
  BOOST_TEST(net::ParseFrameRest(prefix, with(32, int64_t{-3}).substr(32, prefix.rest_bytes()),
                                 &shape, &key)
                 .code() == Code::DATA_LOSS);
  BOOST_TEST(!net::CanFrame(Tensor(DT_STRING, TensorShape{2})));
  BOOST_TEST(net::CanFrame(value));
}

void MovesTensorsIntact(const std::string& secret) {
  Inbox inbox;
  std::unique_ptr<net::TensorReceiver> receiver;
  BOOST_TEST_REQUIRE(
      net::TensorReceiver::Start("127.0.0.1", secret, inbox.Handlers(), &receiver).ok());
  net::TensorSender sender(secret);
  std::vector<Tensor> sent;
  for (int i = 0; i < 12; ++i) {
    Tensor t = i % 3 == 0   ? Bytes((3 << 20) + i, static_cast<uint8_t>(i))
               : i % 3 == 1 ? Bytes(5, static_cast<uint8_t>(i))
                            : Tensor(DT_DOUBLE, TensorShape{7, 1000 + i});
    if (t.dtype() == DT_DOUBLE) {
      for (int64_t j = 0; j < t.NumElements(); ++j) t.data<double>()[j] = j * 0.5 + i;
    }
    sent.push_back(t);
    sender.Send(receiver->address(),
                net::TensorSender::Job{100 + i, "key" + std::to_string(i), t, inbox.Fallback()});
  }
  BOOST_TEST_REQUIRE(inbox.WaitFor([&] { return inbox.tensors.size() == sent.size(); }));
  std::lock_guard<std::mutex> lock(inbox.mu);
  BOOST_TEST(inbox.fallbacks == 0);
  for (const Received& r : inbox.tensors) {
    const int i = std::stoi(r.key.substr(3));
    BOOST_TEST(r.step_id == 100 + i);
    BOOST_TEST(SameBytes(r.value, sent[i]), "tensor " << i);
  }
  BOOST_TEST(inbox.log.empty());
}

BOOST_AUTO_TEST_CASE(tensors_arrive_intact_without_a_secret) { MovesTensorsIntact(""); }

BOOST_AUTO_TEST_CASE(tensors_arrive_intact_between_holders_of_the_secret) {
  MovesTensorsIntact(kSecret);
}

BOOST_AUTO_TEST_CASE(another_secret_is_refused_and_the_transfers_fall_back) {
  Inbox inbox;
  std::unique_ptr<net::TensorReceiver> receiver;
  BOOST_TEST_REQUIRE(
      net::TensorReceiver::Start("127.0.0.1", kSecret, inbox.Handlers(), &receiver).ok());
  std::vector<std::string> sender_log;
  std::mutex sender_mu;
  net::TensorSender sender("fedcba9876543210fedcba9876543210", [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(sender_mu);
    sender_log.push_back(line);
  });
  for (int i = 0; i < 3; ++i) {
    sender.Send(receiver->address(), net::TensorSender::Job{1, "k" + std::to_string(i),
                                                            Bytes(1000, 1), inbox.Fallback()});
  }
  BOOST_TEST_REQUIRE(inbox.WaitFor([&] { return inbox.fallbacks == 3 && !inbox.log.empty(); }));
  // Later transfers fall back at once, without a new connection.
  sender.Send(receiver->address(), net::TensorSender::Job{1, "k3", Bytes(10, 1), inbox.Fallback()});
  std::lock_guard<std::mutex> lock(inbox.mu);
  BOOST_TEST(inbox.fallbacks == 4);
  BOOST_TEST(inbox.tensors.empty());
  // One line per refused connection (the sender may have opened two).
  BOOST_TEST(inbox.log.size() <= net::TensorSender::kConnectionsPerPeer);
  for (const std::string& line : inbox.log) {
    BOOST_TEST(line.find("refused a connection from 127.0.0.1:") != std::string::npos, line);
  }
  std::lock_guard<std::mutex> sender_lock(sender_mu);
  BOOST_TEST_REQUIRE(sender_log.size() == 1u);  // once per address
  BOOST_TEST(sender_log[0].find("did not prove the cluster secret") != std::string::npos,
             sender_log[0]);
}

BOOST_AUTO_TEST_CASE(an_address_nobody_listens_on_falls_back) {
  // A port that was just free: nothing listens there.
  std::string address;
  {
    Inbox unused;
    std::unique_ptr<net::TensorReceiver> gone;
    BOOST_TEST_REQUIRE(
        net::TensorReceiver::Start("127.0.0.1", "", unused.Handlers(), &gone).ok());
    address = gone->address();
  }
  Inbox inbox;
  net::TensorSender sender("", [](const std::string&) {});
  sender.Send(address, net::TensorSender::Job{1, "k", Bytes(100, 1), inbox.Fallback()});
  BOOST_TEST(inbox.WaitFor([&] { return inbox.fallbacks == 1; }));
}

BOOST_AUTO_TEST_CASE(stop_returns_with_transfers_queued_and_connections_idle) {
  Inbox inbox;
  std::unique_ptr<net::TensorReceiver> receiver;
  BOOST_TEST_REQUIRE(
      net::TensorReceiver::Start("127.0.0.1", "", inbox.Handlers(), &receiver).ok());
  const Tensor big = Bytes(int64_t{8} << 20, 3);
  const auto t0 = Clock::now();
  {
    net::TensorSender sender("");
    for (int i = 0; i < 40; ++i) {
      sender.Send(receiver->address(), net::TensorSender::Job{1, "k" + std::to_string(i), big,
                                                              inbox.Fallback()});
    }
    sender.Stop();  // mid-transfer: queued jobs are dropped, not fallen back
  }
  {
    // A connection left idle, then the receiver stops under it.
    net::TensorSender idle("");
    idle.Send(receiver->address(), net::TensorSender::Job{2, "one", Bytes(10, 1), inbox.Fallback()});
    BOOST_TEST(inbox.WaitFor([&] {
      return std::any_of(inbox.tensors.begin(), inbox.tensors.end(),
                         [](const Received& r) { return r.key == "one"; });
    }));
    receiver->Stop();
  }
  const bool quick = Clock::now() - t0 < std::chrono::seconds(10);
  BOOST_TEST(quick);
  std::lock_guard<std::mutex> lock(inbox.mu);
  BOOST_TEST(inbox.fallbacks == 0);
}

BOOST_AUTO_TEST_CASE(without_a_secret_only_loopback) {
  Inbox inbox;
  std::unique_ptr<net::TensorReceiver> receiver;
  Status s = net::TensorReceiver::Start("0.0.0.0", "", inbox.Handlers(), &receiver);
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION, s);
  s = net::TensorReceiver::Start("0.0.0.0", kSecret, inbox.Handlers(), &receiver);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(receiver->address().rfind("0.0.0.0:", 0) == 0u, receiver->address());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
