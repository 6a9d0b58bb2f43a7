#include "core/fault_injection/delay_distribution.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

namespace af::faults {
namespace {

constexpr double kPi = 3.14159265358979323846;

bool ParseNumber(std::string_view text, double* out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end && std::isfinite(*out);
}

std::vector<std::string_view> SplitColons(std::string_view text) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon - start));
    if (colon == std::string_view::npos) return parts;
    start = colon + 1;
  }
}

std::string FormatNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", value);
  return buffer;
}

}  // namespace

Status ParseDuration(std::string_view text, std::string_view field, double* nanoseconds) {
  struct Unit {
    std::string_view suffix;
    double ns;
  };
  // "ms" and "ns" before "s": the longest suffix that matches wins.
  static constexpr Unit kUnits[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  if (text == "0") {
    *nanoseconds = 0;
    return Status::OK();
  }
  for (const Unit& unit : kUnits) {
    if (text.size() <= unit.suffix.size() || !text.ends_with(unit.suffix)) continue;
    double number = 0;
    if (!ParseNumber(text.substr(0, text.size() - unit.suffix.size()), &number)) break;
    if (number < 0) {
      return errors::InvalidArgument("fault spec: field '", field, "': duration '", text,
                                     "' is negative");
    }
    *nanoseconds = number * unit.ns;
    return Status::OK();
  }
  return errors::InvalidArgument("fault spec: field '", field, "': '", text,
                                 "' is not a duration (a number and a unit: ns, us, ms or s, "
                                 "e.g. 20ms)");
}

std::string FormatDuration(double ns) {
  if (ns >= 1e9) return FormatNumber(ns / 1e9) + "s";
  if (ns >= 1e6) return FormatNumber(ns / 1e6) + "ms";
  if (ns >= 1e3) return FormatNumber(ns / 1e3) + "us";
  return FormatNumber(ns) + "ns";
}

DelayDistribution DelayDistribution::Constant(double ns) { return {Kind::kConstant, ns, 0}; }

DelayDistribution DelayDistribution::Uniform(double lo_ns, double hi_ns) {
  return {Kind::kUniform, lo_ns, hi_ns};
}

DelayDistribution DelayDistribution::Exponential(double mean_ns) {
  return {Kind::kExponential, mean_ns, 0};
}

DelayDistribution DelayDistribution::Pareto(double scale_ns, double alpha) {
  return {Kind::kPareto, scale_ns, alpha};
}

DelayDistribution DelayDistribution::LogNormal(double median_ns, double sigma) {
  return {Kind::kLogNormal, median_ns, sigma};
}

Status DelayDistribution::Parse(std::string_view text, std::string_view field,
                                DelayDistribution* out) {
  const std::vector<std::string_view> parts = SplitColons(text);
  const std::string_view name = parts[0];
  auto arity = [&](size_t n, std::string_view form) -> Status {
    if (parts.size() == n + 1) return Status::OK();
    return errors::InvalidArgument("fault spec: field '", field, "': '", text, "' should be ",
                                   form);
  };
  auto positive = [&](double value, std::string_view what) -> Status {
    if (value > 0) return Status::OK();
    return errors::InvalidArgument("fault spec: field '", field, "': ", what, " of '", text,
                                   "' must be positive");
  };
  if (name == "none") {
    AF_RETURN_IF_ERROR(arity(0, "none"));
    *out = DelayDistribution();
    return Status::OK();
  }
  if (name == "const") {
    AF_RETURN_IF_ERROR(arity(1, "const:DURATION"));
    double d = 0;
    AF_RETURN_IF_ERROR(ParseDuration(parts[1], field, &d));
    *out = Constant(d);
    return Status::OK();
  }
  if (name == "uniform") {
    AF_RETURN_IF_ERROR(arity(2, "uniform:LO:HI"));
    double lo = 0, hi = 0;
    AF_RETURN_IF_ERROR(ParseDuration(parts[1], field, &lo));
    AF_RETURN_IF_ERROR(ParseDuration(parts[2], field, &hi));
    if (hi < lo) {
      return errors::InvalidArgument("fault spec: field '", field, "': '", text,
                                     "' has HI below LO");
    }
    *out = Uniform(lo, hi);
    return Status::OK();
  }
  if (name == "exp") {
    AF_RETURN_IF_ERROR(arity(1, "exp:MEAN"));
    double mean = 0;
    AF_RETURN_IF_ERROR(ParseDuration(parts[1], field, &mean));
    AF_RETURN_IF_ERROR(positive(mean, "MEAN"));
    *out = Exponential(mean);
    return Status::OK();
  }
  if (name == "pareto") {
    AF_RETURN_IF_ERROR(arity(2, "pareto:SCALE:ALPHA"));
    double scale = 0, alpha = 0;
    AF_RETURN_IF_ERROR(ParseDuration(parts[1], field, &scale));
    AF_RETURN_IF_ERROR(positive(scale, "SCALE"));
    if (!ParseNumber(parts[2], &alpha)) {
      return errors::InvalidArgument("fault spec: field '", field, "': ALPHA '", parts[2],
                                     "' of '", text, "' is not a number");
    }
    AF_RETURN_IF_ERROR(positive(alpha, "ALPHA"));
    *out = Pareto(scale, alpha);
    return Status::OK();
  }
  if (name == "lognormal") {
    AF_RETURN_IF_ERROR(arity(2, "lognormal:MEDIAN:SIGMA"));
    double median = 0, sigma = 0;
    AF_RETURN_IF_ERROR(ParseDuration(parts[1], field, &median));
    AF_RETURN_IF_ERROR(positive(median, "MEDIAN"));
    if (!ParseNumber(parts[2], &sigma) || sigma < 0) {
      return errors::InvalidArgument("fault spec: field '", field, "': SIGMA '", parts[2],
                                     "' of '", text, "' is not a number >= 0");
    }
    *out = LogNormal(median, sigma);
    return Status::OK();
  }
  return errors::InvalidArgument("fault spec: field '", field, "': unknown distribution '",
                                 name, "' in '", text,
                                 "' (expected none, const, uniform, exp, pareto or lognormal)");
}

double DelayDistribution::SampleNanos(FaultRng& rng) const {
  switch (kind_) {
    case Kind::kNone:
      return 0;
    case Kind::kConstant:
      return a_;
    case Kind::kUniform:
      return a_ + (b_ - a_) * rng.Uniform();
    case Kind::kExponential:
      return -a_ * std::log(rng.Uniform());
    case Kind::kPareto:
      // Inverse CDF: u = (SCALE/x)^ALPHA.
      return a_ * std::pow(rng.Uniform(), -1.0 / b_);
    case Kind::kLogNormal: {
      // Box-Muller; the second normal of the pair is not kept, so every
      // sample takes exactly two draws whatever came before.
      const double u1 = rng.Uniform();
      const double u2 = rng.Uniform();
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
      return a_ * std::exp(b_ * z);
    }
  }
  return 0;
}

double DelayDistribution::MeanNanos() const {
  switch (kind_) {
    case Kind::kNone:
      return 0;
    case Kind::kConstant:
    case Kind::kExponential:
      return a_;
    case Kind::kUniform:
      return (a_ + b_) / 2;
    case Kind::kPareto:
      return b_ <= 1 ? std::numeric_limits<double>::infinity() : b_ * a_ / (b_ - 1);
    case Kind::kLogNormal:
      return a_ * std::exp(b_ * b_ / 2);
  }
  return 0;
}

std::string DelayDistribution::ToString() const {
  switch (kind_) {
    case Kind::kNone:
      return "none";
    case Kind::kConstant:
      return "const:" + FormatDuration(a_);
    case Kind::kUniform:
      return "uniform:" + FormatDuration(a_) + ":" + FormatDuration(b_);
    case Kind::kExponential:
      return "exp:" + FormatDuration(a_);
    case Kind::kPareto:
      return "pareto:" + FormatDuration(a_) + ":" + FormatNumber(b_);
    case Kind::kLogNormal:
      return "lognormal:" + FormatDuration(a_) + ":" + FormatNumber(b_);
  }
  return "none";
}

}  // namespace af::faults
