#include "core/json_value.h"

#include <charconv>
#include <cmath>

namespace af {

const JsonValue* JsonValue::Find(std::string_view key) const {
  if (kind != Kind::kObject) return nullptr;
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key) return &items[i];
  return nullptr;
}

bool JsonValue::GetInt64(int64_t* value) const {
  if (kind != Kind::kNumber) return false;
  // An integer spelling parses exactly; "1e2" or "3.0" goes through the double.
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  if (ec == std::errc() && ptr == end) return true;
  if (ec == std::errc::result_out_of_range) return false;
  constexpr double kTwo63 = 9223372036854775808.0;
  if (number != std::floor(number) || number < -kTwo63 || number >= kTwo63) return false;
  *value = static_cast<int64_t>(number);
  return true;
}

std::string_view JsonValue::TypeName() const {
  switch (kind) {
    case Kind::kNull: return "null";
    case Kind::kBool: return "boolean";
    case Kind::kNumber: return "number";
    case Kind::kString: return "string";
    case Kind::kArray: return "array";
    case Kind::kObject: return "object";
  }
  return "?";
}

namespace {

constexpr int kMaxDepth = 64;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Length of the UTF-8 sequence starting at s[i], or 0 when it is malformed,
// overlong, a surrogate or beyond U+10FFFF (RFC 3629's table).
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 2;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 3;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n >= s.size()) return 0;
  for (size_t k = 1; k <= n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return 0;
  }
  return n + 1;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

class JsonParser {
 public:
  explicit JsonParser(std::string_view src) : src_(src) {}

  Status ParseAll(JsonValue* out) {
    AF_RETURN_IF_ERROR(ParseValue(0, out));
    SkipSpace();
    if (pos_ != src_.size()) return Error("the end of the text");
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
    return errors::InvalidArgument("invalid JSON at offset ", pos_, ": expected ", expected,
                                   ", found ", found);
  }

  bool AtEnd() const { return pos_ >= src_.size(); }
  char Peek() const { return AtEnd() ? '\0' : src_[pos_]; }

  void SkipSpace() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n' || Peek() == '\r'))
      ++pos_;
  }

  bool Consume(char c) {
    SkipSpace();
    if (AtEnd() || Peek() != c) return false;
    ++pos_;
    return true;
  }

  Status ParseValue(int depth, JsonValue* out) {
    SkipSpace();
    *out = JsonValue();
    const char c = Peek();
    if (AtEnd()) return Error("a value");
    if (c == '{' || c == '[') {
      if (depth >= kMaxDepth)
        return errors::InvalidArgument("invalid JSON at offset ", pos_,
                                       ": arrays and objects nested more than ", kMaxDepth,
                                       " levels deep");
      return c == '{' ? ParseObject(depth + 1, out) : ParseArray(depth + 1, out);
    }
    if (c == '"') {
      out->kind = JsonValue::Kind::kString;
      return ParseString(&out->text);
    }
    if (c == '-' || IsDigit(c)) return ParseNumber(out);
    for (std::string_view word : {"true", "false", "null"}) {
      if (src_.substr(pos_, word.size()) != word) continue;
      pos_ += word.size();
      out->kind = word == "null" ? JsonValue::Kind::kNull : JsonValue::Kind::kBool;
      out->boolean = word == "true";
      return Status::OK();
    }
    return Error("a value");
  }

  Status ParseArray(int depth, JsonValue* out) {
    out->kind = JsonValue::Kind::kArray;
    ++pos_;
    if (Consume(']')) return Status::OK();
    do {
      AF_RETURN_IF_ERROR(ParseValue(depth, &out->items.emplace_back()));
    } while (Consume(','));
    return Consume(']') ? Status::OK() : Error("',' or ']'");
  }

  Status ParseObject(int depth, JsonValue* out) {
    out->kind = JsonValue::Kind::kObject;
    ++pos_;
    if (Consume('}')) return Status::OK();
    do {
      SkipSpace();
      if (AtEnd() || Peek() != '"') return Error("a string key");
      AF_RETURN_IF_ERROR(ParseString(&out->keys.emplace_back()));
      if (!Consume(':')) return Error("':'");
      AF_RETURN_IF_ERROR(ParseValue(depth, &out->items.emplace_back()));
    } while (Consume(','));
    return Consume('}') ? Status::OK() : Error("',' or '}'");
  }

  Status ParseHex4(uint32_t* unit) {
    *unit = 0;
    for (int i = 0; i < 4; ++i, ++pos_) {
      const char c = Peek();
      int digit;
      if (IsDigit(c)) digit = c - '0';
      else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
      else return Error("a hexadecimal digit");
      *unit = *unit * 16 + static_cast<uint32_t>(digit);
    }
    return Status::OK();
  }

  // At the 'u' of "\uXXXX". A high surrogate must be followed by "\u" and a
  // low one; together they name one code point above U+FFFF.
  Status ParseUnicodeEscape(std::string* out) {
    ++pos_;
    uint32_t cp;
    AF_RETURN_IF_ERROR(ParseHex4(&cp));
    if (cp >= 0xDC00 && cp <= 0xDFFF) {
      pos_ -= 4;
      return Error("a code point or a high surrogate, not a lone low surrogate");
    }
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (src_.substr(pos_, 2) != "\\u") return Error("a \\u escape of a low surrogate");
      pos_ += 2;
      uint32_t low;
      AF_RETURN_IF_ERROR(ParseHex4(&low));
      if (low < 0xDC00 || low > 0xDFFF) {
        pos_ -= 4;
        return Error("a low surrogate after a high one");
      }
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    AppendUtf8(cp, out);
    return Status::OK();
  }

  Status ParseString(std::string* out) {
    ++pos_;  // the opening quote
    while (true) {
      if (AtEnd()) return Error("'\"' closing the string");
      const auto c = static_cast<unsigned char>(src_[pos_]);
      if (c == '"') {
        ++pos_;
        return Status::OK();
      }
      if (c < 0x20) return Error("an escape instead of a control character");
      if (c >= 0x80) {
        const size_t n = Utf8SequenceLength(src_, pos_);
        if (n == 0) return Error("valid UTF-8");
        out->append(src_.substr(pos_, n));
        pos_ += n;
        continue;
      }
      if (c != '\\') {
        out->push_back(static_cast<char>(c));
        ++pos_;
        continue;
      }
      ++pos_;
      const char e = Peek();
      if (e == 'u') {
        AF_RETURN_IF_ERROR(ParseUnicodeEscape(out));
        continue;
      }
      static constexpr std::string_view kFrom = "\"\\/bfnrt", kTo = "\"\\/\b\f\n\r\t";
      const size_t k = AtEnd() ? std::string_view::npos : kFrom.find(e);
      if (k == std::string_view::npos)
        return Error("an escape: one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u");
      out->push_back(kTo[k]);
      ++pos_;
    }
  }

  Status ScanDigits() {
    if (!IsDigit(Peek())) return Error("a digit");
    while (IsDigit(Peek())) ++pos_;
    return Status::OK();
  }

  // RFC 8259's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  Status ParseNumber(JsonValue* out) {
    const size_t start = pos_;
    if (Peek() == '-') ++pos_;
    if (Peek() == '0') ++pos_;
    else AF_RETURN_IF_ERROR(ScanDigits());
    if (Peek() == '.') {
      ++pos_;
      AF_RETURN_IF_ERROR(ScanDigits());
    }
    if (Peek() == 'e' || Peek() == 'E') {
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      AF_RETURN_IF_ERROR(ScanDigits());
    }
    out->kind = JsonValue::Kind::kNumber;
    out->text = std::string(src_.substr(start, pos_ - start));
    const char* end = out->text.data() + out->text.size();
    if (std::from_chars(out->text.data(), end, out->number).ec != std::errc()) {
      pos_ = start;
      return Error("a number within the range of a double");
    }
    return Status::OK();
  }

  std::string_view src_;
  size_t pos_ = 0;
};

}  // namespace

Status ParseJson(std::string_view text, JsonValue* out) {
  JsonValue value;
  AF_RETURN_IF_ERROR(JsonParser(text).ParseAll(&value));
  *out = std::move(value);
  return Status::OK();
}

}  // namespace af
