#include "core/net/data_handshake.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "core/cluster_secret.h"
#include "core/net/sealed_stream.h"
#include "core/net/tcp_socket.h"

namespace af::net {
namespace {

constexpr uint32_t kHandshakeMagic = 0x48444641;  // "AFDH" on the wire
// 2: sealed records are AES-128-OCB (1 sealed them with AES-128-GCM).
constexpr uint16_t kHandshakeVersion = 2;
constexpr size_t kNonceBytes = 32;
constexpr size_t kProofBytes = 32;
constexpr size_t kHeadBytes = 8;  // magic, version, flags
constexpr size_t kHelloBytes = kHeadBytes + kNonceBytes;
constexpr size_t kChallengeBytes = kHeadBytes + kNonceBytes + kProofBytes;
constexpr uint16_t kFlagSecret = 1;  // hello: has one; challenge: requires one
constexpr uint16_t kFlagEncrypt = 2;  // hello: wants it; challenge: it is on
constexpr char kAdmitted = 1;
constexpr char kRefused = 0;

std::string Head(uint16_t flags) {
  std::string out(kHeadBytes, '\0');
  std::memcpy(out.data(), &kHandshakeMagic, 4);
  std::memcpy(out.data() + 4, &kHandshakeVersion, 2);
  std::memcpy(out.data() + 6, &flags, 2);
  return out;
}

// The flags of a received head; DATA_LOSS when it is not ours.
Status ParseHead(const std::string& data, uint16_t* flags) {
  uint32_t magic = 0;
  uint16_t version = 0;
  std::memcpy(&magic, data.data(), 4);
  std::memcpy(&version, data.data() + 4, 2);
  std::memcpy(flags, data.data() + 6, 2);
  if (magic != kHandshakeMagic) return errors::DataLoss("not an actorflow data-plane peer");
  if (version != kHandshakeVersion) {
    return errors::DataLoss("data-plane handshake version ", version, ", this process speaks ",
                            kHandshakeVersion);
  }
  return Status::OK();
}

std::string ListenerProof(const std::string& secret, std::string_view connector_nonce,
                          std::string_view listener_nonce) {
  return HmacSha256(secret, std::string("actorflow-data-listener").append(connector_nonce)
                                .append(listener_nonce));
}

std::string ConnectorProof(const std::string& secret, std::string_view listener_nonce,
                           std::string_view connector_nonce) {
  return HmacSha256(
      secret, std::string("actorflow-data").append(listener_nonce).append(connector_nonce));
}

std::string ConnectionKey(const std::string& secret, std::string_view connector_nonce,
                          std::string_view listener_nonce) {
  return HmacSha256(secret, std::string("actorflow-data-key").append(connector_nonce)
                                .append(listener_nonce))
      .substr(0, kSealedKeyBytes);
}

Status Receive(int fd, size_t bytes, std::string* out) {
  out->assign(bytes, '\0');
  return RecvAll(fd, out->data(), bytes);
}

}  // namespace

Status ConnectorHandshake(int fd, const std::string& secret, bool encrypt, std::string* key) {
  key->clear();
  std::string nonce;
  AF_RETURN_IF_ERROR(RandomBytes(kNonceBytes, &nonce));
  const uint16_t hello_flags =
      secret.empty() ? 0 : static_cast<uint16_t>(kFlagSecret | (encrypt ? kFlagEncrypt : 0));
  const std::string hello = Head(hello_flags) + nonce;
  AF_RETURN_IF_ERROR(SendAll(fd, hello.data(), hello.size()));
  std::string challenge;
  AF_RETURN_IF_ERROR(Receive(fd, kChallengeBytes, &challenge));
  uint16_t flags = 0;
  AF_RETURN_IF_ERROR(ParseHead(challenge, &flags));
  const bool required = (flags & kFlagSecret) != 0;
  if (required && secret.empty()) {
    return errors::Unauthenticated("the data plane requires the cluster secret, which this "
                                   "process lacks");
  }
  if (!required && !secret.empty()) {
    return errors::Unauthenticated("the data plane requires no cluster secret: it is not a "
                                   "member of this process's cluster");
  }
  const std::string_view listener_nonce(challenge.data() + kHeadBytes, kNonceBytes);
  std::string proof(kProofBytes, '\0');
  if (required) {
    const std::string_view listener_proof(challenge.data() + kHeadBytes + kNonceBytes,
                                          kProofBytes);
    if (!ConstantTimeEquals(listener_proof, ListenerProof(secret, nonce, listener_nonce))) {
      return errors::Unauthenticated("the data plane did not prove the cluster secret");
    }
    proof = ConnectorProof(secret, listener_nonce, nonce);
  }
  AF_RETURN_IF_ERROR(SendAll(fd, proof.data(), proof.size()));
  char verdict = kRefused;
  AF_RETURN_IF_ERROR(RecvAll(fd, &verdict, 1));
  if (verdict != kAdmitted) {
    return errors::Unauthenticated("the data plane refused this process's proof of the "
                                   "cluster secret");
  }
  if (required && (flags & kFlagEncrypt) != 0) *key = ConnectionKey(secret, nonce, listener_nonce);
  if (required && encrypt && key->empty()) {
    return errors::Unauthenticated("the data plane would not encrypt the connection");
  }
  return Status::OK();
}

Status ListenerHandshake(int fd, const std::string& secret, bool encrypt, std::string* key) {
  key->clear();
  std::string hello;
  AF_RETURN_IF_ERROR(Receive(fd, kHelloBytes, &hello));
  uint16_t flags = 0;
  AF_RETURN_IF_ERROR(ParseHead(hello, &flags));
  const std::string_view connector_nonce(hello.data() + kHeadBytes, kNonceBytes);
  std::string nonce;
  AF_RETURN_IF_ERROR(RandomBytes(kNonceBytes, &nonce));
  const bool required = !secret.empty();
  const std::string listener_proof =
      required ? ListenerProof(secret, connector_nonce, nonce) : std::string(kProofBytes, '\0');
  const bool sealed = required && (encrypt || (flags & kFlagEncrypt) != 0);
  const std::string challenge =
      Head(static_cast<uint16_t>((required ? kFlagSecret : 0) | (sealed ? kFlagEncrypt : 0))) +
      nonce + listener_proof;
  AF_RETURN_IF_ERROR(SendAll(fd, challenge.data(), challenge.size()));
  std::string proof;
  AF_RETURN_IF_ERROR(Receive(fd, kProofBytes, &proof));
  if (required && !ConstantTimeEquals(proof, ConnectorProof(secret, nonce, connector_nonce))) {
    (void)SendAll(fd, &kRefused, 1);
    return errors::Unauthenticated("wrong proof of the cluster secret");
  }
  if (sealed) *key = ConnectionKey(secret, connector_nonce, nonce);
  return SendAll(fd, &kAdmitted, 1);
}

bool WantEncryption(bool peer_on_loopback) {
  const char* mode = std::getenv("ACTORFLOW_DATA_PLANE_ENCRYPTION");
  const std::string_view m = mode ? mode : "auto";
  if (m == "always") return true;
  if (m == "never") return false;
  return !peer_on_loopback;
}

}  // namespace af::net
