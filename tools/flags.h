// Command-line flags shared by the subcommands: "--name value",
// "--name=value", and value-less switches.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "tools/subcommands.h"

namespace af::tools {

struct Flag {
  std::string name;   // "--port"
  std::string value;  // empty for switches
};

// INVALID_ARGUMENT for a positional argument or a flag missing its value.
Status ParseFlags(const Args& args, const std::vector<std::string_view>& switches,
                  std::vector<Flag>* out);
// Whole-string integer within [min, max].
bool ParseInt(std::string_view text, int min, int max, int* out);
// A byte count: digits with an optional K, M, G or T suffix (powers of
// 1024), at least 1; false otherwise.
bool ParseBytes(std::string_view text, int64_t* out);
// A finite decimal number in [min, max] ("2.5"); false otherwise.
bool ParseDouble(std::string_view text, double min, double max, double* out);

}  // namespace af::tools
