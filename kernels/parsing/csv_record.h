// CsvRecord: splits one CSV record into fields the way TensorFlow's
// DecodeCSV does, and converts a field's text to a number.
//
// Splitting (TensorFlow's rules, RFC 4180 with its quirks):
//  - fields are separated by one delimiter character; a record ending in the
//    delimiter has an empty last field; an empty record has no fields;
//  - with quoting on, a field that starts with '"' runs to a '"' followed by
//    the delimiter or the end of the record, and "" inside it is one quote;
//    a lone quote inside is an error, as is a quote inside an unquoted field;
//  - '\r' and '\n' are skipped where a field starts and are an error inside
//    an unquoted field;
//  - with select_cols, only those columns are kept and splitting stops after
//    the last one (later columns are not even checked).
// Errors are INVALID_ARGUMENT; the caller adds which record.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace af::parsing {

struct CsvOptions {
  char delim = ',';
  bool use_quote_delim = true;
  std::vector<int64_t> select_cols;  // strictly increasing, >= 0; empty: all
};

// Splits `record`, appending the (selected) fields to `fields` (cleared first).
Status SplitCsvRecord(std::string_view record, const CsvOptions& options,
                      std::vector<std::string>* fields);

// Parse a whole field as a number: surrounding spaces and a leading '+' are
// allowed; nothing else may follow. Floats also take inf, infinity and nan
// (any case); an out-of-range float becomes +-inf or rounds to 0. Returns
// false when the text is not such a number (or an integer overflows).
bool ParseCsvInt32(std::string_view text, int32_t* value);
bool ParseCsvInt64(std::string_view text, int64_t* value);
bool ParseCsvFloat(std::string_view text, float* value);
bool ParseCsvDouble(std::string_view text, double* value);

}  // namespace af::parsing
