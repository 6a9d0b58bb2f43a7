// The cluster secret: what a process proves it knows before a server of the
// cluster lets it in (actors/transport/peer_auth.h runs the handshake). The secret
// lives in a file only its owner can read, as ssh keys do; the proofs are
// HMAC-SHA256 over fresh random nonces, so the secret itself never crosses
// the network. No CAF here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/status.h"

namespace af {

// Where the secret file is looked up when no --secret_file is given.
inline constexpr const char* kSecretFileEnv = "ACTORFLOW_SECRET_FILE";
// Shorter secrets are refused: they could be guessed offline from one
// recorded handshake.
inline constexpr size_t kMinSecretBytes = 16;

// Reads the secret from `path`, without its trailing whitespace. INVALID_ARGUMENT
// if the file is readable or writable by group or others, or the secret is
// shorter than kMinSecretBytes; NOT_FOUND if it cannot be read.
Status ReadSecretFile(const std::string& path, std::string* secret);

// The secret of `path`, or of the file ACTORFLOW_SECRET_FILE names when
// `path` is empty; an empty secret (and OK) when neither is given.
Status LoadClusterSecret(const std::string& path, std::string* secret);

// Creates `path` (mode 0600, never overwriting: ALREADY_EXISTS) holding a
// new random secret of 64 hex characters and a newline.
Status WriteNewSecretFile(const std::string& path);

// HMAC-SHA256 of `data` under `key`: 32 raw bytes.
std::string HmacSha256(std::string_view key, std::string_view data);

// `n` bytes from OpenSSL's CSPRNG (INTERNAL if it has no entropy).
Status RandomBytes(size_t n, std::string* out);

// Compares in time independent of where the inputs differ, so that a
// peer cannot find a valid proof byte by byte by timing the answers.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// 127.0.0.0/8, ::1 and "localhost": a listener there is unreachable from
// other hosts, the only place a server may run without a secret.
bool IsLoopbackHost(std::string_view host);

}  // namespace af
