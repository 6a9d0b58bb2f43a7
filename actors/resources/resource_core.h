// ResourceCore: the state and rules of one resource whose requests may wait
// (a queue, an accumulator, a staleness clock), as the one resource actor
// (resource_actor.h) drives it. The actor runs a core one message at a time,
// so a core needs no lock, and it knows nothing of CAF: the actor supplies
// messages and timers around it.
//
// Every request ends exactly once, in the core: it is served, refused, or,
// while it waits, withdrawn (its deadline passed or its step was
// cancelled). Because the decision is made in one place a request is
// either served or withdrawn, never both.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "actors/resources/waiting_request.h"

namespace af::actors {

class ResourceCore {
 public:
  virtual ~ResourceCore() = default;

  // Takes a request that just arrived (of the core's own request type) and
  // serves what it can. True when the request is left waiting: the actor
  // then arms its deadline.
  virtual bool Arrive(std::shared_ptr<WaitingRequest> request, int64_t now_ns) = 0;

  // Ends the waiting request `id` with `code` (CANCELLED or
  // DEADLINE_EXCEEDED). A request no longer waiting was served or refused
  // already: nothing happens.
  virtual void Withdraw(uint64_t id, Code code, int64_t now_ns) = 0;

  // The stall inspector's lines for requests that arrived before
  // `waiting_since_ns` and still wait, each reported once; whether anything
  // still waits at all (for the next inspection).
  virtual bool InspectStalls(int64_t now_ns, int64_t waiting_since_ns,
                             std::vector<std::string>* lines) = 0;

  // A core whose waits can end with time alone (a staleness clock leaving a
  // silent worker out) names the next moment to look again; 0: never.
  virtual int64_t NextRecheckNs() const { return 0; }
  virtual void Recheck(int64_t /*now_ns*/) {}
};

}  // namespace af::actors
