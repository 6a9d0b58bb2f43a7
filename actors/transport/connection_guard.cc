// libcaf_io 0.17.6 accepts connections with libc's accept (policy::tcp::
// try_accept) and closes them with libc's close, and offers no hook in
// between: no cap on how many connections one address holds, no deadline
// for a TLS hello that never completes. An attacker once held ~20,000 idle
// connections, and with them every descriptor the server had. The
// definitions below take those calls' place in the process (the
// executable's symbols win over libc's; dlsym(RTLD_NEXT) reaches libc's),
// as openssl_error_queue.cc does for OpenSSL's.
//
// try_accept treats EAGAIN as "nothing to accept after all" and returns to
// its event loop (the epoll registration is level-triggered, so a queued
// connection behind the refused one is still seen): a refused connection
// is closed here and reported to CAF as EAGAIN.
#include "actors/transport/connection_guard.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>

#include "core/logging.h"

namespace af::actors {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kReportEvery = std::chrono::minutes(1);
constexpr auto kWatchEvery = std::chrono::milliseconds(250);
// Every this many watchdog rounds, each record is checked against the
// socket its descriptor holds now (see Guard::Sweep).
constexpr int kFullSweepRounds = 40;

// What an inactive guard costs every accept and close of the process.
std::atomic<bool> g_active{false};

template <class Fn>
Fn Real(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

int RealClose(int fd) {
  static const auto real = Real<int (*)(int)>("close");
  return real(fd);
}

int LocalPort(int listener) {
  sockaddr_storage local{};
  socklen_t size = sizeof local;
  if (getsockname(listener, reinterpret_cast<sockaddr*>(&local), &size) != 0) return -1;
  if (local.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
  if (local.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port);
  }
  return -1;
}

// What a cap counts against: an IPv4 address, or an IPv6 /64 (one host
// commonly holds a whole /64, so per address would cap nothing).
std::string SourceOf(int fd) {
  sockaddr_storage peer{};
  socklen_t size = sizeof peer;
  char text[INET6_ADDRSTRLEN] = {};
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &size) != 0) return "unknown";
  if (peer.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&peer)->sin_addr, text, sizeof text);
    return text;
  }
  if (peer.ss_family != AF_INET6) return "unknown";
  in6_addr address = reinterpret_cast<sockaddr_in6*>(&peer)->sin6_addr;
  if (IN6_IS_ADDR_V4MAPPED(&address)) {
    inet_ntop(AF_INET, address.s6_addr + 12, text, sizeof text);
    return text;
  }
  if (IN6_IS_ADDR_LOOPBACK(&address)) return "::1";
  std::memset(address.s6_addr + 8, 0, 8);
  inet_ntop(AF_INET6, &address, text, sizeof text);
  return std::string(text) + "/64";
}

struct Connection {
  std::string source;
  Clock::time_point accepted;
  // The socket itself: a descriptor closed past the close override (never
  // by CAF, but a process may) can be reused by any file, which the
  // watchdog must not shut down.
  dev_t device = 0;
  ino_t inode = 0;
  bool handshake_done = false;
  bool shut_down = false;
};

bool SameSocket(int fd, const Connection& c) {
  struct stat now {};
  return fstat(fd, &now) == 0 && S_ISSOCK(now.st_mode) && now.st_dev == c.device &&
         now.st_ino == c.inode;
}

// Events of one kind are reported at most once a minute (refusals per
// source, per server for the total cap; handshake timeouts per server),
// with how many went unreported in between: a sustained attack must not
// flood the log, or block the server on a log pipe nobody drains.
struct Reporting {
  int64_t unreported = 0;
  bool ever = false;
  Clock::time_point last{};

  // Counts `events` more; true when they get a line now, `*count` being
  // how many it covers.
  bool Due(Clock::time_point now, int64_t* count, int64_t events = 1) {
    unreported += events;
    if (ever && now - last < kReportEvery) return false;
    *count = unreported;
    unreported = 0;
    ever = true;
    last = now;
    return true;
  }
  bool Recent(Clock::time_point now) const { return ever && now - last < kReportEvery; }
};

struct Source {
  int64_t open = 0;
  Reporting reporting;
};

std::string RefusalLine(int64_t count, bool first, const std::string& source, uint16_t port,
                        const std::string& holder, int64_t held, const char* flag,
                        int64_t limit) {
  std::ostringstream line;
  line << "server: refused ";
  if (first) {
    line << "a connection";
  } else {
    line << count << " more connection" << (count == 1 ? "" : "s");
  }
  line << " from " << source << " to port " << port << ": " << holder << " holds " << held
       << " connections there, the limit (" << flag << " " << limit << ")";
  line << (first ? "; further refusals are reported once a minute at most"
                 : " since the last report");
  return line.str();
}

class Guard {
 public:
  // Never destroyed: close() runs until the process's last moment.
  static Guard& Get() {
    static Guard* const guard = new Guard;
    return *guard;
  }

  void Install(uint16_t port, ConnectionGuardOptions options) {
    std::lock_guard<std::mutex> control(control_mu_);
    StopLocked();
    options.max_connections = std::min(options.max_connections, MaxGuardedConnections());
    {
      std::lock_guard<std::mutex> lock(mu_);
      port_ = port;
      listener_ = -1;
      options_ = options;
      counts_ = ConnectionGuardCounts{};
      total_reporting_ = Reporting{};
      timeout_reporting_ = Reporting{};
    }
    // A forked child holds a copy of whatever lock a thread of ours held
    // at the fork; it passes every call through instead of taking it.
    static std::once_flag at_fork;
    std::call_once(at_fork, [] {
      pthread_atfork(nullptr, nullptr, [] { g_active.store(false, std::memory_order_relaxed); });
    });
    g_active.store(true, std::memory_order_release);
    {
      std::lock_guard<std::mutex> lock(stop_mu_);
      stopping_ = false;
    }
    watchdog_ = std::thread([this] { Watch(); });
  }

  void Stop() {
    std::lock_guard<std::mutex> control(control_mu_);
    StopLocked();
  }

  // `fd` was just accepted on `listener`: the descriptor to hand to the
  // caller, or -1 with errno EAGAIN after closing a refused one.
  int Admit(int listener, int fd) {
    std::string line;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (port_ == 0 || !Guarded(listener)) return fd;
      const Clock::time_point now = Clock::now();
      // A record under this number is stale (see Connection::inode).
      if (auto stale = connections_.find(fd); stale != connections_.end()) Forget(stale, now);
      std::string source = SourceOf(fd);
      auto known = sources_.find(source);
      int64_t count = 0;
      if (known != sources_.end() && known->second.open >= options_.max_connections_per_source) {
        ++counts_.refused_per_source;
        const bool first = !known->second.reporting.ever;
        if (known->second.reporting.Due(now, &count)) {
          line = RefusalLine(count, first, source, port_, "it", known->second.open,
                             "--max_connections_per_source", options_.max_connections_per_source);
        }
      } else if (static_cast<int64_t>(connections_.size()) >= options_.max_connections) {
        // No per-source state for these: a crowd of sources must not grow
        // the table the cap bounds.
        ++counts_.refused_total;
        const bool first = !total_reporting_.ever;
        if (total_reporting_.Due(now, &count)) {
          line = RefusalLine(count, first, source, port_, "the server",
                             static_cast<int64_t>(connections_.size()), "--max_connections",
                             options_.max_connections);
        }
      } else {
        Connection c;
        struct stat socket {};
        if (fstat(fd, &socket) == 0) {
          c.device = socket.st_dev;
          c.inode = socket.st_ino;
        }
        c.accepted = now;
        c.source = source;
        ++sources_[std::move(source)].open;
        connections_.emplace(fd, std::move(c));
        if (options_.handshake_timeout.count() > 0) by_accept_time_.emplace_back(fd, now);
        counts_.peak_open =
            std::max(counts_.peak_open, static_cast<int64_t>(connections_.size()));
        return fd;
      }
    }
    RealClose(fd);
    if (!line.empty()) AF_LOG(WARNING) << line;
    errno = EAGAIN;
    return -1;
  }

  int Close(int fd) {
    std::unique_lock<std::mutex> lock(mu_);
    if (fd == listener_) listener_ = -1;
    auto it = connections_.find(fd);
    if (it == connections_.end()) {
      lock.unlock();
      return RealClose(fd);
    }
    Forget(it, Clock::now());
    // Still holding the lock: the watchdog never sees this number reused
    // by the next accept before the record is gone.
    return RealClose(fd);
  }

  void HandshakeDone(int fd) {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = connections_.find(fd); it != connections_.end()) it->second.handshake_done = true;
  }

  ConnectionGuardCounts Counts() {
    std::lock_guard<std::mutex> lock(mu_);
    ConnectionGuardCounts counts = counts_;
    counts.open = static_cast<int64_t>(connections_.size());
    return counts;
  }

 private:
  using Connections = std::unordered_map<int, Connection>;

  void StopLocked() {
    g_active.store(false, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(stop_mu_);
      stopping_ = true;
    }
    stop_cv_.notify_all();
    if (watchdog_.joinable()) watchdog_.join();
    std::lock_guard<std::mutex> lock(mu_);
    port_ = 0;
    listener_ = -1;
    connections_.clear();
    sources_.clear();
    by_accept_time_.clear();
  }

  // mu_ held. Whether connections accepted on `listener` are guarded: the
  // first listener found bound to the port is remembered until closed, so
  // other listeners (the data plane's) cost one comparison after that.
  bool Guarded(int listener) {
    if (listener_ >= 0) return listener == listener_;
    if (LocalPort(listener) != port_) return false;
    listener_ = listener;
    return true;
  }

  // mu_ held.
  Connections::iterator Forget(Connections::iterator it, Clock::time_point now) {
    auto source = sources_.find(it->second.source);
    if (source != sources_.end() && --source->second.open <= 0 &&
        !source->second.reporting.Recent(now)) {
      sources_.erase(source);
    }
    return connections_.erase(it);
  }

  void Watch() {
    pthread_setname_np(pthread_self(), "af.conn.guard");
    int round = 0;
    std::unique_lock<std::mutex> stop_lock(stop_mu_);
    while (!stop_cv_.wait_for(stop_lock, kWatchEvery, [this] { return stopping_; })) {
      const std::string report = Sweep(++round % kFullSweepRounds == 0);
      if (!report.empty()) AF_LOG(WARNING) << report;
    }
  }

  // Shuts down the connections past the handshake deadline (never closes
  // them: CAF owns the descriptor, sees the end of the stream and closes
  // it itself); on a full sweep also drops records whose descriptor no
  // longer holds their socket and sources that hold nothing. Returns the
  // line to log, if any.
  std::string Sweep(bool full) {
    std::lock_guard<std::mutex> lock(mu_);
    const Clock::time_point now = Clock::now();
    const auto deadline = options_.handshake_timeout;
    int64_t shut = 0;
    // In accept order, so a round looks only at what fell due since the
    // last one; entries of connections closed meanwhile are skipped.
    while (!by_accept_time_.empty() && now - by_accept_time_.front().second >= deadline) {
      const auto [fd, accepted] = by_accept_time_.front();
      by_accept_time_.pop_front();
      auto it = connections_.find(fd);
      if (it == connections_.end() || it->second.accepted != accepted) continue;
      Connection& c = it->second;
      if (c.handshake_done || c.shut_down) continue;
      if (!SameSocket(fd, c)) {
        Forget(it, now);
        continue;
      }
      shutdown(fd, SHUT_RDWR);
      c.shut_down = true;
      ++shut;
    }
    if (full) {
      for (auto it = connections_.begin(); it != connections_.end();) {
        it = SameSocket(it->first, it->second) ? std::next(it) : Forget(it, now);
      }
      // Under a long deadline, closed and finished connections' entries
      // would pile up until due.
      std::erase_if(by_accept_time_, [this](const std::pair<int, Clock::time_point>& entry) {
        auto it = connections_.find(entry.first);
        return it == connections_.end() || it->second.accepted != entry.second ||
               it->second.handshake_done || it->second.shut_down;
      });
      for (auto it = sources_.begin(); it != sources_.end();) {
        const bool idle = it->second.open <= 0 && !it->second.reporting.Recent(now);
        it = idle ? sources_.erase(it) : std::next(it);
      }
    }
    if (shut == 0) return {};
    counts_.handshake_timeouts += shut;
    const bool first = !timeout_reporting_.ever;
    int64_t count = 0;
    if (!timeout_reporting_.Due(now, &count, shut)) return {};
    std::ostringstream line;
    const double seconds = static_cast<double>(deadline.count()) / 1000;
    line << "server: shut down " << count << (first ? "" : " more") << " connection"
         << (count == 1 ? "" : "s") << " to port " << port_
         << " that had not finished the TLS handshake within " << seconds
         << " s (--handshake_timeout_secs " << seconds << ")"
         << (first ? "; further ones are reported once a minute at most"
                   : " since the last report");
    return line.str();
  }

  std::mutex control_mu_;  // Install and Stop, one at a time

  std::mutex mu_;  // everything below up to the watchdog
  uint16_t port_ = 0;  // 0: not installed
  int listener_ = -1;
  ConnectionGuardOptions options_;
  Connections connections_;
  // (descriptor, accept time) of connections with a handshake deadline.
  std::deque<std::pair<int, Clock::time_point>> by_accept_time_;
  std::unordered_map<std::string, Source> sources_;
  Reporting total_reporting_;
  Reporting timeout_reporting_;
  ConnectionGuardCounts counts_;

  std::thread watchdog_;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
};

int Admitted(int listener, int fd) {
  if (fd < 0 || !g_active.load(std::memory_order_relaxed)) return fd;
  return Guard::Get().Admit(listener, fd);
}

}  // namespace

int64_t MaxGuardedConnections() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur > static_cast<rlim_t>(std::numeric_limits<int32_t>::max())) {
    return std::numeric_limits<int32_t>::max();
  }
  const auto descriptors = static_cast<int64_t>(limit.rlim_cur);
  return std::max(descriptors - std::max<int64_t>(256, descriptors / 4), descriptors / 2);
}

void GuardListeningPort(uint16_t port, const ConnectionGuardOptions& options) {
  Guard::Get().Install(port, options);
}

void StopConnectionGuard() { Guard::Get().Stop(); }

void ConnectionHandshakeDone(int fd) {
  if (fd < 0 || !g_active.load(std::memory_order_relaxed)) return;
  Guard::Get().HandshakeDone(fd);
}

ConnectionGuardCounts GetConnectionGuardCounts() { return Guard::Get().Counts(); }

}  // namespace af::actors

extern "C" {

int accept(int fd, sockaddr* address, socklen_t* size) {
  static const auto real = af::actors::Real<int (*)(int, sockaddr*, socklen_t*)>("accept");
  return af::actors::Admitted(fd, real(fd, address, size));
}

int accept4(int fd, sockaddr* address, socklen_t* size, int flags) {
  static const auto real =
      af::actors::Real<int (*)(int, sockaddr*, socklen_t*, int)>("accept4");
  return af::actors::Admitted(fd, real(fd, address, size, flags));
}

int close(int fd) {
  if (!af::actors::g_active.load(std::memory_order_relaxed)) return af::actors::RealClose(fd);
  return af::actors::Guard::Get().Close(fd);
}

}  // extern "C"
