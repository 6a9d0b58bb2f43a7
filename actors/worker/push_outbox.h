// Small tensors of a session bound for one peer worker. A step's Sends to
// another process often finish in a burst (a ps answering every variable
// read of a step); each push joins the outbox, and only the first one since
// the last flush asks the worker to flush. By the time the worker handles
// that request, the rest of the burst has joined, and the whole burst
// crosses as one message instead of one per tensor — no timer, no added
// wait when a push comes alone.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "actors/interfaces.h"

namespace af::actors {

class PushOutbox {
 public:
  PushOutbox(uint64_t id, worker_actor destination)
      : id_(id), destination_(std::move(destination)) {}

  uint64_t id() const { return id_; }
  const worker_actor& destination() const { return destination_; }

  // Any thread. True when the caller must ask for a flush.
  bool Add(wire::TensorPush push);
  // The worker's flush: everything gathered since the last one.
  std::vector<wire::TensorPush> Take();

 private:
  const uint64_t id_;
  const worker_actor destination_;
  std::mutex mu_;  // guards pending_ and flush_requested_
  std::vector<wire::TensorPush> pending_;
  bool flush_requested_ = false;
};

}  // namespace af::actors
