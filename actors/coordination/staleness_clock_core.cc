#include "actors/coordination/staleness_clock_core.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <utility>

namespace af::actors {
namespace {

std::string Seconds(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ns) / 1e9);
  return buf;
}

}  // namespace

StalenessClockCore::StalenessClockCore(StalenessClockSpec spec, int64_t now_ns,
                                       std::function<void(const std::string&)> log)
    : spec_(std::move(spec)),
      label_(StalenessClockLabel(spec_)),
      inactive_after_ns_(spec_.inactive_after_ms > 0 ? spec_.inactive_after_ms * 1000000 : 0),
      log_(std::move(log)),
      clocks_(std::max(spec_.num_workers, 1), 0),
      last_tick_ns_(clocks_.size(), now_ns),
      active_(clocks_.size(), true) {}

StalenessClockCore::~StalenessClockCore() { FailAll(errors::Cancelled(label_, " was destroyed")); }

bool StalenessClockCore::Arrive(std::shared_ptr<ClockTickRequest> request, int64_t now_ns) {
  ClockTickRequest& r = *request;
  if (r.worker < 0 || r.worker >= static_cast<int32_t>(clocks_.size())) {
    r.Finish(errors::InvalidArgument(label_, ": worker ", r.worker, " is out of range (",
                                     clocks_.size(), " workers)"));
    return false;
  }
  UpdateActivity(now_ns);
  const int32_t w = r.worker;
  if (active_[w]) {
    ++clocks_[w];
  } else {
    // Rejoining: it starts level with the slowest worker that kept going,
    // so it neither holds the others back nor runs ahead of the bound.
    active_[w] = true;
    const int64_t was = clocks_[w];
    int64_t slowest = std::numeric_limits<int64_t>::max();
    for (size_t v = 0; v < clocks_.size(); ++v) {
      if (static_cast<int32_t>(v) != w && active_[v]) slowest = std::min(slowest, clocks_[v]);
    }
    clocks_[w] = slowest == std::numeric_limits<int64_t>::max()
                     ? was + 1
                     : std::max(was + 1, slowest);
    if (log_) {
      log_(label_ + ": worker " + std::to_string(w) + " rejoins at clock " +
           std::to_string(clocks_[w]) + " (it had finished " + std::to_string(was) + " steps)");
    }
  }
  last_tick_ns_[w] = now_ns;
  r.clock = clocks_[w];
  r.arrived_ns = now_ns;
  // Held to the end: letting it go may drop the list's reference.
  const std::shared_ptr<ClockTickRequest> keep = request;
  if (r.withdraw_requested.load(std::memory_order_acquire)) {
    r.Finish(r.CancelledStatus());
  } else {
    waiting_.push_back(std::move(request));
  }
  // This tick may have been the one the others waited for.
  Release(now_ns);
  return !r.finished;
}

void StalenessClockCore::UpdateActivity(int64_t now_ns) {
  if (inactive_after_ns_ == 0) return;
  // A worker whose tick waits is not silent: it waits on the others.
  std::vector<bool> waiting(clocks_.size(), false);
  for (const auto& r : waiting_) waiting[r->worker] = true;
  for (size_t v = 0; v < clocks_.size(); ++v) {
    if (!active_[v] || waiting[v] || now_ns - last_tick_ns_[v] <= inactive_after_ns_) continue;
    active_[v] = false;
    if (log_) {
      log_(label_ + ": worker " + std::to_string(v) + " left out of the minimum: no tick for " +
           Seconds(now_ns - last_tick_ns_[v]) + " (its clock " + std::to_string(clocks_[v]) +
           "); the others go on without it");
    }
  }
}

int32_t StalenessClockCore::SlowestActiveWorker() const {
  int32_t slowest = -1;
  for (size_t v = 0; v < clocks_.size(); ++v) {
    if (active_[v] && (slowest < 0 || clocks_[v] < clocks_[slowest])) {
      slowest = static_cast<int32_t>(v);
    }
  }
  return slowest;
}

int64_t StalenessClockCore::MinActiveClock() const {
  const int32_t slowest = SlowestActiveWorker();
  return slowest < 0 ? 0 : clocks_[slowest];
}

void StalenessClockCore::Release(int64_t now_ns) {
  const int64_t bound = MinActiveClock() + spec_.staleness;
  std::vector<std::shared_ptr<ClockTickRequest>> ready;
  auto it = std::stable_partition(waiting_.begin(), waiting_.end(),
                                  [bound](const auto& r) { return r->clock > bound; });
  ready.assign(std::make_move_iterator(it), std::make_move_iterator(waiting_.end()));
  waiting_.erase(it, waiting_.end());
  for (auto& r : ready) {
    // It waited on the others, it was not silent: its silence starts now.
    last_tick_ns_[r->worker] = now_ns;
    r->Finish(Status::OK());
  }
}

void StalenessClockCore::Recheck(int64_t now_ns) {
  UpdateActivity(now_ns);
  Release(now_ns);
}

int64_t StalenessClockCore::NextRecheckNs() const {
  if (waiting_.empty() || inactive_after_ns_ == 0) return 0;
  int64_t highest = 0;
  std::vector<bool> waiting(clocks_.size(), false);
  for (const auto& r : waiting_) {
    highest = std::max(highest, r->clock);
    waiting[r->worker] = true;
  }
  // Only a silent worker that holds some tick back matters.
  int64_t next = 0;
  for (size_t v = 0; v < clocks_.size(); ++v) {
    if (!active_[v] || waiting[v] || highest - clocks_[v] <= spec_.staleness) continue;
    const int64_t at = last_tick_ns_[v] + inactive_after_ns_ + 1;
    if (next == 0 || at < next) next = at;
  }
  return next;
}

void StalenessClockCore::Withdraw(uint64_t id, Code code, int64_t now_ns) {
  auto it = std::find_if(waiting_.begin(), waiting_.end(),
                         [id](const auto& r) { return r->id == id; });
  if (it == waiting_.end()) return;
  std::shared_ptr<ClockTickRequest> tick = std::move(*it);
  waiting_.erase(it);
  last_tick_ns_[tick->worker] = now_ns;  // silent from now on, not from its tick
  if (code == Code::DEADLINE_EXCEEDED) {
    tick->Finish(errors::DeadlineExceeded("Timed out waiting on ", label_, ": ",
                                          Describe(*tick, now_ns)));
  } else {
    tick->Finish(tick->CancelledStatus());
  }
}

std::string StalenessClockCore::Describe(const ClockTickRequest& r, int64_t now_ns) const {
  const int32_t slowest = SlowestActiveWorker();
  std::string what = "worker " + std::to_string(r.worker) + " at clock " +
                     std::to_string(r.clock) + " may be at most " +
                     std::to_string(spec_.staleness) + " steps ahead of the slowest active worker";
  if (slowest >= 0) {
    what += ", worker " + std::to_string(slowest) + " at clock " +
            std::to_string(clocks_[slowest]) + " (last tick " +
            Seconds(now_ns - last_tick_ns_[slowest]) + " ago)";
  }
  return what;
}

void StalenessClockCore::FailAll(const Status& why) {
  std::vector<std::shared_ptr<ClockTickRequest>> waiting;
  waiting.swap(waiting_);
  for (auto& r : waiting) r->Finish(why);
}

bool StalenessClockCore::InspectStalls(int64_t now_ns, int64_t waiting_since_ns,
                                       std::vector<std::string>* lines) {
  for (const auto& r : waiting_) {
    if (r->stall_reported || r->arrived_ns > waiting_since_ns) continue;
    r->stall_reported = true;
    lines->push_back(label_ + ": a tick has waited " +
                     std::to_string((now_ns - r->arrived_ns) / 1000000000) +
                     " s: " + Describe(*r, now_ns));
  }
  return !waiting_.empty();
}

}  // namespace af::actors
