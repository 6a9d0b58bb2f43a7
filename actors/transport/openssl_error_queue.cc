// libcaf_openssl 0.17.6 asks SSL_get_error why an SSL_read/SSL_write/
// SSL_accept/SSL_connect returned early, but never empties the thread's
// OpenSSL error queue first, which OpenSSL requires. After one failed TLS
// connection (a stranger without the secret, a peer that died) the stale
// error sits in the multiplexer thread's queue, and the next would-block
// read on any healthy connection reads as fatal: CAF closes it. These
// definitions take the four calls' place in the process (the executable's
// symbols win over libssl's) and empty the queue before each, then call
// OpenSSL's own. SSL_accept also tells the connection guard
// (connection_guard.h) when a server's handshake finished, which is the
// only place a completed TLS handshake can be seen from outside CAF.
#include <dlfcn.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "actors/transport/connection_guard.h"
#include "actors/transport/openssl_error_queue.h"

namespace {

template <class Fn>
Fn Real(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" {

int SSL_read(SSL* ssl, void* buf, int num) {
  static const auto real = Real<int (*)(SSL*, void*, int)>("SSL_read");
  ERR_clear_error();
  return real(ssl, buf, num);
}

int SSL_write(SSL* ssl, const void* buf, int num) {
  static const auto real = Real<int (*)(SSL*, const void*, int)>("SSL_write");
  ERR_clear_error();
  return real(ssl, buf, num);
}

int SSL_accept(SSL* ssl) {
  static const auto real = Real<int (*)(SSL*)>("SSL_accept");
  ERR_clear_error();
  const int result = real(ssl);
  if (result == 1) af::actors::ConnectionHandshakeDone(SSL_get_fd(ssl));
  return result;
}

int SSL_connect(SSL* ssl) {
  static const auto real = Real<int (*)(SSL*)>("SSL_connect");
  ERR_clear_error();
  return real(ssl);
}

}  // extern "C"

namespace af::actors {

bool OpensslErrorQueueGuardLinked() { return true; }

}  // namespace af::actors
