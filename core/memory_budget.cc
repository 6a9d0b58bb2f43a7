#include "core/memory_budget.h"

namespace af {

bool MemoryBudget::TryCharge(size_t bytes) {
  const int64_t n = static_cast<int64_t>(bytes);
  int64_t used = in_use_.load(std::memory_order_relaxed);
  do {
    if (n > limit_ - used) return false;
  } while (!in_use_.compare_exchange_weak(used, used + n, std::memory_order_relaxed));
  return true;
}

void MemoryBudget::Release(size_t bytes) {
  in_use_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
}

std::string BudgetedAllocator::Name() const { return base_->Name() + " (budgeted)"; }

void* BudgetedAllocator::AllocateRaw(size_t alignment, size_t bytes) {
  if (!budget_->TryCharge(bytes)) return nullptr;
  void* ptr = base_->AllocateRaw(alignment, bytes);
  if (ptr == nullptr) budget_->Release(bytes);
  return ptr;
}

void BudgetedAllocator::DeallocateRaw(void* ptr, size_t bytes) {
  base_->DeallocateRaw(ptr, bytes);
  budget_->Release(bytes);
}

std::string BudgetedAllocator::OutOfMemoryDetail(size_t bytes) const {
  if (static_cast<int64_t>(bytes) > budget_->limit() - budget_->in_use()) {
    return "; " + budget_->owner() + " holds " + std::to_string(budget_->in_use()) +
           " bytes of its " + std::to_string(budget_->limit()) +
           "-byte budget (--session_memory_limit)";
  }
  return base_->OutOfMemoryDetail(bytes);
}

Allocator* MakeBudgetedAllocator(Allocator* base, std::shared_ptr<MemoryBudget> budget) {
  return new BudgetedAllocator(base, std::move(budget));  // never freed: see the header
}

}  // namespace af
