#include "core/fault_injection/fault_injector.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace af::faults {
namespace {

// The seed of a task's streams: the spec's seed with the task's name mixed
// in, so that one spec gives every task of a cluster its own faults.
uint64_t TaskSeed(uint64_t seed, std::string_view task_name) {
  return Mix64(Mix64(seed) ^ HashName(task_name));
}

std::chrono::nanoseconds Capped(double ns, double cap_ns) {
  return std::chrono::nanoseconds(static_cast<int64_t>(std::min(ns, cap_ns)));
}

std::string Format(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

}  // namespace

FaultInjector::FaultInjector(FaultSpec spec, std::string task_name)
    : spec_(std::move(spec)),
      task_name_(std::move(task_name)),
      compute_rng_(Mix64(TaskSeed(spec_.seed, task_name_) + 1)),
      transport_rng_(Mix64(TaskSeed(spec_.seed, task_name_) + 2)) {}

Status FaultInjector::Create(std::string_view flag_spec, std::string_view task_name,
                             std::shared_ptr<FaultInjector>* out) {
  out->reset();
  std::string_view text = flag_spec;
  std::string_view source = "--faults";
  if (text.empty()) {
    const char* env = std::getenv(kFaultsEnvironmentVariable);
    if (env == nullptr || *env == '\0') return Status::OK();
    text = env;
    source = kFaultsEnvironmentVariable;
  }
  FaultSpec spec;
  Status s = ParseFaultSpec(text, task_name, &spec);
  if (!s.ok()) return errors::InvalidArgument(source, ": ", s.message());
  if (spec.empty()) return Status::OK();
  *out = std::make_shared<FaultInjector>(std::move(spec), std::string(task_name));
  return Status::OK();
}

ComputeFault FaultInjector::NextCompute() {
  ComputeFault fault;
  std::lock_guard<std::mutex> lock(mu_);
  ++counts_.steps;
  if (spec_.compute.is_none()) return fault;
  fault.delay = Capped(spec_.compute.SampleNanos(compute_rng_), spec_.cap_ns);
  if (fault.delay.count() > 0) {
    ++counts_.compute_delays;
    counts_.compute_delay_ms += fault.delay.count() / 1e6;
    fault.report = CountInjected();
  }
  return fault;
}

TransportFault FaultInjector::NextTransport(bool may_duplicate) {
  TransportFault fault;
  std::lock_guard<std::mutex> lock(mu_);
  ++counts_.tensors;
  // Every configured draw is taken whatever the outcome, so that one
  // tensor's fate does not shift the stream of the next ones.
  const bool drop = spec_.drop > 0 && transport_rng_.Uniform() < spec_.drop;
  const bool dup = spec_.dup > 0 && transport_rng_.Uniform() < spec_.dup;
  const double delay_ns =
      spec_.transport.is_none() ? 0 : spec_.transport.SampleNanos(transport_rng_);
  if (drop) {
    fault.drop = true;
    ++counts_.drops;
    fault.drop_number = counts_.drops;
    fault.log_drop = counts_.drops <= kDropsLoggedByName;
    fault.report = CountInjected();
    return fault;
  }
  fault.delay = Capped(delay_ns, spec_.cap_ns);
  if (fault.delay.count() > 0) {
    ++counts_.transport_delays;
    counts_.transport_delay_ms += fault.delay.count() / 1e6;
    fault.report = CountInjected();
  }
  if (dup && may_duplicate) {
    fault.duplicate = true;
    ++counts_.duplicates;
    fault.report = CountInjected() || fault.report;
  }
  return fault;
}

bool FaultInjector::CountInjected() {
  ++injected_;
  return injected_ == 1 || injected_ == 10 || injected_ == 100 || injected_ % 1000 == 0;
}

FaultCounts FaultInjector::counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

std::string FaultInjector::Describe() const {
  return "fault injection on " + task_name_ + ": " + spec_.ToString() + " (seed " +
         std::to_string(spec_.seed) + ")";
}

std::string FaultInjector::CountsLine() const {
  const FaultCounts c = counts();
  return "faults injected on " + task_name_ + ": " + std::to_string(c.compute_delays) + " of " +
         std::to_string(c.steps) + " steps delayed (" + Format("%.1f", c.compute_delay_ms) +
         " ms in all); of " + std::to_string(c.tensors) + " tensors sent to other processes " +
         std::to_string(c.transport_delays) + " delayed (" +
         Format("%.1f", c.transport_delay_ms) + " ms in all), " + std::to_string(c.drops) +
         " dropped, " + std::to_string(c.duplicates) + " duplicated";
}

}  // namespace af::faults
