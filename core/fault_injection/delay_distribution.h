// DelayDistribution: how long an injected delay lasts. Written in fault
// specs (core/fault_injection/fault_spec.h) as
//   none                      no delay
//   const:D                   always D
//   uniform:LO:HI             uniform in [LO, HI]
//   exp:MEAN                  exponential with that mean (memoryless jitter)
//   pareto:SCALE:ALPHA        Pareto: at least SCALE, P(X > x) = (SCALE/x)^ALPHA;
//                             the heavy tail of real stragglers (mean infinite
//                             for ALPHA <= 1)
//   lognormal:MEDIAN:SIGMA    exp of a normal: median MEDIAN, SIGMA the
//                             standard deviation of the logarithm
// Durations carry a unit: ns, us, ms or s ("20ms", "1.5s"); "0" alone is
// allowed. Sampling is inverse-CDF over FaultRng (core/fault_injection/
// fault_rng.h), so one seed gives one sequence everywhere.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "core/fault_injection/fault_rng.h"
#include "core/status.h"

namespace af::faults {

// "20ms" -> 20'000'000 ns. INVALID_ARGUMENT naming `field` when malformed,
// negative or unitless.
Status ParseDuration(std::string_view text, std::string_view field, double* nanoseconds);
// The shortest of "250ns", "12.5us", "20ms", "1.5s" that shows `nanoseconds`.
std::string FormatDuration(double nanoseconds);

class DelayDistribution {
 public:
  enum class Kind { kNone, kConstant, kUniform, kExponential, kPareto, kLogNormal };

  DelayDistribution() = default;  // none
  static DelayDistribution Constant(double ns);
  static DelayDistribution Uniform(double lo_ns, double hi_ns);
  static DelayDistribution Exponential(double mean_ns);
  static DelayDistribution Pareto(double scale_ns, double alpha);
  static DelayDistribution LogNormal(double median_ns, double sigma);

  // INVALID_ARGUMENT naming `field` ("compute", "transport") and the part
  // that is wrong.
  static Status Parse(std::string_view text, std::string_view field, DelayDistribution* out);

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::kNone; }
  // One delay in nanoseconds, >= 0; consumes one or two draws of `rng`
  // (lognormal takes two), none for none and const.
  double SampleNanos(FaultRng& rng) const;
  // The distribution's mean in ns (infinity for a Pareto with ALPHA <= 1).
  double MeanNanos() const;
  // Spec form, e.g. "pareto:10ms:1.5" (parses back to the same).
  std::string ToString() const;

 private:
  DelayDistribution(Kind kind, double a, double b) : kind_(kind), a_(a), b_(b) {}

  Kind kind_ = Kind::kNone;
  double a_ = 0;  // const D, uniform LO, exp MEAN, pareto SCALE, lognormal MEDIAN (ns)
  double b_ = 0;  // uniform HI (ns), pareto ALPHA, lognormal SIGMA
};

}  // namespace af::faults
