// Splitting one kernel's work over the device's intra-op thread pool.
//
// ShardedFor(ctx, units, cost_per_unit, fn) calls fn(begin, end) over
// disjoint ranges covering [0, units). Small work, or a device without a
// pool (the test device), runs inline as one fn(0, units) call.
//
// The device pool also runs whole kernels, so a kernel that blocked waiting
// for shards still queued behind other blocked kernels could deadlock the
// pool. Shards are therefore claimed from a shared counter: the calling
// thread keeps claiming until none are left and only ever waits for shards
// another thread has already started. A helper task that starts late finds
// nothing to claim and returns without touching the caller's state.
//
// Callers must make results independent of where the shard boundaries fall
// (every output element computed the same way whatever the split), so a
// kernel gives the same bits with and without a pool.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

#include "core/device_base.h"
#include "core/op_kernel.h"

namespace af {

// Rough cycles below which handing work to other threads costs more than it
// saves.
inline constexpr int64_t kMinCyclesPerShard = 100000;

namespace intra_op_internal {
// Runs fn over `num_shards` equal ranges of [0, units) on `pool` plus the
// calling thread; returns when all have finished.
void RunShards(ThreadPoolInterface* pool, int64_t units, int64_t num_shards,
               const std::function<void(int64_t, int64_t)>& fn);
// How many shards `units` of `cost_per_unit` cycles deserve on `pool` (1: run
// inline).
int64_t NumShards(const ThreadPoolInterface* pool, int64_t units, int64_t cost_per_unit);
}  // namespace intra_op_internal

template <typename Fn>
void ShardedFor(OpKernelContext* ctx, int64_t units, int64_t cost_per_unit, Fn&& fn) {
  if (units <= 0) return;
  ThreadPoolInterface* pool = ctx->device() ? ctx->device()->intra_op_pool() : nullptr;
  const int64_t shards = intra_op_internal::NumShards(pool, units, cost_per_unit);
  if (shards <= 1) {
    fn(int64_t{0}, units);
    return;
  }
  const std::function<void(int64_t, int64_t)> wrapped = std::forward<Fn>(fn);
  intra_op_internal::RunShards(pool, units, shards, wrapped);
}

}  // namespace af
