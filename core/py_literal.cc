#include "core/py_literal.h"

#include <limits>

namespace af {

std::string_view PyLiteral::TypeName() const {
  switch (kind) {
    case Kind::kNone: return "NoneType";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kString: return "str";
    case Kind::kTuple: return "tuple";
    case Kind::kList: return "list";
    case Kind::kDict: return "dict";
  }
  return "?";
}

namespace {

constexpr int kMaxDepth = 32;

class LiteralParser {
 public:
  explicit LiteralParser(std::string_view src) : src_(src) {}

  Status ParseAll(PyLiteral* out) {
    AF_RETURN_IF_ERROR(ParseValue(0, out));
    SkipSpace();
    if (pos_ != src_.size()) return Error("expected the end of the literal");
    return Status::OK();
  }

 private:
  Status Error(std::string_view expected) const {
    std::string found = "the end of the text";
    if (pos_ < src_.size()) {
      const auto c = static_cast<unsigned char>(src_[pos_]);
      found = c >= 0x20 && c < 0x7f ? internal::StrCat("'", src_[pos_], "'")
                                    : internal::StrCat("byte ", static_cast<int>(c));
    }
    return errors::InvalidArgument("invalid Python literal at offset ", pos_, ": ", expected,
                                   ", found ", found);
  }

  void SkipSpace() {
    while (pos_ < src_.size()) {
      const char c = src_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') break;
      ++pos_;
    }
  }

  bool Consume(char c) {
    SkipSpace();
    if (pos_ < src_.size() && src_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  static bool IsIdentChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
  }

  bool ConsumeKeyword(std::string_view word) {
    if (src_.substr(pos_, word.size()) != word) return false;
    const size_t after = pos_ + word.size();
    if (after < src_.size() && IsIdentChar(src_[after])) return false;
    pos_ = after;
    return true;
  }

  Status ParseValue(int depth, PyLiteral* out) {
    if (depth > kMaxDepth)
      return errors::InvalidArgument("invalid Python literal: nested more than ", kMaxDepth,
                                     " levels deep");
    SkipSpace();
    if (pos_ >= src_.size()) return Error("expected a value");
    const char c = src_[pos_];
    if (c == '{') return ParseSequence(depth, '}', PyLiteral::Kind::kDict, out);
    if (c == '(') return ParseSequence(depth, ')', PyLiteral::Kind::kTuple, out);
    if (c == '[') return ParseSequence(depth, ']', PyLiteral::Kind::kList, out);
    if (c == '\'' || c == '"') return ParseString(out);
    if (c == '-' || c == '+' || (c >= '0' && c <= '9')) return ParseInt(out);
    *out = PyLiteral();
    if (ConsumeKeyword("True")) {
      out->kind = PyLiteral::Kind::kBool;
      out->boolean = true;
    } else if (ConsumeKeyword("False")) {
      out->kind = PyLiteral::Kind::kBool;
    } else if (!ConsumeKeyword("None")) {
      return Error("expected a value");
    }
    return Status::OK();
  }

  // Dicts, tuples and lists: comma separated, trailing comma allowed. A
  // parenthesized single value without a comma is that value, as in Python.
  Status ParseSequence(int depth, char close, PyLiteral::Kind kind, PyLiteral* out) {
    ++pos_;  // the opening bracket
    PyLiteral seq;
    seq.kind = kind;
    bool saw_comma = false;
    while (!Consume(close)) {
      if (!seq.items.empty() && !saw_comma)
        return Error(internal::StrCat("expected ',' or '", close, "'"));
      seq.items.emplace_back();
      AF_RETURN_IF_ERROR(ParseValue(depth + 1, &seq.items.back()));
      if (kind == PyLiteral::Kind::kDict) {
        if (!Consume(':')) return Error("expected ':' after a dict key");
        seq.items.emplace_back();
        AF_RETURN_IF_ERROR(ParseValue(depth + 1, &seq.items.back()));
      }
      saw_comma = Consume(',');
    }
    if (kind == PyLiteral::Kind::kTuple && seq.items.size() == 1 && !saw_comma) {
      PyLiteral inner = std::move(seq.items[0]);
      *out = std::move(inner);
      return Status::OK();
    }
    *out = std::move(seq);
    return Status::OK();
  }

  Status ParseString(PyLiteral* out) {
    const char quote = src_[pos_++];
    std::string text;
    while (true) {
      if (pos_ >= src_.size()) return Error("expected the closing quote of a string");
      const char c = src_[pos_++];
      if (c == quote) break;
      if (c == '\n') return Error("expected the closing quote before the line ends");
      if (c == '\\') {
        if (pos_ >= src_.size()) return Error("expected a character after '\\'");
        const char e = src_[pos_++];
        // The escapes a dtype descr could plausibly contain; others keep the
        // character, which is all the header needs.
        text.push_back(e == 'n' ? '\n' : e == 't' ? '\t' : e == '0' ? '\0' : e);
        continue;
      }
      text.push_back(c);
    }
    *out = PyLiteral();
    out->kind = PyLiteral::Kind::kString;
    out->text = std::move(text);
    return Status::OK();
  }

  Status ParseInt(PyLiteral* out) {
    bool negative = false;
    while (pos_ < src_.size() && (src_[pos_] == '-' || src_[pos_] == '+')) {
      if (src_[pos_] == '-') negative = !negative;
      ++pos_;
      SkipSpace();
    }
    const size_t start = pos_;
    uint64_t magnitude = 0;
    constexpr uint64_t kLimit = uint64_t{1} << 63;  // |INT64_MIN|
    while (pos_ < src_.size() && src_[pos_] >= '0' && src_[pos_] <= '9') {
      const auto digit = static_cast<uint64_t>(src_[pos_] - '0');
      if (magnitude > (kLimit - digit) / 10)
        return errors::InvalidArgument("invalid Python literal at offset ", start,
                                       ": integer does not fit in 64 bits");
      magnitude = magnitude * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) return Error("expected digits");
    if (pos_ < src_.size() && (src_[pos_] == 'L' || src_[pos_] == 'l')) ++pos_;
    if (pos_ < src_.size() && IsIdentChar(src_[pos_]))
      return Error("expected the end of an integer");
    if (!negative && magnitude == kLimit)
      return errors::InvalidArgument("invalid Python literal at offset ", start,
                                     ": integer does not fit in 64 bits");
    *out = PyLiteral();
    out->kind = PyLiteral::Kind::kInt;
    out->integer = negative ? static_cast<int64_t>(0 - magnitude)
                            : static_cast<int64_t>(magnitude);
    return Status::OK();
  }

  std::string_view src_;
  size_t pos_ = 0;
};

}  // namespace

Status ParsePyLiteral(std::string_view source, PyLiteral* out) {
  return LiteralParser(source).ParseAll(out);
}

}  // namespace af
