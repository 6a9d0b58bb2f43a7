#include "kernels/parsing/csv_record.h"

#include <charconv>
#include <cstdlib>
#include <string>
#include <type_traits>

namespace af::parsing {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// The text without surrounding spaces and without one leading '+' (which
// from_chars does not take); false if nothing numeric could remain.
bool Prepare(std::string_view* text) {
  while (!text->empty() && IsSpace(text->front())) text->remove_prefix(1);
  while (!text->empty() && IsSpace(text->back())) text->remove_suffix(1);
  if (!text->empty() && text->front() == '+') {
    text->remove_prefix(1);
    // "+-1" is not a number.
    if (!text->empty() && (text->front() == '-' || text->front() == '+')) return false;
  }
  return !text->empty();
}

template <typename Int>
bool ParseInt(std::string_view text, Int* value) {
  if (!Prepare(&text)) return false;
  Int v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 10);
  if (ec != std::errc() || end != text.data() + text.size()) return false;
  *value = v;
  return true;
}

// Parses in T directly: going through double would round twice.
template <typename Real>
bool ParseReal(std::string_view text, Real* value) {
  if (!Prepare(&text)) return false;
  Real v = 0;
  const auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
  if (end != text.data() + text.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    // from_chars refuses what does not fit; strtod on the same (already
    // validated) text gives the rounded value, +-inf or a tiny number.
    const std::string copy(text);
    if constexpr (std::is_same_v<Real, float>)
      v = std::strtof(copy.c_str(), nullptr);
    else
      v = std::strtod(copy.c_str(), nullptr);
  } else if (ec != std::errc()) {
    return false;
  }
  *value = v;
  return true;
}

}  // namespace

Status SplitCsvRecord(std::string_view record, const CsvOptions& options,
                      std::vector<std::string>* fields) {
  fields->clear();
  const bool all = options.select_cols.empty();
  const size_t n = record.size();
  const char delim = options.delim;
  int64_t column = 0;
  size_t selected = 0;  // the next entry of select_cols
  auto wanted = [&] {
    return all ||
           (selected < options.select_cols.size() && options.select_cols[selected] == column);
  };
  size_t pos = 0;
  while (pos < n) {
    if (record[pos] == '\n' || record[pos] == '\r') {
      ++pos;
      continue;
    }
    const bool keep = wanted();
    std::string field;
    if (options.use_quote_delim && record[pos] == '"') {
      ++pos;
      while (true) {
        if (pos >= n)
          return errors::InvalidArgument("quoted field ", column,
                                         " must end with a quote followed by '",
                                         std::string(1, delim), "' or the end of the record");
        const char c = record[pos];
        if (c != '"') {
          if (keep) field.push_back(c);
          ++pos;
        } else if (pos + 1 == n) {
          ++pos;
          break;
        } else if (record[pos + 1] == delim) {
          pos += 2;
          break;
        } else if (record[pos + 1] == '"') {
          if (keep) field.push_back('"');
          pos += 2;
        } else {
          return errors::InvalidArgument("a quote inside quoted field ", column,
                                         " must be escaped by another quote");
        }
      }
    } else {
      while (pos < n && record[pos] != delim) {
        const char c = record[pos];
        if ((options.use_quote_delim && c == '"') || c == '\n' || c == '\r')
          return errors::InvalidArgument("unquoted field ", column,
                                         " cannot contain quotes or line breaks");
        if (keep) field.push_back(c);
        ++pos;
      }
      ++pos;  // past the delimiter (or the end)
    }
    ++column;
    if (keep) {
      fields->push_back(std::move(field));
      ++selected;
      if (!all && selected == options.select_cols.size()) return Status::OK();
    }
  }
  if (n > 0 && record[n - 1] == delim && wanted()) fields->emplace_back();
  return Status::OK();
}

bool ParseCsvInt32(std::string_view text, int32_t* value) { return ParseInt(text, value); }
bool ParseCsvInt64(std::string_view text, int64_t* value) { return ParseInt(text, value); }

bool ParseCsvFloat(std::string_view text, float* value) { return ParseReal(text, value); }

bool ParseCsvDouble(std::string_view text, double* value) { return ParseReal(text, value); }

}  // namespace af::parsing
