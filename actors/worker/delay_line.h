// DelayLine: runs actions after a delay without holding a thread. The
// actor clock's timer thread hands each action, when due, to a small actor
// that runs it. Injected delays go through it (actors/worker/fault_hooks.h):
// a sleeping executor thread would delay every partition sharing its pool,
// and a sleeping actor every message in its mailbox, not only the step or
// tensor meant to be late.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include <caf/actor.hpp>
#include <caf/actor_addr.hpp>
#include <caf/fwd.hpp>

namespace af::actors {

class DelayLine {
 public:
  // The line stops when `owner` (the worker) terminates, or when this
  // object goes, whichever comes first; actions not yet due are dropped
  // then. (Pending actions hold what they send, and so this object: a line
  // that waited for them would hold a stopping process for the longest
  // injected delay.)
  DelayLine(caf::actor_system& system, const caf::actor_addr& owner);
  ~DelayLine();
  DelayLine(const DelayLine&) = delete;
  DelayLine& operator=(const DelayLine&) = delete;

  // Any thread. Runs `action` on an actor thread once `delay` has passed
  // (right away, on the calling thread, for a delay of zero).
  void After(std::chrono::nanoseconds delay, std::function<void()> action) const;

 private:
  caf::actor actor_;
};

}  // namespace af::actors
