// A gauge family with one series per label value, for things that come and
// go while the process runs (queues, accumulators, the tasks a master
// heartbeats). A scrape runs on the HTTP endpoint's thread and must not
// reach into an actor's state, so each live thing holds a Member: a slot
// its owner writes with a relaxed atomic store where the number changes
// anyway, and the scrape reads. Registering and unregistering a member (at
// creation and destruction: rare) take the set's lock; Set never does.
//
// Members that share a label value (the private queues of two sessions
// made from one node, or two sessions' masters watching one task) are one
// series: their values combined as the set says. No CAF here.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace af::metrics {

class GaugeSet {
 public:
  enum class Combine {
    kSum,  // how much all of them hold together
    kMax,  // the largest: e.g. the latest of several timestamps
  };
  // Turns a series' combined raw value into the number exposed (null: the
  // value itself). Runs at scrape time: a timestamp can become an age.
  using Render = std::function<double(int64_t)>;

 private:
  struct Slot {
    std::string label_value;
    std::atomic<int64_t> value{0};
  };

 public:
  // One live thing's series; unregisters when destroyed. A default-made
  // member belongs to no set and ignores Set (a thing left out, e.g. an
  // unbounded queue from the capacities).
  class Member {
   public:
    Member() = default;
    ~Member() { Reset(); }
    Member(Member&& other) noexcept { *this = std::move(other); }
    Member& operator=(Member&& other) noexcept;
    Member(const Member&) = delete;
    Member& operator=(const Member&) = delete;

    void Set(int64_t value) {
      if (slot_ != nullptr) slot_->value.store(value, std::memory_order_relaxed);
    }
    // Unregisters now (the thing is gone before its holder is).
    void Reset();

   private:
    friend class GaugeSet;
    GaugeSet* set_ = nullptr;
    Slot* slot_ = nullptr;
  };

  explicit GaugeSet(Combine combine, Render render = nullptr)
      : combine_(combine), render_(std::move(render)) {}
  GaugeSet(const GaugeSet&) = delete;
  GaugeSet& operator=(const GaugeSet&) = delete;

  // A new member whose series is labelled `label_value`, at 0 until Set.
  Member Register(std::string label_value);

  // Every series: label value and rendered value, sorted by label value.
  std::vector<std::pair<std::string, double>> Read() const;

 private:
  void Unregister(Slot* slot);

  const Combine combine_;
  const Render render_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Slot>> slots_;
};

// A set exported as the gauge family `name` of MetricsRegistry::Global(),
// its series labelled `label_name`. It lives for the process, as the
// registry's metrics do: keep the pointer, never delete it.
GaugeSet* NewRegisteredGaugeSet(const std::string& name, const std::string& help,
                                const std::string& label_name, GaugeSet::Combine combine,
                                GaugeSet::Render render = nullptr);

}  // namespace af::metrics
