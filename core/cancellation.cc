#include "core/cancellation.h"

#include <vector>

namespace af {

CancellationManager::Token CancellationManager::Register(Callback cb) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_) return kInvalidToken;
  const Token token = next_token_++;
  callbacks_.emplace(token, std::move(cb));
  return token;
}

bool CancellationManager::Deregister(Token token) {
  std::lock_guard<std::mutex> lock(mu_);
  return callbacks_.erase(token) > 0;
}

void CancellationManager::StartCancel() {
  std::unordered_map<Token, Callback> to_run;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_) return;
    cancelled_ = true;
    cancel_requested_.store(true, std::memory_order_relaxed);
    to_run.swap(callbacks_);
  }
  // Outside the lock: callbacks may complete kernels that touch this manager.
  for (auto& [token, cb] : to_run) cb();
}

bool CancellationManager::IsCancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancelled_;
}

}  // namespace af
