#include "actors/queue/queue_factory.h"

#include <memory>
#include <mutex>

#include <caf/actor_system.hpp>

#include "actors/accumulator/accumulator_factory.h"
#include "actors/coordination/staleness_clock_factory.h"
#include "actors/actor_system_holder.h"
#include "actors/queue/actor_queue.h"
#include "core/queue_interface.h"

namespace af::actors {
namespace {

// Queues live in the process-wide resource managers, which are never torn
// down, so the actor system their actors run in is kept for the life of
// the process once the first queue exists. Letting it go with the last
// session instead would make the system's shutdown wait for queue actors
// that nobody can stop — or be triggered from an actor thread when a
// kernel drops the last queue reference.
caf::actor_system& QueueSystem() {
  static std::shared_ptr<caf::actor_system>* const kept =
      new std::shared_ptr<caf::actor_system>(AcquireActorSystem());
  return **kept;
}

}  // namespace

void InstallQueueFactory() {
  InstallAccumulatorFactory();  // gradient accumulators are actors made the same way
  InstallStalenessClockFactory();  // and so are staleness clocks
  static std::once_flag once;
  std::call_once(once, [] {
    SetQueueFactory([](const QueueSpec& spec, QueueInterface** out) {
      return ActorQueue::Create(QueueSystem(), spec, out);
    });
  });
}

}  // namespace af::actors
