// The first bytes of every data-plane connection: a version check and,
// when the listener holds a cluster secret, a mutual proof of it (HMAC-
// SHA256 over fresh nonces, as the CAF handshake of actors/transport/peer_auth.h, with
// labels of its own so that no proof of one is valid in the other):
//
//   connector -> listener  hello:     magic u32 'AFDH', version u16,
//                                     flags u16 (1: has a secret), nonce_c[32]
//   listener -> connector  challenge: magic, version, flags (1: required),
//                                     nonce_l[32], proof_l[32] =
//                   HMAC(secret, "actorflow-data-listener" | nonce_c | nonce_l)
//   connector -> listener  proof:     proof_c[32] =
//                   HMAC(secret, "actorflow-data" | nonce_l | nonce_c)
//   listener -> connector  verdict:   1 byte, 1 admitted, 0 refused
//
// Without a secret on the listener the proofs are zeros and ignored; such a
// listener serves loopback only. With a secret, flag 2 asks for encryption
// (hello: the connector wants it; challenge: the listener's decision, set
// if either side wants it), and the frames then travel sealed
// (core/net/sealed_stream.h) under
//   key = the first 16 bytes of HMAC(secret, "actorflow-data-key" | nonce_c | nonce_l). A connector that holds a secret refuses a
// listener that requires none (its tensors would go to a non-member), as
// clients refuse servers without a secret. No CAF here.
#pragma once

#include <chrono>
#include <string>

#include "core/status.h"

namespace af::net {

// How long either side waits for the other's handshake bytes.
inline constexpr std::chrono::milliseconds kHandshakeTimeout{10000};

// The connector's side over the connected `fd`. UNAUTHENTICATED when the
// listener refused the proof or failed its own; UNAVAILABLE when the
// connection failed; DATA_LOSS when the listener is no data plane.
// `encrypt`: ask for encryption; `*key` gets the connection's key when the
// two agreed on it, and is cleared otherwise (plaintext).
Status ConnectorHandshake(int fd, const std::string& secret, bool encrypt, std::string* key);

// The listener's side over the accepted `fd`. UNAUTHENTICATED when the
// connector's proof is wrong or missing (the refusal was sent); other
// errors for a connection that is not a data-plane peer.
Status ListenerHandshake(int fd, const std::string& secret, bool encrypt, std::string* key);

// Whether a data-plane connection with a secret should be encrypted:
// ACTORFLOW_DATA_PLANE_ENCRYPTION=always, never (the operator's explicit
// choice of plaintext), or auto (the default: unless the other end is on
// loopback, where nothing crosses a wire).
bool WantEncryption(bool peer_on_loopback);

}  // namespace af::net
