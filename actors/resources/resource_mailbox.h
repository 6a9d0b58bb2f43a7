// ResourceMailbox: the kernel side of a resource actor, shared by every
// handle (QueueHandle, AccumulatorHandle, StalenessClockHandle). It numbers
// each request, ties a waiting one to its step's cancellation and sends it
// to the actor, which answers through the request's callback on the actor's
// thread (callers hand longer work to their own threads).
//
// Waiting ends in the actor, never here: a deadline is a delayed message the
// actor sends itself, and a cancellation sends it "withdraw(id)". The actor
// withdraws the request if it still waits, or ignores the message if it
// served it already — so an operation that gave up never takes anything,
// and one that was served is never lost.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

#include "actors/resources/resource_actor.h"
#include "core/resource_mgr.h"

namespace af::actors {

class ResourceMailbox {
 public:
  // Spawns the actor that runs `core` in `system`.
  ResourceMailbox(caf::actor_system& system, std::shared_ptr<ResourceCore> core);
  // Stops the actor: it fails whatever still waits. Requests in flight hold
  // a reference to the resource, so none is in flight by then.
  ~ResourceMailbox();
  ResourceMailbox(const ResourceMailbox&) = delete;
  ResourceMailbox& operator=(const ResourceMailbox&) = delete;

  // Numbers `request`, registers a blocking one with `cancellation` (may be
  // null) and sends it. A step cancelled already fails it here.
  void Submit(std::shared_ptr<WaitingRequest> request, CancellationManager* cancellation);

  // The same, for a request of `resource` (a QueueInterface, ...) that keeps
  // it alive until its callback ran: `request->keep_alive` takes a
  // reference.
  template <class Interface, class Request>
  void SubmitFor(Interface* resource, std::shared_ptr<Request> request,
                 CancellationManager* cancellation) {
    resource->Ref();
    request->keep_alive = ResourceRef<Interface>(resource);
    Submit(std::move(request), cancellation);
  }

 private:
  resource_actor actor_;
  std::atomic<uint64_t> next_id_{1};
};

}  // namespace af::actors
