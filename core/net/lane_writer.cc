#include "core/net/lane_writer.h"

#include <pthread.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <optional>

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

// The hop a lane message of `kind` marks once written (core/hop_trace.h).
std::optional<Hop> MarkedHop(LaneKind kind) {
  if (kind == LaneKind::kRunGraph) return Hop::kRequestWritten;
  if (kind == LaneKind::kRunGraphReply) return Hop::kReplyWritten;
  return std::nullopt;
}

// The batches open on this thread, innermost first.
thread_local LaneWriter::Batch* tls_batch = nullptr;

}  // namespace

// A peer that closed (a task that exited or restarted) did so while the
// connection was quiet; within a burst of writes the last one's success
// vouches for it, so the check costs no system call per message.
constexpr auto kQuietBeforePeerCheck = std::chrono::milliseconds(1);

struct LaneWriter::Connection {
  std::mutex write_mu;  // one frame at a time
  int fd = -1;
  std::unique_ptr<SealingWriter> sealed;
  std::atomic<bool> broken{false};  // set under write_mu, read anywhere
  Clock::time_point last_write{};  // under write_mu
  ~Connection() {
    sealed.reset();
    if (fd >= 0) close(fd);
  }
};

LaneWriter::Batch::Batch(LaneWriter* writer) : writer_(writer), outer_(tls_batch) {
  tls_batch = this;
}

LaneWriter::Batch::~Batch() {
  tls_batch = outer_;
  for (const std::unique_ptr<Pending>& pending : pending_) {
    Pending& p = *pending;
    // A failure here is a broken connection: its frames are lost as in
    // any write that finds it so (the writer logged nothing new).
    if (!writer_->Write(p.address, p.iov.data(), static_cast<int>(p.iov.size())).ok()) continue;
    for (const auto& [step_id, hop] : p.marks) HopTrace::Mark(step_id, hop);
  }
}

LaneWriter::Batch::Pending* LaneWriter::Batch::For(const std::string& address) {
  for (const std::unique_ptr<Pending>& p : pending_) {
    if (p->address == address) return p.get();
  }
  pending_.push_back(std::make_unique<Pending>());
  pending_.back()->address = address;
  return pending_.back().get();
}

LaneWriter::Batch* LaneWriter::ActiveBatch() {
  // Only the outermost batch of this writer gathers; a batch of another
  // writer in between does not see this writer's frames.
  Batch* found = nullptr;
  for (Batch* b = tls_batch; b != nullptr; b = b->outer_) {
    if (b->writer_ == this) found = b;
  }
  return found;
}

bool LaneWriter::ReadyOrConnect(const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_.load()) return false;
  Peer& peer = peers_[address];
  if (peer.ready != nullptr && !peer.ready->broken) return true;
  StartConnecting(address, &peer);
  return false;
}

LaneWriter::LaneWriter(std::string secret, std::function<void(const std::string&)> log)
    : secret_(std::move(secret)), log_(std::move(log)) {}

LaneWriter::~LaneWriter() { Stop(); }

void LaneWriter::Log(const std::string& line) const {
  if (log_) {
    log_(line);
  } else {
    AF_LOG(WARNING) << "data plane: " << line;
  }
}

Status LaneWriter::SendTensor(const std::string& address, int64_t step_id, std::string_view key,
                              const Tensor& value) {
  if (!CanFrame(value)) {
    return errors::InvalidArgument("data plane: tensor '", key, "' of dtype ",
                                   DataTypeString(value.dtype()), " cannot travel as a frame");
  }
  if (Batch* batch = ActiveBatch()) {
    if (!ReadyOrConnect(address)) {
      return errors::Unavailable("data plane: no connection to ", address, " yet");
    }
    Batch::Pending* p = batch->For(address);
    p->bytes.push_back(EncodeFrameHeader(step_id, key, value));
    p->iov.push_back({p->bytes.back().data(), p->bytes.back().size()});
    if (value.TotalBytes() > 0) {
      p->tensors.push_back(value);
      p->iov.push_back(
          {const_cast<void*>(static_cast<const void*>(value.raw_data())), value.TotalBytes()});
    }
    p->marks.emplace_back(step_id, Hop::kTensorWritten);
    TransferCounters& counters = TransferCounters::Global();
    counters.tensors_sent.fetch_add(1, std::memory_order_relaxed);
    counters.bytes_sent.fetch_add(value.TotalBytes(), std::memory_order_relaxed);
    BytesSentTo(address)->Add(value.TotalBytes());
    return Status::OK();
  }
  std::string header = EncodeFrameHeader(step_id, key, value);
  iovec iov[2] = {
      {header.data(), header.size()},
      {const_cast<void*>(static_cast<const void*>(value.raw_data())), value.TotalBytes()}};
  Status s = Write(address, iov, value.TotalBytes() > 0 ? 2 : 1);
  if (s.ok()) {
    HopTrace::Mark(step_id, Hop::kTensorWritten);
    TransferCounters& counters = TransferCounters::Global();
    counters.tensors_sent.fetch_add(1, std::memory_order_relaxed);
    counters.bytes_sent.fetch_add(value.TotalBytes(), std::memory_order_relaxed);
    BytesSentTo(address)->Add(value.TotalBytes());
  }
  return s;
}

Status LaneWriter::SendMessage(const std::string& address, LanePrefix prefix,
                               std::string_view body) {
  if (body.size() > kMaxLaneBodyBytes) {
    return errors::ResourceExhausted("data plane: a lane message of ", body.size(),
                                     " bytes (limit ", kMaxLaneBodyBytes, ")");
  }
  prefix.body_bytes = static_cast<uint32_t>(body.size());
  std::array<char, kLanePrefixBytes> head = EncodeLanePrefix(prefix);
  if (Batch* batch = ActiveBatch()) {
    if (!ReadyOrConnect(address)) {
      return errors::Unavailable("data plane: no connection to ", address, " yet");
    }
    Batch::Pending* p = batch->For(address);
    std::string& bytes = p->bytes.emplace_back(head.data(), head.size());
    bytes.append(body.data(), body.size());
    p->iov.push_back({bytes.data(), bytes.size()});
    if (MarkedHop(prefix.kind)) p->marks.emplace_back(prefix.step_id, *MarkedHop(prefix.kind));
    return Status::OK();
  }
  iovec iov[2] = {{head.data(), head.size()}, {const_cast<char*>(body.data()), body.size()}};
  Status s = Write(address, iov, body.empty() ? 1 : 2);
  if (s.ok() && MarkedHop(prefix.kind)) HopTrace::Mark(prefix.step_id, *MarkedHop(prefix.kind));
  return s;
}

bool LaneWriter::Ready(const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = peers_.find(address);
  return it != peers_.end() && it->second.ready != nullptr && !it->second.ready->broken;
}

void LaneWriter::Prepare(const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_.load()) return;
  Peer& peer = peers_[address];
  if (peer.ready == nullptr) StartConnecting(address, &peer);
}

Status LaneWriter::Write(const std::string& address, iovec* iov, int count) {
  std::shared_ptr<Connection> connection;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_.load()) return errors::Cancelled("data plane: stopping");
    Peer& peer = peers_[address];
    connection = peer.ready;
    if (connection == nullptr) {
      StartConnecting(address, &peer);
      return errors::Unavailable("data plane: no connection to ", address, " yet");
    }
  }
  Status s;
  {
    std::lock_guard<std::mutex> lock(connection->write_mu);
    if (connection->broken) {
      s = errors::Unavailable("data plane: the connection to ", address, " broke");
    } else if (Clock::now() - connection->last_write > kQuietBeforePeerCheck &&
               PeerHasClosed(connection->fd)) {
      s = errors::Unavailable("data plane: ", address, " closed the connection");
    } else {
      s = connection->sealed ? connection->sealed->Send(iov, count)
                             : SendAll(connection->fd, iov, count);
      connection->last_write = Clock::now();
    }
    if (!s.ok()) {
      connection->broken = true;
      shutdown(connection->fd, SHUT_RDWR);
    }
  }
  if (!s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    Peer& peer = peers_[address];
    if (peer.ready == connection) peer.ready = nullptr;  // the next write dials again
  }
  return s;
}

void LaneWriter::StartConnecting(const std::string& address, Peer* peer) {
  if (peer->connecting || stopping_.load() || Clock::now() < peer->retry_after) return;
  if (peer->connector.joinable()) peer->connector.join();  // a finished attempt
  peer->connecting = true;
  peer->connector = std::thread([this, address, peer] {
    Connect(address, peer);
    ReleaseThreadCryptoState();
  });
}

void LaneWriter::Connect(const std::string& address, Peer* peer) {
  pthread_setname_np(pthread_self(), "af.lane.dial");
  auto connection = std::make_shared<Connection>();
  std::string key;
  Status s = ConnectTcp(address, kDataConnectTimeout, stopping_, &connection->fd);
  if (s.ok()) {
    ConfigureDataSocket(connection->fd, kDataSendTimeout);
    SetReceiveTimeout(connection->fd, kHandshakeTimeout);
    const size_t colon = address.rfind(':');
    const std::string host = colon == std::string::npos ? address : address.substr(0, colon);
    s = ConnectorHandshake(connection->fd, secret_, WantEncryption(IsLoopbackHost(host)), &key);
  }
  if (s.ok() && !key.empty())
    connection->sealed = std::make_unique<SealingWriter>(connection->fd, key);
  bool log = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    peer->connecting = false;
    if (s.ok() && !stopping_.load()) {
      peer->ready = std::move(connection);
      peer->failures = 0;
      peer->failure_logged = false;
    } else if (!s.ok()) {
      peer->retry_after = Clock::now() + ConnectBackoff(peer->failures);
      ++peer->failures;
      log = !stopping_.load() && !peer->failure_logged;
      peer->failure_logged = true;
    }
  }
  if (log) {
    Log("cannot open a direct connection to " + address + ": " + s.ToString() +
        "; steps and small tensors for it go through CAF until it can be reached");
  }
}

void LaneWriter::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_.exchange(true)) return;
    for (auto& [address, peer] : peers_) {
      if (peer.ready) shutdown(peer.ready->fd, SHUT_RDWR);
    }
  }
  // No connector starts once stopping_ is set; the running ones see it.
  for (auto& [address, peer] : peers_) {
    if (peer.connector.joinable()) peer.connector.join();
  }
  std::lock_guard<std::mutex> lock(mu_);
  peers_.clear();
}

}  // namespace af::net
