// The receiving half of the data plane: a TCP listener whose peers send
// tensor frames (core/net/tensor_frame.h) and lane messages
// (core/net/lane_message.h). An accept thread admits each
// connection, and a reader thread per connection runs the handshake
// (core/net/data_handshake.h), then reads frames: header, a destination
// tensor from the CPU allocator (not zero-filled), the payload recv'd
// straight into it, and the complete tensor to `deliver`. A connection that
// sends garbage or fails the handshake is closed (one log line); a partial
// frame is dropped with its connection. No CAF here.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/net/lane_message.h"
#include "core/net/sealed_stream.h"
#include "core/metrics/metrics_registry.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af::net {

class BufferedReader;

class TensorReceiver {
 public:
  struct Handlers {
    // A complete tensor, on the connection's reader thread.
    std::function<void(int64_t step_id, std::string key, Tensor value)> deliver;
    // A frame whose tensor could not be allocated (its bytes were read and
    // dropped): the step waiting for it must fail.
    std::function<void(int64_t step_id, const std::string& key, const Status& why)> failed;
    // A lane message (core/net/lane_message.h), on the connection's reader
    // thread. Null: lane messages are garbage, and end the connection.
    std::function<void(const LanePrefix& prefix, std::string body)> message;
    // One line for the log (stderr when null).
    std::function<void(const std::string&)> log;
  };

  // Listens on `host` (an ephemeral port). With a `secret`, every
  // connection must prove it; without one, `host` must be a loopback
  // address (FAILED_PRECONDITION otherwise).
  static Status Start(const std::string& host, std::string secret, Handlers handlers,
                      std::unique_ptr<TensorReceiver>* out);
  ~TensorReceiver();  // Stop()
  TensorReceiver(const TensorReceiver&) = delete;
  TensorReceiver& operator=(const TensorReceiver&) = delete;

  // The numeric "host:port" bound (the host may be a wildcard).
  const std::string& address() const { return address_; }
  // Closes the listener and every connection and joins all threads.
  // Idempotent; never call it from `deliver` or `failed`.
  void Stop();

 private:
  struct Connection {
    int fd = -1;  // closed (and -1) under mu_ by its reader when it ends
    std::thread reader;
    std::atomic<bool> done{false};
  };

  TensorReceiver(int listen_fd, std::string address, std::string secret, Handlers handlers);
  void AcceptLoop();
  void ReadLoop(Connection* connection);
  // Reads one frame and hands it on; an error ends the connection, and so
  // does `*closed` (the peer closed it between frames).
  // `sealed`: the connection's decryption (null: plaintext, read through
  // `plain`).
  // `from_peer` counts the tensor bytes read (core/net/peer_traffic.h).
  Status ReadFrame(BufferedReader* plain, OpeningReader* sealed, std::string* scratch,
                   bool* closed, metrics::Counter* from_peer);
  // Joins and forgets the connections whose reader has ended.
  void Reap();
  void Log(const std::string& line) const;

  const int listen_fd_;
  const std::string address_;
  const std::string secret_;
  const Handlers handlers_;
  const uint64_t max_tensor_bytes_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> refusals_logged_{0};
  std::thread acceptor_;
  std::mutex mu_;  // guards connections_ and each Connection's fd
  std::list<Connection> connections_;
};

}  // namespace af::net
