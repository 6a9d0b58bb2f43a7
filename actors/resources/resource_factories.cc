#include "actors/resources/resource_factories.h"

#include <memory>
#include <mutex>

#include <caf/actor_system.hpp>

#include "actors/accumulator/accumulator_handle.h"
#include "actors/actor_system_holder.h"
#include "actors/coordination/staleness_clock_handle.h"
#include "actors/queue/queue_handle.h"

namespace af::actors {
namespace {

// Resources live in the process-wide resource managers, which are never
// torn down, so the actor system their actors run in is kept for the life
// of the process once the first resource exists. Letting it go with the
// last session instead would make the system's shutdown wait for resource
// actors that nobody can stop — or be triggered from an actor thread when
// a kernel drops the last reference to a queue.
caf::actor_system& ResourceSystem() {
  static std::shared_ptr<caf::actor_system>* const kept =
      new std::shared_ptr<caf::actor_system>(AcquireActorSystem());
  return **kept;
}

}  // namespace

void InstallResourceFactories() {
  static std::once_flag once;
  std::call_once(once, [] {
    SetQueueFactory([](const QueueSpec& spec, QueueInterface** out) {
      return QueueHandle::Create(ResourceSystem(), spec, out);
    });
    SetAccumulatorFactory([](const AccumulatorSpec& spec, AccumulatorInterface** out) {
      return AccumulatorHandle::Create(ResourceSystem(), spec, out);
    });
    SetStalenessClockFactory([](const StalenessClockSpec& spec, StalenessClockInterface** out) {
      return StalenessClockHandle::Create(ResourceSystem(), spec, out);
    });
  });
}

}  // namespace af::actors
