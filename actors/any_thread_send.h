// Sending from code that does not know whether it runs inside an actor:
// executor callbacks run inline on the actor thread that started a step or
// made a Recv ready, or later on a device pool thread. Inside a handler the
// message goes to the current scheduler thread's own queue (no wake-up of
// another thread); elsewhere it takes CAF's external path.
#pragma once

#include <utility>

#include <caf/abstract_actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/actor_control_block.hpp>
#include <caf/execution_unit.hpp>
#include <caf/message_id.hpp>

#include "core/tsan_handoff.h"

namespace af::actors {

inline caf::execution_unit*& CurrentExecutionUnit() {
  thread_local caf::execution_unit* unit = nullptr;
  return unit;
}

// Marks the current thread as running a handler of the actor `self` for
// the scope's lifetime. Handlers that take messages from SendFromAnyThread
// open one, so it also acquires what those senders released.
class HandlerScope {
 public:
  template <class Self>
  explicit HandlerScope(Self* self) : saved_(CurrentExecutionUnit()) {
    CurrentExecutionUnit() = self->context();
    TsanAcquireFrom(static_cast<const caf::abstract_actor*>(self));
  }
  ~HandlerScope() { CurrentExecutionUnit() = saved_; }
  HandlerScope(const HandlerScope&) = delete;
  HandlerScope& operator=(const HandlerScope&) = delete;

 private:
  caf::execution_unit* saved_;
};

// An asynchronous, anonymous message to `dest` (local actor or proxy).
template <class Handle, class... Ts>
void SendFromAnyThread(const Handle& dest, Ts&&... xs) {
  auto* target = caf::actor_cast<caf::abstract_actor*>(dest);
  if (target == nullptr) return;
  TsanReleaseTo(target);
  target->eq_impl(caf::make_message_id(), nullptr, CurrentExecutionUnit(),
                  std::forward<Ts>(xs)...);
}

// The same, naming `sender`: actors guarding their handlers
// (actors/transport/peer_auth.h) refuse anonymous messages, which a remote peer can
// forge.
template <class Handle, class... Ts>
void SendFromAnyThreadAs(caf::strong_actor_ptr sender, const Handle& dest, Ts&&... xs) {
  auto* target = caf::actor_cast<caf::abstract_actor*>(dest);
  if (target == nullptr) return;
  TsanReleaseTo(target);
  target->eq_impl(caf::make_message_id(), std::move(sender), CurrentExecutionUnit(),
                  std::forward<Ts>(xs)...);
}

}  // namespace af::actors
