// numpy's array str(), for the dtypes a signature returns.
#include "tools/numpy_print.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/types.h"

namespace af::tools {
namespace {

constexpr int64_t kThreshold = 1000;  // numpy's print threshold
constexpr int64_t kEdgeItems = 3;
constexpr size_t kLineWidth = 75;

double ValueAsDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_FLOAT:
      return t.data<float>()[i];
    case DT_DOUBLE:
      return t.data<double>()[i];
    default:
      return 0;
  }
}

bool IsFloat(DataType d) { return d == DT_FLOAT || d == DT_DOUBLE; }

// The shortest decimal that reads back as the same value of the tensor's
// precision (numpy uses Dragon4 shortest; %.*g with growing precision finds
// the same digits).
std::string Shortest(double v, bool single) {
  char buf[64];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    const double back = std::strtod(buf, nullptr);
    if (single ? static_cast<float>(back) == static_cast<float>(v) : back == v) break;
  }
  return buf;
}

// Python's repr of a float scalar ("3.0", "0.1", "1e-05", "inf").
std::string ScalarRepr(double v, bool single) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::string s = Shortest(v, single);
  const size_t e = s.find('e');
  if (e != std::string::npos) {
    // "1e-05": C gives "1e-05" already; Python writes at least two
    // exponent digits, as C does.
    return s;
  }
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

struct FloatFormat {
  bool scientific = false;
  int fraction_digits = 0;  // positional: digits after '.' (max over values)
  size_t int_width = 0;     // positional: width before '.'
  int exp_digits = 0;       // scientific: mantissa fraction digits
};

// Positional digits of |v| with at most 8 fractional digits, trailing
// zeros removed: {"3", ""} for 3.0, {"2", "5"} for 2.5.
std::pair<std::string, std::string> Positional(double v, bool single) {
  char buf[512];
  // numpy rounds to the shortest unique repr first, then to 8 digits.
  const double shortest = std::strtod(Shortest(v, single).c_str(), nullptr);
  std::snprintf(buf, sizeof buf, "%.8f", shortest);
  std::string s = buf;
  const size_t dot = s.find('.');
  std::string frac = s.substr(dot + 1);
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return {s.substr(0, dot), frac};
}

std::string FormatFloat(double v, bool single, const FloatFormat& f) {
  if (std::isnan(v) || std::isinf(v)) {
    const std::string s = std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf");
    const size_t width = f.scientific ? 0 : f.int_width + 1 + f.fraction_digits;
    return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
  }
  if (f.scientific) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", f.exp_digits, v);
    return buf;
  }
  auto [ip, frac] = Positional(v, single);
  std::string s =
      std::string(f.int_width > ip.size() ? f.int_width - ip.size() : 0, ' ') + ip + "." + frac;
  s += std::string(static_cast<size_t>(f.fraction_digits) - frac.size(), ' ');
  return s;
}

FloatFormat ChooseFloatFormat(const Tensor& t, const std::vector<int64_t>& shown) {
  FloatFormat f;
  const bool single = t.dtype() == DT_FLOAT;
  double max_abs = 0, min_abs = INFINITY;
  for (int64_t i : shown) {
    const double v = ValueAsDouble(t, i);
    if (!std::isfinite(v)) continue;
    const double a = std::fabs(v);
    max_abs = std::max(max_abs, a);
    if (a != 0) min_abs = std::min(min_abs, a);
  }
  f.scientific =
      max_abs >= 1e8 || (min_abs < 1e-4) || (min_abs != INFINITY && max_abs / min_abs > 1e3);
  if (min_abs == INFINITY) f.scientific = max_abs >= 1e8;
  for (int64_t i : shown) {
    const double v = ValueAsDouble(t, i);
    if (!std::isfinite(v)) {
      f.int_width = std::max<size_t>(f.int_width, v < 0 ? 4 : 3);
      continue;
    }
    if (f.scientific) {
      // Fraction digits of the shortest mantissa.
      std::string s = Shortest(v, single);
      char buf[64];
      for (int p = 0; p <= 16; ++p) {
        std::snprintf(buf, sizeof buf, "%.*e", p, v);
        if (std::strtod(buf, nullptr) == std::strtod(s.c_str(), nullptr)) {
          f.exp_digits = std::max(f.exp_digits, p);
          break;
        }
      }
    } else {
      auto [ip, frac] = Positional(v, single);
      f.int_width = std::max(f.int_width, ip.size());
      f.fraction_digits = std::max(f.fraction_digits, static_cast<int>(frac.size()));
    }
  }
  return f;
}

std::string Element(const Tensor& t, int64_t i, const FloatFormat& f) {
  switch (t.dtype()) {
    case DT_FLOAT:
    case DT_DOUBLE:
      return FormatFloat(ValueAsDouble(t, i), t.dtype() == DT_FLOAT, f);
    case DT_BOOL:
      return t.data<bool>()[i] ? "True" : "False";
    case DT_STRING: {
      // numpy shows bytes objects as b'...'.
      std::string s = "b'";
      for (unsigned char c : t.data<std::string>()[i]) {
        if (c == '\'' || c == '\\') {
          s += '\\';
          s += static_cast<char>(c);
        } else if (c >= 0x20 && c < 0x7f) {
          s += static_cast<char>(c);
        } else {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          s += buf;
        }
      }
      return s + "'";
    }
    default:
      return t.ValueString(i);
  }
}

// Indices of the elements shown: all, or the edges of each axis.
void ShownIndices(const Tensor& t, bool summarize, std::vector<int64_t>* out) {
  const int rank = t.shape().dims();
  std::vector<int64_t> idx(rank, 0);
  const int64_t n = t.NumElements();
  if (!summarize) {
    for (int64_t i = 0; i < n; ++i) out->push_back(i);
    return;
  }
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat;
    bool shown = true;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t dim = t.shape().dim_size(d);
      const int64_t k = rest % dim;
      rest /= dim;
      if (dim > 2 * kEdgeItems && k >= kEdgeItems && k < dim - kEdgeItems) shown = false;
    }
    if (shown) out->push_back(flat);
  }
}

struct Printer {
  const Tensor& t;
  bool summarize;
  FloatFormat f;
  size_t width = 0;  // all elements padded to one width, as numpy does
  std::vector<int64_t> strides;

  std::string Pad(std::string s) const {
    return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
  }

  // Axis `d` starting at flat offset `base`; `indent` is the column of the
  // opening bracket plus one.
  std::string Block(int d, int64_t base, size_t indent) const {
    const int rank = t.shape().dims();
    const int64_t dim = t.shape().dim_size(d);
    std::vector<int64_t> ks;
    for (int64_t k = 0; k < dim; ++k) {
      if (summarize && dim > 2 * kEdgeItems && k == kEdgeItems) {
        ks.push_back(-1);  // "..."
        k = dim - kEdgeItems - 1;
        continue;
      }
      ks.push_back(k);
    }
    std::string s = "[";
    if (d == rank - 1) {
      size_t col = indent;
      for (size_t j = 0; j < ks.size(); ++j) {
        const std::string e = ks[j] < 0 ? Pad("...") : Pad(Element(t, base + ks[j], f));
        if (j > 0) {
          // numpy wraps a row that would pass the line width.
          if (col + 1 + e.size() + (j + 1 == ks.size() ? 1 : 0) > kLineWidth) {
            // numpy strips the padding a wrapped line ends with.
            while (!s.empty() && s.back() == ' ') s.pop_back();
            s += "\n" + std::string(indent, ' ');
            col = indent;
          } else {
            s += " ";
            ++col;
          }
        }
        s += e;
        col += e.size();
      }
      return s + "]";
    }
    for (size_t j = 0; j < ks.size(); ++j) {
      if (j > 0)
        s += std::string(static_cast<size_t>(rank - d - 1), '\n') + std::string(indent, ' ');
      if (ks[j] < 0) {
        s += "...";
        continue;
      }
      s += Block(d + 1, base + ks[j] * strides[d], indent + 1);
    }
    return s + "]";
  }
};

}  // namespace

std::string NumpyString(const Tensor& t) {
  const int rank = t.shape().dims();
  FloatFormat f;
  if (rank == 0) {
    if (IsFloat(t.dtype())) return ScalarRepr(ValueAsDouble(t, 0), t.dtype() == DT_FLOAT);
    if (t.dtype() == DT_STRING) return Element(t, 0, f);
    return Element(t, 0, f);
  }
  const bool summarize = t.NumElements() > kThreshold;
  std::vector<int64_t> shown;
  ShownIndices(t, summarize, &shown);
  if (IsFloat(t.dtype())) f = ChooseFloatFormat(t, shown);
  Printer p{t, summarize, f, 0, {}};
  for (int64_t i : shown) p.width = std::max(p.width, Element(t, i, f).size());
  p.strides.assign(rank, 1);
  for (int d = rank - 2; d >= 0; --d) p.strides[d] = p.strides[d + 1] * t.shape().dim_size(d + 1);
  if (t.NumElements() == 0) {
    std::string s;
    for (int d = 0; d < rank; ++d) s += "[";
    for (int d = 0; d < rank; ++d) s += "]";
    return s;
  }
  return p.Block(0, 0, 1);
}

}  // namespace af::tools
