// AccumulatorCore: the state and rules of one gradient accumulator — its
// global step, the gradients held (a GradientSum) and the takes waiting
// for enough of them — as TensorFlow's ConditionalAccumulator behaves. The
// accumulator actor runs it one message at a time, so it needs no lock,
// and it knows nothing of CAF: the actor supplies messages and timers.
//
// Every request ends exactly once, here. A take is served whole or not at
// all, so withdrawing a waiting take (deadline, cancelled step) loses no
// gradient; one that was served is delivered even if its withdrawal is on
// the way (which then finds nothing). Takes are served oldest first: a
// take that needs more gradients holds back the ones behind it, as in
// TensorFlow.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "actors/accumulator/accumulator_request.h"
#include "actors/accumulator/gradient_sum.h"
#include "actors/resources/resource_core.h"
#include "core/metrics/gauge_set.h"

namespace af::actors {

class AccumulatorCore final : public ResourceCore {
 public:
  // `dropped` counts stale gradients where other threads can read it
  // (AccumulatorInterface::dropped_gradients); `warn` gets warnings (a
  // global step set backwards).
  AccumulatorCore(AccumulatorSpec spec, std::shared_ptr<std::atomic<int64_t>> dropped,
                  std::function<void(const std::string&)> warn);
  // Fails the takes still waiting (the accumulator is going away).
  ~AccumulatorCore() override;
  AccumulatorCore(const AccumulatorCore&) = delete;
  AccumulatorCore& operator=(const AccumulatorCore&) = delete;

  // Takes a request that just arrived and serves what it can. True when
  // the request is left waiting (the actor then arms its deadline).
  bool Arrive(std::shared_ptr<AccumulatorRequest> request);
  bool Arrive(std::shared_ptr<WaitingRequest> request, int64_t /*now_ns*/) override {
    return Arrive(std::static_pointer_cast<AccumulatorRequest>(std::move(request)));
  }

  // Ends the waiting take `id` with `code` (CANCELLED or
  // DEADLINE_EXCEEDED). A take no longer waiting was served already:
  // nothing happens.
  void Withdraw(uint64_t id, Code code);
  void Withdraw(uint64_t id, Code code, int64_t /*now_ns*/) override { Withdraw(id, code); }

  void FailAll(const Status& why);

  // The stall inspector's lines for takes that arrived before
  // `waiting_since_ns` and still wait, each reported once; whether any
  // take still waits at all (for the next inspection).
  bool InspectStalls(int64_t now_ns, int64_t waiting_since_ns,
                     std::vector<std::string>* lines) override;

  const AccumulatorSpec& spec() const { return spec_; }
  int64_t global_step() const { return global_step_; }
  int32_t num_accumulated() const { return sum_ ? sum_->count() : 0; }
  int64_t dropped() const { return dropped_->load(std::memory_order_relaxed); }

 private:
  void Apply(AccumulatorRequest& request);
  void SetGlobalStep(AccumulatorRequest& request);
  // Serves waiting takes, oldest first, while the oldest has enough.
  void Flush();
  // For a stall report: whose gradients are held, and which named senders
  // have sent none for this step (with the last step each did send).
  std::string Senders() const;

  const AccumulatorSpec spec_;
  const std::string label_;
  std::unique_ptr<GradientSum> sum_;
  int64_t global_step_ = 0;
  std::shared_ptr<std::atomic<int64_t>> dropped_;
  std::function<void(const std::string&)> warn_;
  std::deque<std::shared_ptr<AccumulatorRequest>> takes_;
  // Named senders (AccumulatorTryApplyGradient's `replica`): the last
  // local step each sent, and whose gradients the sum holds now, so that
  // a stalled take can name who it still waits for.
  std::map<std::string, int64_t> last_step_of_;
  std::set<std::string> held_from_;
  metrics::GaugeSet::Member held_gauge_;  // how many gradients sum_ holds
};

}  // namespace af::actors
