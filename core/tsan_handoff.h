// Tells ThreadSanitizer about hand-offs it cannot see. Debian's CAF is not
// built with ThreadSanitizer, so a message enqueued by one thread and
// handled on another carries no happens-before edge for it: everything the
// sender wrote before sending then looks racy to whoever the handler passes
// it on to (a device pool thread, a kernel's callback). The sender marks a
// release on the receiving actor, the handler an acquire on itself. No-ops
// in other builds. (AF_TSAN, not __SANITIZE_THREAD__: the build undefines
// that one for protobuf's sake, see CMakeLists.txt.)
#pragma once

#if defined(AF_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

namespace af {

inline void TsanReleaseTo(const void* receiver) {
#if defined(AF_TSAN)
  __tsan_release(const_cast<void*>(receiver));
#else
  (void)receiver;
#endif
}

inline void TsanAcquireFrom(const void* receiver) {
#if defined(AF_TSAN)
  __tsan_acquire(const_cast<void*>(receiver));
#else
  (void)receiver;
#endif
}

}  // namespace af
