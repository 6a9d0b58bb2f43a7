#include "core/net/tensor_receiver.h"

#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "core/allocator.h"
#include "core/cluster_secret.h"
#include "core/logging.h"
#include "core/net/buffered_reader.h"
#include "core/net/data_handshake.h"
#include "core/net/lane_message.h"
#include "core/net/sealed_stream.h"
#include "core/net/tcp_socket.h"
#include "core/net/tensor_frame.h"
#include "core/net/peer_traffic.h"
#include "core/net/transfer_counters.h"
#include "core/net/thread_crypto_state.h"

namespace af::net {
namespace {

// Each connection holds a thread; peers keep a few each, so this is far
// above a real cluster's need and bounds what a flood of connects costs.
constexpr size_t kMaxConnections = 512;
// Refused or broken connections are logged one line each, up to this many
// (a scanner must not fill the log).
constexpr int kMaxRefusalLines = 1000;
// An idle sender holds no thread of ours hostage: see ConfigureDataSocket.
constexpr auto kSendTimeout = std::chrono::seconds(60);

}  // namespace

Status TensorReceiver::Start(const std::string& host, std::string secret, Handlers handlers,
                             std::unique_ptr<TensorReceiver>* out) {
  if (secret.empty() && !IsLoopbackHost(host)) {
    return errors::FailedPrecondition("data plane: refusing to listen on ", host,
                                      " without a cluster secret");
  }
  int fd = -1;
  std::string bound;
  AF_RETURN_IF_ERROR(ListenTcp(host, 128, &fd, &bound));
  out->reset(new TensorReceiver(fd, std::move(bound), std::move(secret), std::move(handlers)));
  return Status::OK();
}

TensorReceiver::TensorReceiver(int listen_fd, std::string address, std::string secret,
                               Handlers handlers)
    : listen_fd_(listen_fd),
      address_(std::move(address)),
      secret_(std::move(secret)),
      handlers_(std::move(handlers)),
      max_tensor_bytes_(MaxReceivedTensorBytes()) {
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

TensorReceiver::~TensorReceiver() { Stop(); }

void TensorReceiver::Stop() {
  if (stopping_.exchange(true)) return;
  // shutdown() wakes the accept and every blocked recv; the descriptors
  // stay open until their threads are gone, so no number is reused early.
  shutdown(listen_fd_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  close(listen_fd_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (Connection& c : connections_) {
      if (c.fd >= 0) shutdown(c.fd, SHUT_RDWR);
    }
  }
  // Only readers touch the list now, and only their own entry's fields.
  for (Connection& c : connections_) {
    if (c.reader.joinable()) c.reader.join();
  }
  connections_.clear();
}

void TensorReceiver::Log(const std::string& line) const {
  if (handlers_.log) {
    handlers_.log(line);
  } else {
    AF_LOG(WARNING) << "data plane: " << line;
  }
}

void TensorReceiver::Reap() {
  std::list<Connection> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = connections_.begin(); it != connections_.end();) {
      auto next = std::next(it);
      if (it->done.load()) finished.splice(finished.end(), connections_, it);
      it = next;
    }
  }
  for (Connection& c : finished) c.reader.join();
}

void TensorReceiver::AcceptLoop() {
  pthread_setname_np(pthread_self(), "af.data.accept");
  while (!stopping_.load()) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stopping_.load()) break;
      // Out of descriptors: wait for some to close rather than spin.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      continue;
    }
    Reap();
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_.load() || connections_.size() >= kMaxConnections) {
      close(fd);
      continue;
    }
    Connection& c = connections_.emplace_back();
    c.fd = fd;
    c.reader = std::thread([this, &c] {
      ReadLoop(&c);
      ReleaseThreadCryptoState();
    });
  }
}

void TensorReceiver::ReadLoop(Connection* connection) {
  pthread_setname_np(pthread_self(), "af.data.recv");
  const int fd = connection->fd;
  const std::string peer = PeerName(fd);
  std::string peer_host = peer;
  uint16_t peer_port = 0;
  (void)SplitHostPort(peer, &peer_host, &peer_port);
  metrics::Counter* const from_peer = BytesReceivedFrom(peer_host);
  ConfigureDataSocket(fd, kSendTimeout);
  // A peer that connects and says nothing must not hold this thread.
  SetReceiveTimeout(fd, kHandshakeTimeout);
  std::string key;
  Status s = ListenerHandshake(fd, secret_, WantEncryption(PeerIsLoopback(fd)), &key);
  bool logged = false;
  if (!s.ok() && !stopping_.load() && refusals_logged_.fetch_add(1) < kMaxRefusalLines) {
    Log("refused a connection from " + peer + ": " + s.ToString());
    logged = true;
  }
  if (s.ok()) {
    SetReceiveTimeout(fd, std::chrono::milliseconds(0));  // idle connections are normal
    std::string scratch;
    bool closed = false;
    std::unique_ptr<OpeningReader> sealed;
    if (!key.empty()) sealed = std::make_unique<OpeningReader>(fd, key);
    BufferedReader plain(fd);
    while (s.ok() && !closed && !stopping_.load()) {
      s = ReadFrame(sealed ? nullptr : &plain, sealed.get(), &scratch, &closed, from_peer);
    }
  }
  if (!s.ok() && !logged && !stopping_.load() &&
      refusals_logged_.fetch_add(1) < kMaxRefusalLines) {
    Log("closed the connection from " + peer + ": " + s.ToString());
  }
  std::lock_guard<std::mutex> lock(mu_);
  close(fd);
  connection->fd = -1;
  connection->done.store(true);
}

Status TensorReceiver::ReadFrame(BufferedReader* plain, OpeningReader* sealed,
                                 std::string* scratch, bool* closed,
                                 metrics::Counter* from_peer) {
  auto read = [&](void* out, size_t bytes) {
    return sealed ? sealed->Recv(out, bytes) : plain->Read(out, bytes);
  };
  char prefix_bytes[kFramePrefixBytes];
  // A close between frames: the sender is done with us.
  AF_RETURN_IF_ERROR(sealed ? sealed->Recv(prefix_bytes, kFramePrefixBytes, closed)
                            : plain->ReadOrClosed(prefix_bytes, kFramePrefixBytes,
                                                  "a frame header", closed));
  if (*closed) return Status::OK();
  if (FrameMagicOf(prefix_bytes) == kLaneMagic && handlers_.message) {
    LanePrefix lane;
    AF_RETURN_IF_ERROR(ParseLanePrefix(prefix_bytes, &lane));
    std::string body(lane.body_bytes, '\0');
    AF_RETURN_IF_ERROR(read(body.data(), body.size()));
    handlers_.message(lane, std::move(body));
    return Status::OK();
  }
  FramePrefix prefix;
  AF_RETURN_IF_ERROR(ParseFramePrefix(prefix_bytes, max_tensor_bytes_, &prefix));
  scratch->resize(prefix.rest_bytes());
  AF_RETURN_IF_ERROR(read(scratch->data(), scratch->size()));
  TensorShape shape;
  std::string key;
  AF_RETURN_IF_ERROR(ParseFrameRest(prefix, *scratch, &shape, &key));
  Tensor value;
  if (Status a = Tensor::Allocate(GetCpuAllocator(), prefix.dtype, shape, &value); !a.ok()) {
    // Read the bytes anyway: the connection stays in step, and the step
    // waiting for this tensor learns why it will not come.
    std::vector<char> sink(std::min<uint64_t>(prefix.payload_bytes, uint64_t{1} << 20));
    for (uint64_t left = prefix.payload_bytes; left > 0;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(left, sink.size()));
      AF_RETURN_IF_ERROR(read(sink.data(), n));
      left -= n;
    }
    if (handlers_.failed) {
      handlers_.failed(prefix.step_id, key,
                       errors::ResourceExhausted("data plane: cannot allocate ",
                                                 prefix.payload_bytes, " bytes for tensor '",
                                                 key, "': ", a.message()));
    }
    return Status::OK();
  }
  AF_RETURN_IF_ERROR(read(value.raw_data(), prefix.payload_bytes));
  TransferCounters& counters = TransferCounters::Global();
  counters.tensors_received.fetch_add(1, std::memory_order_relaxed);
  counters.bytes_received.fetch_add(prefix.payload_bytes, std::memory_order_relaxed);
  from_peer->Add(prefix.payload_bytes);
  if (handlers_.deliver) handlers_.deliver(prefix.step_id, std::move(key), std::move(value));
  return Status::OK();
}

}  // namespace af::net
