// Encryption of a data-plane connection: AES-128-OCB records (RFC 7253)
// over the socket, keyed per connection by the handshake
// (core/net/data_handshake.h). OCB, not GCM: with the same AES instructions
// it seals 2-2.5x faster on these machines (10 vs 4.8 GB/s on one core), and
// on loopback the cipher, not the copy, sets the encrypted throughput.
//
//   record: ciphertext bytes u32, ciphertext, tag[16]
//   nonce:  4 zero bytes, then the record's index u64 (each direction of
//           each connection has its own key, so a nonce never repeats)
//
// A record holds at most kMaxRecordBytes, so that the sender encrypts from
// the source tensor into a buffer that stays in cache, and the receiver
// reads a record straight into the destination tensor and decrypts it
// there while it is still in cache: no copy beyond what TCP makes anyway.
// 1 MiB (one L2 cache here) gave 0.71-0.74x plaintext at 64 MiB on loopback,
// 256 KiB 0.66-0.68x and 64 KiB 0.60x (bench_transfer, one run each):
// fewer records, fewer system calls and cipher re-initialisations.
// A record that fails authentication, is too long or is cut off is
// DATA_LOSS; nothing of it reaches the caller. No CAF here.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

typedef struct evp_cipher_ctx_st EVP_CIPHER_CTX;

namespace af::net {

inline constexpr size_t kSealedKeyBytes = 16;
inline constexpr size_t kMaxRecordBytes = 1024 * 1024;

class SealingWriter {
 public:
  // `key`: kSealedKeyBytes bytes.
  SealingWriter(int fd, const std::string& key);
  ~SealingWriter();
  SealingWriter(const SealingWriter&) = delete;
  SealingWriter& operator=(const SealingWriter&) = delete;

  // Encrypts and writes every byte of `iov[0..count)`, in records.
  Status Send(const iovec* iov, int count);

 private:
  Status SendRecord(const char* data, size_t bytes);

  int fd_;
  EVP_CIPHER_CTX* ctx_;
  uint64_t next_record_ = 0;
  std::vector<char> buffer_;  // the record being written
};

class OpeningReader {
 public:
  OpeningReader(int fd, const std::string& key);
  ~OpeningReader();
  OpeningReader(const OpeningReader&) = delete;
  OpeningReader& operator=(const OpeningReader&) = delete;

  // Reads `bytes` of plaintext into `out`. With `closed` non-null, a
  // connection that ends cleanly before the first byte sets *closed and
  // returns OK (the peer is done between frames).
  Status Recv(void* out, size_t bytes, bool* closed = nullptr);

 private:
  // Reads the next record's length; *closed as for Recv.
  Status NextRecordLength(uint32_t* length, bool* closed);
  // Reads `length` ciphertext bytes and the tag into `dst`, decrypts there.
  Status OpenRecordInto(char* dst, uint32_t length);

  int fd_;
  EVP_CIPHER_CTX* ctx_;
  uint64_t next_record_ = 0;
  std::vector<char> buffer_;  // plaintext of a record only partly consumed
  size_t buffered_begin_ = 0, buffered_end_ = 0;
};

}  // namespace af::net
