#include "tools/flags.h"

#include <algorithm>
#include <charconv>

namespace af::tools {

Status ParseFlags(const Args& args, const std::vector<std::string_view>& switches,
                  std::vector<Flag>* out) {
  out->clear();
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.rfind("--", 0) != 0)
      return errors::InvalidArgument("unexpected argument '", arg, "'");
    Flag flag;
    if (const size_t eq = arg.find('='); eq != std::string::npos) {
      flag.name = arg.substr(0, eq);
      flag.value = arg.substr(eq + 1);
    } else {
      flag.name = arg;
      const bool is_switch =
          std::find(switches.begin(), switches.end(), flag.name) != switches.end();
      if (!is_switch) {
        if (i + 1 >= args.size()) return errors::InvalidArgument(arg, " needs a value");
        flag.value = args[++i];
      }
    }
    out->push_back(std::move(flag));
  }
  return Status::OK();
}

bool ParseInt(std::string_view text, int min, int max, int* out) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
    return false;
  *out = value;
  return true;
}

bool ParseDouble(std::string_view text, double min, double max, double* out) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !(value >= min && value <= max))
    return false;
  *out = value;
  return true;
}

}  // namespace af::tools
