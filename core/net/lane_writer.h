// The data plane's synchronous side: small tensor frames and lane messages
// written by the thread that has them (an executor finishing a Send, the
// master dispatching a step), straight into the socket. The queued
// TensorSender (core/net/tensor_sender.h) costs a thread wake-up per
// tensor, which is nothing next to a megabyte's transfer and most of a
// scalar's; here a small frame costs one write.
//
// One connection per peer listener, made in the background: a write to a
// peer with no ready connection starts one and returns UNAVAILABLE at
// once, and the caller takes its other path (CAF) — so no caller ever
// waits for a connect or handshake, and a peer that cannot be reached costs
// nothing but the fallback (retried with back-off, one log line). Writers
// to one peer take turns on its connection; a connection that fails or
// whose peer closed it is dropped, and the write that found it so returns
// UNAVAILABLE (a partial frame is discarded by the receiver). Only small
// messages belong here: a write blocks until the peer's socket buffer
// takes it. No CAF here.
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/hop_trace.h"
#include "core/net/lane_message.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af::net {

class LaneWriter {
 public:
  // `secret`: proven to every listener (empty: none). `log`: one line per
  // problem (the logger when null).
  explicit LaneWriter(std::string secret, std::function<void(const std::string&)> log = nullptr);
  ~LaneWriter();  // Stop()
  LaneWriter(const LaneWriter&) = delete;
  LaneWriter& operator=(const LaneWriter&) = delete;

  // Gathers what this thread writes through `writer` while it lives; the
  // frames leave when the outermost batch on the thread ends, one writev
  // per peer. A thread that is about to produce several frames for one peer
  // — a client thread sending a RunGraph and then its feeds, a reader thread
  // whose step writes a result and then the reply — wraps the work in a
  // batch, so that they cross as one write and wake the peer once. A write
  // is accepted into a batch only when its peer's connection is ready; one
  // that breaks while the batch leaves is lost, as one caught in a broken
  // connection always is.
  class Batch {
   public:
    explicit Batch(LaneWriter* writer);
    ~Batch();
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;

   private:
    friend class LaneWriter;
    struct Pending {
      std::string address;
      std::deque<std::string> bytes;  // headers and message bodies (stable)
      std::vector<Tensor> tensors;    // the payloads, kept alive
      std::vector<iovec> iov;
      std::vector<std::pair<int64_t, Hop>> marks;  // core/hop_trace.h, once written
    };
    Pending* For(const std::string& address);

    LaneWriter* const writer_;
    Batch* const outer_;  // the batch this one is inside (null: none)
    // Made on the first frame: a batch that gathers nothing (most of the
    // reader threads' batches) allocates nothing.
    std::vector<std::unique_ptr<Pending>> pending_;
  };

  // Writes `value`'s frame (CanFrame) for the Recv of `key` in `step_id`.
  Status SendTensor(const std::string& address, int64_t step_id, std::string_view key,
                    const Tensor& value);
  // Writes a lane message (prefix.body_bytes is set from `body`).
  Status SendMessage(const std::string& address, LanePrefix prefix, std::string_view body);
  // Starts connecting to `address` unless a connection is ready or coming.
  void Prepare(const std::string& address);
  // Whether a write to `address` would find a ready connection now.
  bool Ready(const std::string& address);
  // Closes every connection and joins the connecting threads. Idempotent.
  void Stop();

 private:
  using Clock = std::chrono::steady_clock;
  struct Connection;
  struct Peer {
    std::shared_ptr<Connection> ready;
    bool connecting = false;
    std::thread connector;
    Clock::time_point retry_after{};
    int failures = 0;
    bool failure_logged = false;
  };

  Status Write(const std::string& address, iovec* iov, int count);
  // The outermost batch of this thread on this writer (null: none).
  Batch* ActiveBatch();
  // Whether `address` has a ready connection; starts one otherwise.
  bool ReadyOrConnect(const std::string& address);
  // Under mu_: starts the connector thread of `peer` if none runs.
  void StartConnecting(const std::string& address, Peer* peer);
  void Connect(const std::string& address, Peer* peer);
  void Log(const std::string& line) const;

  const std::string secret_;
  const std::function<void(const std::string&)> log_;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;                                // guards peers_ and every Peer's fields
  std::unordered_map<std::string, Peer> peers_;  // never erased before Stop
};

}  // namespace af::net
