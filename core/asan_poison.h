// Marks memory that tensor pools keep as unusable for AddressSanitizer, so
// that a kernel reading past its buffer or a use after free is still
// caught although the block never went back to malloc; and shows the pools'
// mappings to LeakSanitizer. No-ops otherwise.
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/lsan_interface.h>
#endif

namespace af {

inline void PoisonMemory(const void* p, size_t bytes) {
#if defined(__SANITIZE_ADDRESS__)
  ASAN_POISON_MEMORY_REGION(p, bytes);
#else
  (void)p;
  (void)bytes;
#endif
}

inline void UnpoisonMemory(const void* p, size_t bytes) {
#if defined(__SANITIZE_ADDRESS__)
  ASAN_UNPOISON_MEMORY_REGION(p, bytes);
#else
  (void)p;
  (void)bytes;
#endif
}

// LeakSanitizer scans the heap, stacks and globals for pointers, not memory
// a pool mapped itself: the characters of a string whose std::string sits
// in a pooled tensor (a variable alive at exit) would be reported as
// leaked. A mapping registered here is scanned like the heap.
inline void RegisterLeakRoot(const void* p, size_t bytes) {
#if defined(__SANITIZE_ADDRESS__)
  __lsan_register_root_region(p, bytes);
#else
  (void)p;
  (void)bytes;
#endif
}

// Before the mapping goes back to the kernel.
inline void UnregisterLeakRoot(const void* p, size_t bytes) {
#if defined(__SANITIZE_ADDRESS__)
  __lsan_unregister_root_region(p, bytes);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace af
