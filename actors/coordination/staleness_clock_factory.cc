#include "actors/coordination/staleness_clock_factory.h"

#include <memory>
#include <mutex>

#include <caf/actor_system.hpp>

#include "actors/actor_system_holder.h"
#include "actors/coordination/actor_staleness_clock.h"
#include "core/staleness_clock_interface.h"

namespace af::actors {
namespace {

// Clocks live in the process-wide resource managers, as queues do, so
// their actor system is kept for the life of the process for the same
// reason (actors/queue/queue_factory.cc).
caf::actor_system& ClockSystem() {
  static std::shared_ptr<caf::actor_system>* const kept =
      new std::shared_ptr<caf::actor_system>(AcquireActorSystem());
  return **kept;
}

}  // namespace

void InstallStalenessClockFactory() {
  static std::once_flag once;
  std::call_once(once, [] {
    SetStalenessClockFactory([](const StalenessClockSpec& spec, StalenessClockInterface** out) {
      return ActorStalenessClock::Create(ClockSystem(), spec, out);
    });
  });
}

}  // namespace af::actors
