#include "actors/accumulator/accumulator_core.h"

#include <algorithm>
#include <utility>

#include "core/metrics/metrics_registry.h"
#include "core/metrics/runtime_gauges.h"

namespace af::actors {

using Kind = AccumulatorRequest::Kind;

AccumulatorCore::AccumulatorCore(AccumulatorSpec spec,
                                 std::shared_ptr<std::atomic<int64_t>> dropped,
                                 std::function<void(const std::string&)> warn)
    : spec_(std::move(spec)),
      label_(AccumulatorLabel(spec_)),
      sum_(MakeGradientSum(spec_)),
      dropped_(dropped ? std::move(dropped) : std::make_shared<std::atomic<int64_t>>(0)),
      warn_(std::move(warn)),
      held_gauge_(metrics::AccumulatorHolds()->Register(spec_.name)) {}

AccumulatorCore::~AccumulatorCore() { FailAll(errors::Cancelled(label_, " was destroyed")); }

bool AccumulatorCore::Arrive(std::shared_ptr<AccumulatorRequest> request) {
  // Held to the end: serving the request may drop the deque's reference.
  const std::shared_ptr<AccumulatorRequest> keep = request;
  AccumulatorRequest& r = *request;
  if (sum_ == nullptr) {
    r.Finish(errors::InvalidArgument(label_, ": accumulators of ", DataTypeString(spec_.dtype),
                                     " are not supported (half, float, double)"));
    return false;
  }
  switch (r.kind) {
    case Kind::kApply:
      Apply(r);
      return false;
    case Kind::kSetGlobalStep:
      SetGlobalStep(r);
      return false;
    case Kind::kNumAccumulated:
      r.Finish(Status::OK(), {}, sum_->count());
      return false;
    case Kind::kTake:
      if (r.withdraw_requested.load(std::memory_order_acquire)) {
        r.Finish(r.CancelledStatus());
        return false;
      }
      if (r.num_required < 1) {
        r.Finish(errors::InvalidArgument("Argument num_required must be positive, but was ",
                                         r.num_required));
        return false;
      }
      takes_.push_back(std::move(request));
      Flush();
      return !r.finished;
  }
  return false;
}

void AccumulatorCore::Apply(AccumulatorRequest& r) {
  // TensorFlow drops a stale gradient before looking at it; so do we, but
  // we count it.
  // A surplus is dropped the same way: the step already has the gradients
  // its take will average (AccumulatorTryApplyGradient's cap).
  const bool surplus = r.max_accumulated > 0 && sum_->count() >= r.max_accumulated;
  if (!r.replica.empty()) {
    int64_t& last = last_step_of_[r.replica];
    last = std::max(last, r.step);
  }
  if (r.step < global_step_ || surplus) {
    dropped_->fetch_add(1, std::memory_order_relaxed);
    static metrics::Counter* const dropped_here = metrics::MetricsRegistry::Global().GetCounter(
        "actorflow_accumulator_gradients_dropped_total",
        "Gradients this process's accumulators dropped: stale, or beyond the step's count.");
    dropped_here->Add();
    r.Finish(Status::OK(), {}, 0, false);
    return;
  }
  Status s = sum_->Add(r.gradient);
  if (!s.ok()) {
    r.Finish(s.WithContext(label_));
    return;
  }
  if (!r.replica.empty()) held_from_.insert(r.replica);
  r.Finish(Status::OK(), {}, 0, true);
  Flush();
}

void AccumulatorCore::SetGlobalStep(AccumulatorRequest& r) {
  if (r.step < global_step_ && warn_) {
    warn_(label_ + ": global step set back from " + std::to_string(global_step_) + " to " +
          std::to_string(r.step) + " (AccumulatorSetGlobalStep; TensorFlow sets it too)");
  }
  global_step_ = r.step;
  r.Finish(Status::OK());
}

void AccumulatorCore::Flush() {
  while (!takes_.empty() && sum_->count() >= takes_.front()->num_required) {
    std::shared_ptr<AccumulatorRequest> take = std::move(takes_.front());
    takes_.pop_front();
    AccumulatorGradient result;
    Status s = sum_->Take(&result);
    if (!s.ok()) {
      take->Finish(s.WithContext(label_));
      continue;
    }
    ++global_step_;
    held_from_.clear();
    take->Finish(Status::OK(), std::move(result));
  }
  // Every change to the sum ends here: an Add is followed by a Flush.
  held_gauge_.Set(sum_->count());
}

void AccumulatorCore::Withdraw(uint64_t id, Code code) {
  auto it = std::find_if(takes_.begin(), takes_.end(), [id](const auto& r) { return r->id == id; });
  if (it == takes_.end()) return;
  std::shared_ptr<AccumulatorRequest> take = std::move(*it);
  takes_.erase(it);
  if (code == Code::DEADLINE_EXCEEDED) {
    take->Finish(errors::DeadlineExceeded("Timed out waiting to take ", take->num_required,
                                          " gradients from ", label_, " (it holds ",
                                          sum_->count(), ")"));
  } else {
    take->Finish(take->CancelledStatus());
  }
  // The place it held in line may let a smaller take through.
  Flush();
}

void AccumulatorCore::FailAll(const Status& why) {
  std::deque<std::shared_ptr<AccumulatorRequest>> takes;
  takes.swap(takes_);
  for (auto& t : takes) t->Finish(why);
}

std::string AccumulatorCore::Senders() const {
  if (last_step_of_.empty()) return "";
  std::string held, missing;
  for (const auto& [replica, step] : last_step_of_) {
    if (held_from_.count(replica) != 0) {
      held += (held.empty() ? "" : ", ") + replica;
    } else {
      missing += (missing.empty() ? "" : ", ") + replica + " (last sent a gradient of step " +
                 std::to_string(step) + ")";
    }
  }
  return "; held from: " + (held.empty() ? std::string("nobody") : held) +
         "; still waiting for: " + (missing.empty() ? std::string("nobody named") : missing);
}

bool AccumulatorCore::InspectStalls(int64_t now_ns, int64_t waiting_since_ns,
                                    std::vector<std::string>* lines) {
  for (const auto& t : takes_) {
    if (t->stall_reported || t->arrived_ns > waiting_since_ns) continue;
    t->stall_reported = true;
    const int64_t seconds = (now_ns - t->arrived_ns) / 1000000000;
    const int32_t held = sum_ ? sum_->count() : 0;
    lines->push_back(label_ + ": a take of " + std::to_string(t->num_required) +
                     " gradients has waited " + std::to_string(seconds) + " s; it holds " +
                     std::to_string(held) + " (global step " + std::to_string(global_step_) +
                     "): does anything apply gradients with local_step >= " +
                     std::to_string(global_step_) + "? " + std::to_string(dropped()) +
                     " stale gradients dropped so far" + Senders());
  }
  return !takes_.empty();
}

}  // namespace af::actors
