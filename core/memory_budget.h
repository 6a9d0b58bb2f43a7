// A session's budget of device memory on a server (`actorflow server
// --session_memory_limit`): every tensor a step of the session allocates
// through its kernels' context is charged to it until freed, and an
// allocation that would go over it fails before any memory is taken, so
// the kernel reports RESOURCE_EXHAUSTED naming its node, the session and
// the limit. No CAF here.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "core/allocator.h"

namespace af {

class MemoryBudget {
 public:
  // `owner` names the budget in errors ("session 42 on /job:worker/...").
  MemoryBudget(std::string owner, int64_t limit_bytes)
      : owner_(std::move(owner)), limit_(limit_bytes) {}
  // Takes `bytes` from the budget; false (nothing taken) if it would exceed
  // the limit.
  bool TryCharge(size_t bytes);
  void Release(size_t bytes);
  int64_t in_use() const { return in_use_.load(std::memory_order_relaxed); }
  int64_t limit() const { return limit_; }
  const std::string& owner() const { return owner_; }

 private:
  const std::string owner_;
  const int64_t limit_;
  std::atomic<int64_t> in_use_{0};
};

// `base` with every allocation charged to `budget`. A tensor remembers the
// allocator that made it and may outlive its session (a variable in a
// shared container), so these are never destroyed: make one per session
// and device with MakeBudgetedAllocator.
class BudgetedAllocator : public Allocator {
 public:
  BudgetedAllocator(Allocator* base, std::shared_ptr<MemoryBudget> budget)
      : base_(base), budget_(std::move(budget)) {}
  std::string Name() const override;
  void* AllocateRaw(size_t alignment, size_t bytes) override;
  void DeallocateRaw(void* ptr, size_t bytes) override;
  AllocatorStats GetStats() const override { return base_->GetStats(); }
  bool IsHostAccessible() const override { return base_->IsHostAccessible(); }
  std::string OutOfMemoryDetail(size_t bytes) const override;
  Allocator* base() const { return base_; }

 private:
  Allocator* const base_;
  const std::shared_ptr<MemoryBudget> budget_;
};

// A BudgetedAllocator that lives as long as the process (see above).
Allocator* MakeBudgetedAllocator(Allocator* base, std::shared_ptr<MemoryBudget> budget);

}  // namespace af
