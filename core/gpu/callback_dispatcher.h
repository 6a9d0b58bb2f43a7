// Runs host callbacks of GPU streams on a thread of their own, in the order
// they arrive. CUDA forbids calling into the runtime from a stream callback,
// and a completed copy's callback goes on to run kernels (the executor
// continues where the value arrives), so both backends hop here first.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace af::gpu {

class CallbackDispatcher {
 public:
  CallbackDispatcher();
  ~CallbackDispatcher();  // runs what is queued, then stops
  CallbackDispatcher(const CallbackDispatcher&) = delete;
  CallbackDispatcher& operator=(const CallbackDispatcher&) = delete;

  void Post(std::function<void()> fn);

 private:
  void Loop();

  std::mutex mu_;  // guards queue_ and stopping_
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

}  // namespace af::gpu
