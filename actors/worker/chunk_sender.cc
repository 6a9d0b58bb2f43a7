#include "actors/worker/chunk_sender.h"

#include <algorithm>
#include <chrono>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

namespace af::actors {
namespace {

// A chunk unacknowledged this long means the receiver is gone or hung; its
// master's heartbeats fail the step, this only ends the transfer.
constexpr auto kChunkTimeout = std::chrono::seconds(60);

struct ChunkSendState {
  worker_actor dest;
  int64_t step_id = 0;
  std::string key;
  Tensor value;
  uint64_t next = 0;
  int in_flight = 0;
  static inline const char* name = "af.chunk_sender";
};

using ChunkSenderPointer = caf::stateful_actor<ChunkSendState>*;

void SendMore(ChunkSenderPointer self) {
  ChunkSendState& st = self->state;
  const uint64_t total = st.value.TotalBytes();
  while (st.in_flight < wire::kChunkWindow && st.next < total) {
    const uint64_t length = std::min(wire::kChunkBytes, total - st.next);
    wire::TensorChunk chunk{st.step_id, st.key, st.next, length, st.value, false, DT_INVALID, {}};
    st.next += length;
    ++st.in_flight;
    self->request(st.dest, kChunkTimeout, chunk_atom::value, std::move(chunk))
        .then(
            [=](bool more) {
              ChunkSendState& s = self->state;
              --s.in_flight;
              if (!more || (s.next >= s.value.TotalBytes() && s.in_flight == 0)) {
                self->quit();
                return;
              }
              SendMore(self);
            },
            [=](caf::error&) { self->quit(); });
  }
}

caf::behavior ChunkSender(ChunkSenderPointer self, worker_actor dest, int64_t step_id,
                          std::string key, Tensor value) {
  self->state.dest = std::move(dest);
  self->state.step_id = step_id;
  self->state.key = std::move(key);
  self->state.value = std::move(value);
  SendMore(self);
  return {};  // only the responses above
}

}  // namespace

void SendInChunks(const worker_actor& dest, int64_t step_id, std::string key, Tensor value) {
  auto* target = caf::actor_cast<caf::abstract_actor*>(dest);
  if (target == nullptr) return;
  target->home_system().spawn(ChunkSender, dest, step_id, std::move(key), std::move(value));
}

}  // namespace af::actors
