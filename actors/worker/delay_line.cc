#include "actors/worker/delay_line.h"

#include <utility>

#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/mailbox_element.hpp>
#include <caf/send.hpp>

#include "actors/any_thread_send.h"

namespace af::actors {

// Local only: a closure does not cross processes.
struct DelayedAction {
  std::function<void()> run;
};

}  // namespace af::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(af::actors::DelayedAction)

namespace af::actors {
namespace {

caf::behavior DelayLineBehavior(caf::event_based_actor* self, caf::actor_addr owner) {
  self->monitor(owner);
  self->set_down_handler([self](caf::down_msg&) { self->quit(); });
  return {
      [self](const DelayedAction& action) {
        // Sends made by the action take the scheduler thread's own queue.
        HandlerScope scope(self);
        action.run();
      },
  };
}

}  // namespace

DelayLine::DelayLine(caf::actor_system& system, const caf::actor_addr& owner)
    : actor_(system.spawn(DelayLineBehavior, owner)) {}

DelayLine::~DelayLine() { caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown); }

void DelayLine::After(std::chrono::nanoseconds delay, std::function<void()> action) const {
  if (delay.count() <= 0) return action();
  auto& clock = actor_->home_system().clock();
  clock.schedule_message(clock.now() + delay, caf::actor_cast<caf::strong_actor_ptr>(actor_),
                         caf::make_mailbox_element(nullptr, caf::make_message_id(),
                                                   caf::mailbox_element::forwarding_stack{},
                                                   DelayedAction{std::move(action)}));
}

}  // namespace af::actors
