// LaneReplies: the RunGraph requests this process sent by the direct step
// path (actors/worker/direct_steps.h) and still waits for, by correlation
// id, so that a reply arriving on any data-plane reader thread reaches who
// asked: a master actor (as a local message) or a client thread running the
// step itself (actors/remote_step.h; a callback on the reader thread).
// Correlation ids start at a random value and count up, process-wide. The
// reply is decoded on the reader thread.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include <caf/actor_addr.hpp>

#include "actors/transport/wire.h"

namespace af::actors {

class LaneReplies {
 public:
  using Callback = std::function<void(wire::RunGraphResponse& response)>;

  static LaneReplies& Global();

  // A new correlation id whose reply goes to `master` (direct_reply_atom),
  // which forgets it when handled.
  uint64_t Register(const caf::actor_addr& master);
  // A new correlation id whose reply goes to `callback`, once, on the
  // reader thread that received it.
  uint64_t Register(Callback callback);
  // The request was answered or given up.
  void Forget(uint64_t correlation);
  // A reply from the lane (a reader thread): to whoever waits, or dropped
  // when nobody does any more.
  void Deliver(uint64_t correlation, std::string_view body);
  // A reply that came through CAF instead (the worker's lane was not
  // ready): to a callback waiting for it; false when none does (the
  // caller, a master, then looks at its own requests).
  bool DeliverToCallback(uint64_t correlation, wire::RunGraphResponse& response);
  size_t pending() const;

 private:
  struct Waiter {
    caf::actor_addr master;
    Callback callback;
  };
  uint64_t Add(Waiter waiter);

  mutable std::mutex mu_;  // guards waiting_ and next_
  std::unordered_map<uint64_t, Waiter> waiting_;
  uint64_t next_ = 0;
};

}  // namespace af::actors
