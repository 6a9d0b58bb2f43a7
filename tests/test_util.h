// Substring checks shared by the tests: whether a string, or a status's
// message, contains a piece of text (case-sensitive, like
// std::string::find; an empty needle is in every haystack).
#pragma once

#include <string_view>

#include "core/status.h"

namespace af::testing {

// Whether `needle` occurs in `haystack`.
inline bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// Whether `needle` occurs in the message of `status`.
inline bool Contains(const Status& status, std::string_view needle) {
  return Contains(std::string_view(status.message()), needle);
}

// The same as Contains(status, needle), in the words of the tests that
// check what an error mentions.
inline bool Mentions(const Status& status, std::string_view needle) {
  return Contains(status, needle);
}

}  // namespace af::testing
