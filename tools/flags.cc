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

bool ParseBytes(std::string_view text, int64_t* out) {
  int shift = 0;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      default: break;
    }
    if (shift > 0) text.remove_suffix(1);
  }
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1 ||
      value > (int64_t{1} << (62 - shift))) {
    return false;
  }
  *out = value << shift;
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
