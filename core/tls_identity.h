// A process's TLS identity in a cluster, derived from the cluster secret:
// every holder of the secret derives the same certificate authority (an
// Ed25519 key from HMAC(secret, label), so the CA's private key is never
// written anywhere) and signs a fresh per-process key with it. Two
// processes then complete a mutual TLS handshake exactly when they hold the
// same secret, and CAF's connections (libcaf_openssl) are authenticated
// before a byte of BASP is parsed. No CAF here.
#pragma once

#include <string>

#include "core/status.h"

namespace af {

// PEM files of one process's identity, in a directory only the process's
// user can read, named for its pid; removed when the process exits
// normally, or by the next process that makes one once this one is gone.
struct TlsIdentityFiles {
  std::string directory;
  std::string ca_certificate;    // the cluster CA (what peers must chain to)
  std::string certificate;       // this process's certificate, then the CA's
  std::string private_key;       // this process's key (never changes)
};

// Makes the process's identity the one for `secret` (non-empty) and returns
// where its files are. The paths stay the same for the process's lifetime:
// a later call with another secret (a test process that plays several
// clusters) rewrites the certificates in place, atomically.
Status UseTlsIdentityFor(const std::string& secret, TlsIdentityFiles* files);

// The CA's subject for `secret` ("actorflow cluster 1a2b3c4d"): names a
// cluster in messages without revealing anything about its secret.
std::string ClusterCaName(const std::string& secret);

}  // namespace af
