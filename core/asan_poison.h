// Marks memory that tensor pools keep as unusable for AddressSanitizer, so
// that a kernel reading past its buffer or a use after free is still
// caught although the block never went back to malloc. No-ops otherwise.
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
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

}  // namespace af
