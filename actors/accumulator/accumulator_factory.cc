#include "actors/accumulator/accumulator_factory.h"

#include <memory>
#include <mutex>

#include <caf/actor_system.hpp>

#include "actors/accumulator/actor_accumulator.h"
#include "actors/actor_system_holder.h"
#include "core/accumulator_interface.h"

namespace af::actors {
namespace {

// Accumulators live in the process-wide resource managers, as queues do,
// so their actor system is kept for the life of the process for the same
// reason (actors/queue/queue_factory.cc).
caf::actor_system& AccumulatorSystem() {
  static std::shared_ptr<caf::actor_system>* const kept =
      new std::shared_ptr<caf::actor_system>(AcquireActorSystem());
  return **kept;
}

}  // namespace

void InstallAccumulatorFactory() {
  static std::once_flag once;
  std::call_once(once, [] {
    SetAccumulatorFactory([](const AccumulatorSpec& spec, AccumulatorInterface** out) {
      return ActorAccumulator::Create(AccumulatorSystem(), spec, out);
    });
  });
}

}  // namespace af::actors
