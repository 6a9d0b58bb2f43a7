#include "core/net/sealed_stream.h"

#include <algorithm>
#include <cstring>

#include <openssl/evp.h>

#include "core/net/tcp_socket.h"

namespace af::net {
namespace {

constexpr size_t kTagBytes = 16;
constexpr size_t kNonceBytes = 12;

void Nonce(uint64_t record, unsigned char* nonce) {
  std::memset(nonce, 0, kNonceBytes);
  std::memcpy(nonce + 4, &record, 8);
}

EVP_CIPHER_CTX* NewContext(const std::string& key, bool encrypt) {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  if (ctx == nullptr) return nullptr;
  const auto* k = reinterpret_cast<const unsigned char*>(key.data());
  const int ok = encrypt ? EVP_EncryptInit_ex(ctx, EVP_aes_128_ocb(), nullptr, k, nullptr)
                         : EVP_DecryptInit_ex(ctx, EVP_aes_128_ocb(), nullptr, k, nullptr);
  // OCB's defaults are RFC 7253's: a 12-byte nonce and a 16-byte tag.
  if (ok != 1 || key.size() != kSealedKeyBytes) {
    EVP_CIPHER_CTX_free(ctx);
    return nullptr;
  }
  return ctx;
}

}  // namespace

SealingWriter::SealingWriter(int fd, const std::string& key)
    : fd_(fd), ctx_(NewContext(key, true)), buffer_(4 + kMaxRecordBytes + kTagBytes) {}

SealingWriter::~SealingWriter() { EVP_CIPHER_CTX_free(ctx_); }

Status SealingWriter::Send(const iovec* iov, int count) {
  if (ctx_ == nullptr) return errors::Internal("data plane: no cipher context");
  for (int i = 0; i < count; ++i) {
    const char* data = static_cast<const char*>(iov[i].iov_base);
    for (size_t left = iov[i].iov_len; left > 0;) {
      const size_t n = std::min(left, kMaxRecordBytes);
      AF_RETURN_IF_ERROR(SendRecord(data, n));
      data += n;
      left -= n;
    }
  }
  return Status::OK();
}

Status SealingWriter::SendRecord(const char* data, size_t bytes) {
  unsigned char nonce[kNonceBytes];
  Nonce(next_record_++, nonce);
  const uint32_t length = static_cast<uint32_t>(bytes);
  std::memcpy(buffer_.data(), &length, 4);
  auto* out = reinterpret_cast<unsigned char*>(buffer_.data() + 4);
  int written = 0, final_bytes = 0;
  if (EVP_EncryptInit_ex(ctx_, nullptr, nullptr, nullptr, nonce) != 1 ||
      EVP_EncryptUpdate(ctx_, out, &written, reinterpret_cast<const unsigned char*>(data),
                        static_cast<int>(bytes)) != 1 ||
      EVP_EncryptFinal_ex(ctx_, out + written, &final_bytes) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_AEAD_GET_TAG, kTagBytes, out + bytes) != 1) {
    return errors::Internal("data plane: AES-OCB encryption failed");
  }
  return SendAll(fd_, buffer_.data(), 4 + bytes + kTagBytes);
}

OpeningReader::OpeningReader(int fd, const std::string& key)
    : fd_(fd), ctx_(NewContext(key, false)), buffer_(kMaxRecordBytes + kTagBytes) {}

OpeningReader::~OpeningReader() { EVP_CIPHER_CTX_free(ctx_); }

Status OpeningReader::NextRecordLength(uint32_t* length, bool* closed) {
  char bytes[4];
  bool ended = false;
  AF_RETURN_IF_ERROR(RecvAllOrClosed(fd_, bytes, 4, "an encrypted record", &ended));
  if (ended) {
    // Only between frames, where the caller asked: inside one it is a cut.
    if (closed == nullptr) return errors::Unavailable("connection closed inside a frame");
    *closed = true;
    return Status::OK();
  }
  std::memcpy(length, bytes, 4);
  if (*length == 0 || *length > kMaxRecordBytes) {
    return errors::DataLoss("data plane: an encrypted record of ", *length,
                            " bytes (at most ", kMaxRecordBytes, ")");
  }
  return Status::OK();
}

Status OpeningReader::OpenRecordInto(char* dst, uint32_t length) {
  unsigned char tag[kTagBytes];
  AF_RETURN_IF_ERROR(RecvAll(fd_, dst, length));
  AF_RETURN_IF_ERROR(RecvAll(fd_, tag, kTagBytes));
  unsigned char nonce[kNonceBytes];
  Nonce(next_record_++, nonce);
  auto* text = reinterpret_cast<unsigned char*>(dst);
  int written = 0, final_bytes = 0;
  if (EVP_DecryptInit_ex(ctx_, nullptr, nullptr, nullptr, nonce) != 1 ||
      EVP_DecryptUpdate(ctx_, text, &written, text, static_cast<int>(length)) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_AEAD_SET_TAG, kTagBytes, tag) != 1 ||
      EVP_DecryptFinal_ex(ctx_, text + written, &final_bytes) != 1) {
    // The plaintext written so far is garbage: wipe it.
    std::memset(dst, 0, length);
    return errors::DataLoss("data plane: an encrypted record failed authentication (tampered "
                            "with, or another key)");
  }
  return Status::OK();
}

Status OpeningReader::Recv(void* out, size_t bytes, bool* closed) {
  if (ctx_ == nullptr) return errors::Internal("data plane: no cipher context");
  char* dst = static_cast<char*>(out);
  while (bytes > 0) {
    if (buffered_begin_ < buffered_end_) {
      const size_t n = std::min(bytes, buffered_end_ - buffered_begin_);
      std::memcpy(dst, buffer_.data() + buffered_begin_, n);
      buffered_begin_ += n;
      dst += n;
      bytes -= n;
      closed = nullptr;
      continue;
    }
    uint32_t length = 0;
    AF_RETURN_IF_ERROR(NextRecordLength(&length, closed));
    if (closed != nullptr && *closed) return Status::OK();
    closed = nullptr;
    if (length <= bytes) {
      // The common case for a payload: the record lands where it belongs.
      AF_RETURN_IF_ERROR(OpenRecordInto(dst, length));
      dst += length;
      bytes -= length;
    } else {
      AF_RETURN_IF_ERROR(OpenRecordInto(buffer_.data(), length));
      buffered_begin_ = 0;
      buffered_end_ = length;
    }
  }
  return Status::OK();
}

}  // namespace af::net
