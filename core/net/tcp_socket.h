// Plain blocking TCP for the tensor data plane (core/net/tensor_sender.h,
// tensor_receiver.h): listen, connect with a deadline, and move whole
// buffers. Every call that can block has a way out: a receive timeout, a
// stop flag polled while connecting, or shutdown() of the socket from
// another thread (which wakes a blocked send or recv). No CAF here.
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace af::net {

// "host:port" split at the last ':' ("[v6]:port" loses its brackets).
// False when there is no port or it is not a number in 1..65535.
bool SplitHostPort(std::string_view address, std::string* host, uint16_t* port);
// The reverse; an IPv6 host gets brackets.
std::string JoinHostPort(std::string_view host, uint16_t port);
// "0.0.0.0", "::", "" and "*": a listener there serves every interface,
// so the address is no place to connect to.
bool IsWildcardHost(std::string_view host);

// A listening socket on `host` (a name or a numeric address) and an
// ephemeral port. `*bound` gets the numeric "host:port" it is bound to.
Status ListenTcp(const std::string& host, int backlog, int* fd, std::string* bound);
// The same on `port` (0: an ephemeral one), with SO_REUSEADDR so that a
// restarted server gets its fixed port back at once.
Status ListenTcpOnPort(const std::string& host, uint16_t port, int backlog, int* fd,
                       std::string* bound);

// Connects to "host:port" within `timeout`, giving up early once `*stop`
// is set (checked every few milliseconds). The socket is blocking after.
Status ConnectTcp(const std::string& address, std::chrono::milliseconds timeout,
                  const std::atomic<bool>& stop, int* fd);

// TCP_NODELAY (a frame's header must not wait for an ACK) and a send
// timeout, so that a peer that stops reading frees the sender eventually.
void ConfigureDataSocket(int fd, std::chrono::milliseconds send_timeout);
// Bounds each later recv (0: no bound); a timed-out read is DEADLINE_EXCEEDED.
void SetReceiveTimeout(int fd, std::chrono::milliseconds timeout);

// Writes every byte of `iov[0..count)` (which it advances; no SIGPIPE).
// UNAVAILABLE naming the errno when the connection fails.
Status SendAll(int fd, iovec* iov, int count);
Status SendAll(int fd, const void* data, size_t bytes);
// Reads exactly `bytes` into `data`. UNAVAILABLE when the peer closes or
// the connection fails, DEADLINE_EXCEEDED on a receive timeout.
Status RecvAll(int fd, void* data, size_t bytes);
// The same where the peer may end the connection cleanly instead: then
// `*closed` is set and the result is OK, if no byte of `what` (named in the
// error of a connection closed partway) had arrived.
Status RecvAllOrClosed(int fd, void* data, size_t bytes, std::string_view what, bool* closed);

// The numeric address of this host that the kernel would use to reach
// `host` (a UDP connect, which sends nothing); "127.0.0.1" when it cannot
// tell.
std::string LocalAddressToward(const std::string& host);

// The data plane's connecting side: loopback and LAN connects take
// microseconds to milliseconds, and an address that drops SYNs must not
// hold anyone for long; a receiver that stops reading for kDataSendTimeout
// is treated as gone.
inline constexpr std::chrono::seconds kDataConnectTimeout{3};
inline constexpr std::chrono::seconds kDataSendTimeout{60};
// How long to send a peer's transfers another way after `failures`
// connects to it failed in a row: 5 s, doubling up to 5 minutes.
std::chrono::steady_clock::duration ConnectBackoff(int failures);
// Whether the other end closed or reset `fd`, for a connection whose peer
// never writes after the handshake (anything readable means it did).
// Never blocks.
bool PeerHasClosed(int fd);

// "ip:port" of the socket's peer, for log lines.
std::string PeerName(int fd);
// Whether the other end of `fd` is a loopback address (127.0.0.0/8, ::1).
bool PeerIsLoopback(int fd);

}  // namespace af::net
