// Helpers of the lane tests (tests/core/lane_*_test.cc): an inbox that
// records what a TensorReceiver hands on, the frames a test expects, and a
// scoped environment variable.
#pragma once

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

namespace af::lane_testing {

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

inline Tensor Bytes(int64_t n, uint8_t seed) {
  Tensor t(DT_UINT8, TensorShape{n});
  for (int64_t i = 0; i < n; ++i) t.data<uint8_t>()[i] = static_cast<uint8_t>(i * 31 + seed);
  return t;
}

inline Tensor Floats(int64_t rows, int64_t cols, float seed) {
  Tensor t(DT_FLOAT, TensorShape{rows, cols});
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = static_cast<float>(i) * 0.25f + seed;
  }
  return t;
}

inline bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.TotalBytes() == b.TotalBytes() &&
         (a.TotalBytes() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0);
}

// Polls until `writer` has a ready connection to `address` (at most 10 s).
inline bool WaitReady(net::LaneWriter* writer, const std::string& address) {
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  writer->Prepare(address);
  while (Clock::now() < deadline) {
    if (writer->Ready(address)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return writer->Ready(address);
}

// A receiver on 127.0.0.1 handing what arrives to `inbox`.
inline std::unique_ptr<net::TensorReceiver> StartReceiver(Inbox* inbox,
                                                          const std::string& secret = "") {
  std::unique_ptr<net::TensorReceiver> receiver;
  BOOST_TEST_REQUIRE(
      net::TensorReceiver::Start("127.0.0.1", secret, inbox->Handlers(), &receiver).ok());
  return receiver;
}

// What a test expects to arrive, in order: an arrival it describes.
using Expected = Arrival;

inline Expected ExpectTensor(int64_t step_id, std::string key, Tensor value) {
  Expected e;
  e.step_id = step_id;
  e.key = std::move(key);
  e.value = std::move(value);
  return e;
}

inline Expected ExpectMessage(net::LaneKind kind, uint64_t correlation, int64_t step_id,
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
inline Status SendExpected(net::LaneWriter* writer, const std::string& address, const Expected& e) {
  if (e.is_message) return writer->SendMessage(address, e.prefix, e.body);
  return writer->SendTensor(address, e.step_id, e.key, e.value);
}

// Checks that `inbox` holds exactly `expected`, in order.
inline void CheckArrivals(Inbox* inbox, const std::vector<Expected>& expected) {
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
inline std::string BinaryBody(size_t n, int seed) {
  std::string body(n, '\0');
  for (size_t i = 0; i < n; ++i) body[i] = static_cast<char>((i * 7 + seed) & 0xff);
  return body;
}

// The frames of the round-trip cases: tensors of several dtypes and sizes
// (one empty) and messages of every kind (one with an empty body).
inline std::vector<Expected> MixedTraffic() {
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

inline const std::string kSecret = "0123456789abcdef0123456789abcdef";
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

// Waits for `traffic`, checks that it arrived intact and in order, stops
// both ends and checks that the receiver logged nothing.
inline void ExpectDelivered(Inbox* inbox, const std::vector<Expected>& traffic,
                            net::LaneWriter* writer, net::TensorReceiver* receiver) {
  BOOST_TEST_REQUIRE(inbox->WaitFor([&] { return inbox->arrivals.size() >= traffic.size(); }));
  CheckArrivals(inbox, traffic);
  writer->Stop();
  receiver->Stop();
  std::lock_guard<std::mutex> lock(inbox->mu);
  BOOST_TEST(inbox->log.empty());
}

}  // namespace af::lane_testing
