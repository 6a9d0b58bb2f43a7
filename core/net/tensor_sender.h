// The sending half of the data plane: persistent connections to peers'
// TensorReceivers, a few per peer address, each with its own thread and a
// FIFO of tensors to write as frames (core/net/tensor_frame.h). Send only
// queues (the job holds the tensor, whose buffer is refcounted), so the
// executor thread that produced the tensor moves on at once.
//
// A job the data plane cannot carry goes back to its `fallback` (the chunk
// path through CAF) when the peer cannot be reached or refuses the
// handshake; new jobs for that address then fall back at once for a while,
// with back-off, and one line is logged per address. A connection that
// breaks once established drops its jobs (one log line): the peer is
// almost surely gone, and the steps waiting for them fail when the master
// finds it lost, or at their deadline. The receiver drops partial frames,
// so nothing arrives twice or torn. No CAF here.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "core/tensor.h"

namespace af::net {

class TensorSender {
 public:
  struct Job {
    int64_t step_id = 0;
    std::string key;  // rendezvous key
    Tensor value;     // fixed-size dtype (CanFrame)
    // The same transfer by another path; called at most once, from Send's
    // caller or a connection thread. Not called once Stop has begun.
    std::function<void()> fallback;
  };

  // `secret`: the cluster secret proven to every listener (empty: none).
  // `log` gets one line per problem (stderr when null).
  explicit TensorSender(std::string secret,
                        std::function<void(const std::string&)> log = nullptr);
  ~TensorSender();  // Stop()
  TensorSender(const TensorSender&) = delete;
  TensorSender& operator=(const TensorSender&) = delete;

  // Queues `job` for the listener at "host:port", or runs its fallback now.
  void Send(const std::string& address, Job job);
  // Wakes and joins every connection thread; queued jobs are dropped.
  // Idempotent; never call it from a fallback.
  void Stop();

  // More connections to one peer let a small transfer pass a large one;
  // more than two only add threads competing for the same cores.
  static constexpr size_t kConnectionsPerPeer = 2;

 private:
  using Clock = std::chrono::steady_clock;

  struct Connection {
    std::thread thread;
    std::condition_variable wake;
    std::deque<Job> jobs;
    uint64_t queued_bytes = 0;  // of `jobs` and the job being written
    bool writing = false;
    bool closing = false;  // failed, or the peer closed it: takes no more jobs
    int fd = -1;           // under mu_; shut down by Stop
    bool done = false;  // the thread has ended (join it)
  };
  struct Peer {
    std::list<Connection> connections;
    Clock::time_point retry_after{};  // connect failures: fall back until then
    int failures = 0;                 // in a row, for the back-off
    bool failure_logged = false;
  };

  void Run(const std::string& address, Peer* peer, Connection* connection);
  // Ends `connection` after `why`: its jobs (and `current`, if any) go to
  // their fallbacks when it never connected, else they are dropped. Called
  // by its thread, without mu_.
  void Fail(const std::string& address, Peer* peer, Connection* connection, const Status& why,
            bool connecting, Job* current);
  void Log(const std::string& line) const;

  const std::string secret_;
  const std::function<void(const std::string&)> log_;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;  // guards peers_ and the fields of each Peer and Connection
  std::unordered_map<std::string, Peer> peers_;  // by address; never erased before Stop
};

}  // namespace af::net
