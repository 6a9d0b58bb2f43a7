// OpenSSL keeps state per thread (its error queue, the thread's random
// generator), made by the first HMAC or RAND_bytes a thread calls. Its
// own clean-up at thread exit rides on a thread-key destructor that does
// not run for every thread here, so LeakSanitizer finds that state of each
// finished data-plane thread at exit. Each such thread hands it back when
// its work is done.
#pragma once

#include <openssl/crypto.h>

namespace af::net {

inline void ReleaseThreadCryptoState() { OPENSSL_thread_stop(); }

}  // namespace af::net
