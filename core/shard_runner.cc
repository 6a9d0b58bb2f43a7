#include "core/shard_runner.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

namespace af::intra_op_internal {

namespace {

// Shared between the caller and its helper tasks; helpers hold it by
// shared_ptr because one may start after the caller has returned.
struct ShardState {
  std::atomic<int64_t> next_shard{0};
  int64_t num_shards = 0;
  int64_t units = 0;
  int64_t block = 0;
  // Valid while the caller waits; only dereferenced for a claimed shard,
  // and the caller does not return before every claimed shard is done.
  const std::function<void(int64_t, int64_t)>* fn = nullptr;
  std::mutex mu;  // guards finished
  std::condition_variable all_done;
  int64_t finished = 0;  // guarded by mu
};

void ClaimAndRun(ShardState& state) {
  for (;;) {
    const int64_t shard = state.next_shard.fetch_add(1, std::memory_order_relaxed);
    if (shard >= state.num_shards) return;
    const int64_t begin = shard * state.block;
    const int64_t end = std::min(state.units, begin + state.block);
    if (begin < end) (*state.fn)(begin, end);
    std::lock_guard<std::mutex> lock(state.mu);
    if (++state.finished == state.num_shards) state.all_done.notify_all();
  }
}

}  // namespace

int64_t NumShards(const ThreadPoolInterface* pool, int64_t units, int64_t cost_per_unit) {
  if (pool == nullptr || units <= 1) return 1;
  const int threads = pool->NumThreads();
  if (threads <= 1) return 1;
  const int64_t cost = std::max<int64_t>(cost_per_unit, 1);
  // Saturating: units * cost may not fit in int64 for huge tensors.
  const int64_t by_cost =
      units > INT64_MAX / cost ? INT64_MAX : units * cost / kMinCyclesPerShard;
  // A few shards per thread balance uneven progress between threads.
  const int64_t max_shards = 4 * static_cast<int64_t>(threads);
  return std::clamp<int64_t>(std::min(by_cost, units), 1, max_shards);
}

void RunShards(ThreadPoolInterface* pool, int64_t units, int64_t num_shards,
               const std::function<void(int64_t, int64_t)>& fn) {
  auto state = std::make_shared<ShardState>();
  state->units = units;
  state->block = (units + num_shards - 1) / num_shards;
  state->num_shards = (units + state->block - 1) / state->block;
  state->fn = &fn;
  const int64_t helpers =
      std::min<int64_t>(pool->NumThreads(), state->num_shards - 1);
  for (int64_t h = 0; h < helpers; ++h) pool->Schedule([state] { ClaimAndRun(*state); });
  ClaimAndRun(*state);
  std::unique_lock<std::mutex> lock(state->mu);
  state->all_done.wait(lock, [&] { return state->finished == state->num_shards; });
}

}  // namespace af::intra_op_internal
