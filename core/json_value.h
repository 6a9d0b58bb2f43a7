// A small strict JSON parser (RFC 8259). It exists so that TensorFlow's
// TF_CONFIG environment variable can be read without a JSON dependency; it is
// not meant for large documents.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace af {

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  // kString: the decoded text (UTF-8). kNumber: the number as spelled in the
  // source, so that integers beyond 2^53 can still be read exactly.
  std::string text;
  // kArray: the elements. kObject: the member values, keys[i] naming items[i],
  // in source order. Duplicate keys are kept; callers decide what they mean.
  std::vector<std::string> keys;
  std::vector<JsonValue> items;

  // The first member named `key`, or nullptr (also when not an object).
  const JsonValue* Find(std::string_view key) const;

  // True when this is a number with an integral value that fits int64.
  bool GetInt64(int64_t* value) const;

  // "object", "array", "string", "number", "boolean", "null": for messages.
  std::string_view TypeName() const;
};

// Parses exactly one JSON value; only whitespace may surround it. Strings
// must be valid UTF-8; \u escapes (surrogate pairs included) decode to UTF-8.
// Numbers outside double's range and nesting deeper than 64 arrays/objects
// are rejected, so hostile input cannot exhaust the stack. Errors are
// INVALID_ARGUMENT naming the byte offset and what was expected there.
Status ParseJson(std::string_view text, JsonValue* out);

}  // namespace af
