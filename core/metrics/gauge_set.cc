#include "core/metrics/gauge_set.h"

#include <algorithm>
#include <map>

#include "core/metrics/metrics_registry.h"

namespace af::metrics {

GaugeSet::Member& GaugeSet::Member::operator=(Member&& other) noexcept {
  if (this != &other) {
    Reset();
    set_ = std::exchange(other.set_, nullptr);
    slot_ = std::exchange(other.slot_, nullptr);
  }
  return *this;
}

void GaugeSet::Member::Reset() {
  if (set_ != nullptr) set_->Unregister(slot_);
  set_ = nullptr;
  slot_ = nullptr;
}

GaugeSet::Member GaugeSet::Register(std::string label_value) {
  auto slot = std::make_unique<Slot>();
  slot->label_value = std::move(label_value);
  Member member;
  member.set_ = this;
  member.slot_ = slot.get();
  std::lock_guard<std::mutex> lock(mu_);
  slots_.push_back(std::move(slot));
  return member;
}

void GaugeSet::Unregister(Slot* slot) {
  std::unique_ptr<Slot> gone;  // freed after the lock is let go
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find_if(slots_.begin(), slots_.end(),
                         [slot](const std::unique_ptr<Slot>& s) { return s.get() == slot; });
  if (it == slots_.end()) return;
  gone = std::move(*it);
  *it = std::move(slots_.back());
  slots_.pop_back();
}

std::vector<std::pair<std::string, double>> GaugeSet::Read() const {
  std::map<std::string, int64_t> combined;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::unique_ptr<Slot>& slot : slots_) {
      const int64_t value = slot->value.load(std::memory_order_relaxed);
      auto [it, fresh] = combined.emplace(slot->label_value, value);
      if (fresh) continue;
      it->second = combine_ == Combine::kSum ? it->second + value : std::max(it->second, value);
    }
  }
  std::vector<std::pair<std::string, double>> series;
  series.reserve(combined.size());
  for (const auto& [label_value, value] : combined) {
    series.emplace_back(label_value, render_ ? render_(value) : static_cast<double>(value));
  }
  return series;
}

GaugeSet* NewRegisteredGaugeSet(const std::string& name, const std::string& help,
                                const std::string& label_name, GaugeSet::Combine combine,
                                GaugeSet::Render render) {
  auto* set = new GaugeSet(combine, std::move(render));
  MetricsRegistry::Global().SetLabeledGauge(name, help, label_name, [set] { return set->Read(); });
  return set;
}

}  // namespace af::metrics
