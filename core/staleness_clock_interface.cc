#include "core/staleness_clock_interface.h"

#include <mutex>
#include <utility>

namespace af {
namespace {

std::mutex& FactoryMutex() {
  static std::mutex mu;
  return mu;
}

StalenessClockFactory& Factory() {
  static StalenessClockFactory factory;
  return factory;
}

}  // namespace

std::string StalenessClockLabel(const StalenessClockSpec& spec) {
  return "StalenessClock '" + spec.name + "'";
}

Status ValidateStalenessClockSpec(const StalenessClockSpec& spec) {
  if (spec.num_workers < 1) {
    return errors::InvalidArgument(StalenessClockLabel(spec), ": num_workers must be at least 1, ",
                                   "not ", spec.num_workers);
  }
  if (spec.staleness < 0) {
    return errors::InvalidArgument(StalenessClockLabel(spec), ": staleness must be >= 0, not ",
                                   spec.staleness);
  }
  return Status::OK();
}

Status StalenessClockSpecsMatch(const StalenessClockSpec& have,
                                const StalenessClockSpec& wanted) {
  // Two trainings sharing a name by mistake would otherwise wait on each
  // other under rules neither asked for.
  const std::string label = StalenessClockLabel(have);
  if (have.num_workers != wanted.num_workers) {
    return errors::InvalidArgument("the shared ", label, " has ", have.num_workers,
                                   " workers, not ", wanted.num_workers);
  }
  if (have.staleness != wanted.staleness) {
    return errors::InvalidArgument("the shared ", label, " has staleness ", have.staleness,
                                   ", not ", wanted.staleness);
  }
  if (have.inactive_after_ms != wanted.inactive_after_ms) {
    return errors::InvalidArgument("the shared ", label, " has inactive_after_ms ",
                                   have.inactive_after_ms, ", not ", wanted.inactive_after_ms);
  }
  return Status::OK();
}

void SetStalenessClockFactory(StalenessClockFactory factory) {
  std::lock_guard<std::mutex> lock(FactoryMutex());
  Factory() = std::move(factory);
}

Status CreateStalenessClock(const StalenessClockSpec& spec, StalenessClockInterface** out) {
  AF_RETURN_IF_ERROR(ValidateStalenessClockSpec(spec));
  StalenessClockFactory factory;
  {
    std::lock_guard<std::mutex> lock(FactoryMutex());
    factory = Factory();
  }
  if (!factory) {
    return errors::FailedPrecondition(StalenessClockLabel(spec),
                                      ": staleness clocks need the actor runtime (start a "
                                      "Session)");
  }
  return factory(spec, out);
}

}  // namespace af
