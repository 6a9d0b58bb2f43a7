// Reads a plaintext data-plane connection through a small buffer: frames
// that arrive together (a RunGraph and its feed, a tensor and the reply
// behind it) cost one recv instead of two or three each. Large reads still
// go straight into their destination once the buffer is drained, so a big
// tensor is never copied. No CAF here.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "core/status.h"

namespace af::net {

class BufferedReader {
 public:
  explicit BufferedReader(int fd);

  // Exactly `bytes` into `out`: UNAVAILABLE when the peer closes or the
  // connection fails.
  Status Read(void* out, size_t bytes);
  // The same where the peer may end the connection cleanly instead:
  // `*closed` then, and OK, if no byte of `what` had arrived.
  Status ReadOrClosed(void* out, size_t bytes, std::string_view what, bool* closed);

 private:
  // One recv into the buffer (which is empty). 0 bytes: the peer closed.
  Status Fill(size_t* got);

  static constexpr size_t kCapacity = 64 * 1024;
  const int fd_;
  std::unique_ptr<char[]> buffer_;
  size_t begin_ = 0;
  size_t end_ = 0;
};

}  // namespace af::net
