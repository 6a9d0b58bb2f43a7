// CancellationManager: lets a step's waiting operations (Recv, queue ops)
// be woken when the step is aborted.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <unordered_map>

namespace af {

class CancellationManager {
 public:
  using Token = int64_t;
  using Callback = std::function<void()>;
  static constexpr Token kInvalidToken = -1;

  // Registers `cb` to run on StartCancel. Returns kInvalidToken if
  // cancellation already started (the caller should fail right away).
  Token Register(Callback cb);
  // Returns false if the callback already ran (or is running).
  bool Deregister(Token token);
  // Runs every registered callback once; later registrations fail.
  void StartCancel();
  bool IsCancelled() const;
  // The same without the lock, for the executor's check between nodes: a
  // relaxed load, so a cancel is seen within a node or two.
  bool CancelRequested() const { return cancel_requested_.load(std::memory_order_relaxed); }

 private:
  mutable std::mutex mu_;  // guards cancelled_, next_token_ and callbacks_
  bool cancelled_ = false;
  std::atomic<bool> cancel_requested_{false};
  Token next_token_ = 0;
  std::unordered_map<Token, Callback> callbacks_;
};

}  // namespace af
