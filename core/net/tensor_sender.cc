#include "core/net/tensor_sender.h"

#include <pthread.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <vector>

#include "core/cluster_secret.h"
#include "core/logging.h"
#include "core/net/data_handshake.h"
#include "core/net/sealed_stream.h"
#include "core/net/tcp_socket.h"
#include "core/net/tensor_frame.h"
#include "core/net/peer_traffic.h"
#include "core/net/transfer_counters.h"
#include "core/net/thread_crypto_state.h"

namespace af::net {
namespace {

// How often an idle connection looks whether its peer closed it.
constexpr auto kIdleCheck = std::chrono::seconds(30);

}  // namespace

TensorSender::TensorSender(std::string secret, std::function<void(const std::string&)> log)
    : secret_(std::move(secret)), log_(std::move(log)) {}

TensorSender::~TensorSender() { Stop(); }

void TensorSender::Log(const std::string& line) const {
  if (log_) {
    log_(line);
  } else {
    AF_LOG(WARNING) << "data plane: " << line;
  }
}

void TensorSender::Send(const std::string& address, Job job) {
  std::list<Connection> finished;
  bool fall_back = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_.load()) return;  // the owner is going away: so is the step
    Peer& peer = peers_[address];
    for (auto it = peer.connections.begin(); it != peer.connections.end();) {
      auto next = std::next(it);
      if (it->done) finished.splice(finished.end(), peer.connections, it);
      it = next;
    }
    if (Clock::now() < peer.retry_after) {
      fall_back = true;
    } else {
      // An idle connection if there is one, else a new one while below the
      // limit, else the one with the fewest bytes ahead of this job.
      Connection* chosen = nullptr;
      Connection* least = nullptr;
      size_t open = 0;
      for (Connection& c : peer.connections) {
        if (c.closing) continue;
        ++open;
        if (c.jobs.empty() && !c.writing) {
          chosen = &c;
          break;
        }
        if (least == nullptr || c.queued_bytes < least->queued_bytes) least = &c;
      }
      if (chosen == nullptr && open < kConnectionsPerPeer) {
        Connection& c = peer.connections.emplace_back();
        c.thread = std::thread([this, address, p = &peer, cp = &c] {
          Run(address, p, cp);
          ReleaseThreadCryptoState();
        });
        chosen = &c;
      }
      if (chosen == nullptr) chosen = least;
      chosen->queued_bytes += job.value.TotalBytes();
      chosen->jobs.push_back(std::move(job));
      chosen->wake.notify_one();
    }
  }
  for (Connection& c : finished) c.thread.join();
  if (fall_back) {
    TransferCounters::Global().fallbacks.fetch_add(1, std::memory_order_relaxed);
    if (job.fallback) job.fallback();
  }
}

void TensorSender::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_.exchange(true)) return;
    for (auto& [address, peer] : peers_) {
      for (Connection& c : peer.connections) {
        c.wake.notify_all();
        if (c.fd >= 0) shutdown(c.fd, SHUT_RDWR);
      }
    }
  }
  // Send adds nothing once stopping_ is set; threads touch only their own
  // connection's fields (under mu_), not the containers.
  for (auto& [address, peer] : peers_) {
    for (Connection& c : peer.connections) {
      if (c.thread.joinable()) c.thread.join();
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  peers_.clear();
}

void TensorSender::Run(const std::string& address, Peer* peer, Connection* connection) {
  metrics::Counter* const sent_to_peer = BytesSentTo(address);
  pthread_setname_np(pthread_self(), "af.data.send");  // else it bears its creator's name
  int fd = -1;
  std::string key;  // set when the connection is encrypted
  Status s = ConnectTcp(address, kDataConnectTimeout, stopping_, &fd);
  if (s.ok()) {
    {
      // Registered under the lock, so that Stop either sees it (and shuts
      // it down) or has already set stopping_ (checked here).
      std::lock_guard<std::mutex> lock(mu_);
      connection->fd = fd;
      if (stopping_.load()) s = errors::Cancelled("stopping");
    }
    if (s.ok()) {
      ConfigureDataSocket(fd, kDataSendTimeout);
      SetReceiveTimeout(fd, kHandshakeTimeout);
      const size_t colon = address.rfind(':');
      const std::string host = colon == std::string::npos ? address : address.substr(0, colon);
      s = ConnectorHandshake(fd, secret_, WantEncryption(IsLoopbackHost(host)), &key);
    }
  }
  if (!s.ok()) return Fail(address, peer, connection, s, /*connecting=*/true, nullptr);
  {
    std::lock_guard<std::mutex> lock(mu_);
    peer->failures = 0;
  }
  std::unique_ptr<SealingWriter> sealed;
  if (!key.empty()) sealed = std::make_unique<SealingWriter>(fd, key);
  while (true) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      const auto ready = [&] { return stopping_.load() || !connection->jobs.empty(); };
      // An idle connection whose peer has gone (a restarted task listens on
      // a new port, so nothing is sent here again) ends its thread.
      while (!connection->wake.wait_for(lock, kIdleCheck, ready)) {
        if (PeerHasClosed(fd)) {
          connection->closing = true;
          break;
        }
      }
      if (stopping_.load() || connection->closing) break;
      job = std::move(connection->jobs.front());
      connection->jobs.pop_front();
      connection->writing = true;
    }
    const uint64_t bytes = job.value.TotalBytes();
    std::string header = EncodeFrameHeader(job.step_id, job.key, job.value);
    iovec iov[2] = {{header.data(), header.size()}, {job.value.raw_data(), bytes}};
    s = sealed ? sealed->Send(iov, 2) : SendAll(fd, iov, 2);
    {
      std::lock_guard<std::mutex> lock(mu_);
      connection->writing = false;
      connection->queued_bytes -= bytes;
    }
    if (!s.ok()) return Fail(address, peer, connection, s, /*connecting=*/false, &job);
    TransferCounters& counters = TransferCounters::Global();
    counters.tensors_sent.fetch_add(1, std::memory_order_relaxed);
    counters.bytes_sent.fetch_add(bytes, std::memory_order_relaxed);
    sent_to_peer->Add(bytes);
  }
  std::deque<Job> dropped;  // released outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  close(fd);
  connection->fd = -1;
  dropped.swap(connection->jobs);
  connection->done = true;
}

void TensorSender::Fail(const std::string& address, Peer* peer, Connection* connection,
                        const Status& why, bool connecting, Job* current) {
  std::vector<Job> orphans;
  bool log = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    connection->closing = true;
    if (current != nullptr) orphans.push_back(std::move(*current));
    for (Job& job : connection->jobs) orphans.push_back(std::move(job));
    connection->jobs.clear();
    connection->queued_bytes = 0;
    if (connection->fd >= 0) close(connection->fd);
    connection->fd = -1;
    if (connecting) {
      const auto wait = ConnectBackoff(peer->failures);
      peer->retry_after = Clock::now() + wait;
      ++peer->failures;
    }
    log = !stopping_.load() && (!connecting || !peer->failure_logged);
    if (connecting) peer->failure_logged = true;
  }
  if (log) {
    Log(connecting ? "cannot use the data plane at " + address + ": " + why.ToString() + "; " +
                         std::to_string(orphans.size()) +
                         " tensor(s) take the chunk path, and later ones until it can be reached"
                   : "the connection to the data plane at " + address + " broke: " +
                         why.ToString() + "; " + std::to_string(orphans.size()) +
                         " tensor(s) dropped (their steps fail when the peer is found lost, or "
                         "at their deadline)");
  }
  // A break mid-frame almost always means the peer died: sending its
  // tensors again through CAF would only leave chunk senders waiting out
  // their timeouts on a dead proxy (and hold its memory meanwhile).
  if (stopping_.load() || !connecting) orphans.clear();
  TransferCounters::Global().fallbacks.fetch_add(orphans.size(), std::memory_order_relaxed);
  for (Job& job : orphans) {
    if (job.fallback) job.fallback();
  }
  orphans.clear();
  // Last: once `done` is seen, Send may join and destroy this connection.
  std::lock_guard<std::mutex> lock(mu_);
  connection->done = true;
}

}  // namespace af::net
