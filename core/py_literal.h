// A parser for the subset of Python literal syntax that .npy headers use:
// dicts, tuples, lists, strings, ints, True/False/None. It stands in for
// Python's ast.literal_eval, which is how numpy reads the header, so files
// written by other tools with other spacing or quoting still parse.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace af {

struct PyLiteral {
  enum class Kind { kNone, kBool, kInt, kString, kTuple, kList, kDict };
  Kind kind = Kind::kNone;
  bool boolean = false;
  int64_t integer = 0;
  std::string text;  // kString
  // kTuple and kList: the elements. kDict: keys and values alternating
  // (key 0, value 0, key 1, value 1, ...), in source order.
  std::vector<PyLiteral> items;

  // "dict", "tuple", "int" ... as Python names the type, for messages.
  std::string_view TypeName() const;
};

// Parses exactly one literal; only whitespace may surround it. Integers
// must fit int64 (a Python 2 'L' suffix is accepted). Nesting is limited to
// 32 levels so hostile input cannot exhaust the stack. INVALID_ARGUMENT
// names the offset and what was expected.
Status ParsePyLiteral(std::string_view source, PyLiteral* out);

}  // namespace af
