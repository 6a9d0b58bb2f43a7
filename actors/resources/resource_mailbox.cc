#include "actors/resources/resource_mailbox.h"

#include <utility>

#include <caf/actor_system.hpp>

#include "actors/any_thread_send.h"

namespace af::actors {

ResourceMailbox::ResourceMailbox(caf::actor_system& system, std::shared_ptr<ResourceCore> core)
    : actor_(SpawnResourceActor(system, std::move(core))) {}

ResourceMailbox::~ResourceMailbox() { SendFromAnyThread(actor_, resource_stop_atom::value); }

void ResourceMailbox::Submit(std::shared_ptr<WaitingRequest> request,
                             CancellationManager* cancellation) {
  request->id = next_id_.fetch_add(1, std::memory_order_relaxed);
  if (cancellation != nullptr && request->blocks()) {
    // The flag covers a cancellation that overtakes the request itself: its
    // withdrawal finds nothing, and the core refuses the request on arrival.
    std::weak_ptr<WaitingRequest> weak = request;
    const uint64_t id = request->id;
    resource_actor actor = actor_;
    const CancellationManager::Token token = cancellation->Register([weak, id, actor]() {
      if (auto r = weak.lock()) r->withdraw_requested.store(true, std::memory_order_release);
      SendFromAnyThread(actor, resource_withdraw_atom::value, id,
                        static_cast<int32_t>(Code::CANCELLED));
    });
    if (token == CancellationManager::kInvalidToken) {
      request->Fail(request->CancelledStatus());
      return;
    }
    request->cancellation = cancellation;
    request->token = token;
  }
  SendFromAnyThread(actor_, resource_request_atom::value, std::move(request));
}

}  // namespace af::actors
