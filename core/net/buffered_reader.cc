#include "core/net/buffered_reader.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/net/tcp_socket.h"

namespace af::net {

BufferedReader::BufferedReader(int fd) : fd_(fd), buffer_(new char[kCapacity]) {}

Status BufferedReader::Fill(size_t* got) {
  begin_ = end_ = 0;
  while (true) {
    const ssize_t n = recv(fd_, buffer_.get(), kCapacity, 0);
    if (n >= 0) {
      end_ = static_cast<size_t>(n);
      *got = end_;
      return Status::OK();
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      return errors::DeadlineExceeded("recv: the peer sent nothing in time");
    }
    return errors::Unavailable("recv: ", std::strerror(errno));
  }
}

Status BufferedReader::Read(void* out, size_t bytes) {
  bool closed = false;
  AF_RETURN_IF_ERROR(ReadOrClosed(out, bytes, "a frame", &closed));
  if (closed) return errors::Unavailable("connection closed by the peer");
  return Status::OK();
}

Status BufferedReader::ReadOrClosed(void* out, size_t bytes, std::string_view what, bool* closed) {
  char* dst = static_cast<char*>(out);
  size_t have = 0;
  while (have < bytes) {
    if (begin_ < end_) {
      const size_t n = std::min(bytes - have, end_ - begin_);
      std::memcpy(dst + have, buffer_.get() + begin_, n);
      begin_ += n;
      have += n;
      continue;
    }
    // A large remainder goes straight into its destination.
    if (bytes - have >= kCapacity / 2) {
      AF_RETURN_IF_ERROR(RecvAll(fd_, dst + have, bytes - have));
      return Status::OK();
    }
    size_t got = 0;
    AF_RETURN_IF_ERROR(Fill(&got));
    if (got == 0) {
      if (have == 0) {
        *closed = true;
        return Status::OK();
      }
      return errors::Unavailable("connection closed inside ", what);
    }
  }
  return Status::OK();
}

}  // namespace af::net
