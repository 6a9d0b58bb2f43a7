// The process's metrics, for a server's Prometheus endpoint
// (core/metrics/http_endpoint.h): counters and histograms updated with
// relaxed atomics where the work happens, and gauges read only when
// scraped. Metrics are created once and live for the process, so the hot
// paths keep a pointer and never look a name up. No CAF here.
//
// Names and the text format follow Prometheus' conventions
// (https://prometheus.io/docs/instrumenting/exposition_formats/): counters
// end in _total, durations are seconds, sizes bytes.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace af::metrics {

class Counter {
 public:
  void Add(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

// Cumulative buckets with fixed upper bounds, as Prometheus' histograms.
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void Observe(double value);
  const std::vector<double>& bounds() const { return bounds_; }
  // Counts per bucket (not cumulative; the last is +Inf), the sum, the count.
  std::vector<uint64_t> BucketCounts() const;
  double sum() const;
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // bounds_.size() + 1
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> sum_micros_{0};  // the sum, in millionths
};

class MetricsRegistry {
 public:
  static MetricsRegistry& Global();

  // The counter `name` with these labels ({"peer", "10.0.0.2:2223"}, ...),
  // made at the first call. `help` is kept from the first call of a name.
  Counter* GetCounter(const std::string& name, const std::string& help,
                      const std::vector<std::pair<std::string, std::string>>& labels = {});
  Histogram* GetHistogram(const std::string& name, const std::string& help,
                          const std::vector<double>& bounds);
  // A gauge read when scraped; a second registration of `name` replaces it.
  void SetGauge(const std::string& name, const std::string& help, std::function<double()> read);
  // A counter kept elsewhere (an existing atomic), read when scraped.
  void SetCounterReader(const std::string& name, const std::string& help,
                        std::function<double()> read);
  // A gauge family read when scraped: `read` gives (label value, value)
  // pairs, one series each, labelled `label_name`; label values must be
  // distinct. None: the family is listed without series. A second
  // registration of `name` replaces it. core/metrics/gauge_set.h keeps
  // such series for things that come and go.
  using LabeledValues = std::vector<std::pair<std::string, double>>;
  void SetLabeledGauge(const std::string& name, const std::string& help,
                       const std::string& label_name, std::function<LabeledValues()> read);

  // Every metric in Prometheus' text format 0.0.4.
  std::string Exposition() const;

 private:
  struct Family {
    std::string help;
    std::string type;  // counter, gauge, histogram
    std::map<std::string, std::unique_ptr<Counter>> counters;  // by rendered labels
    std::unique_ptr<Histogram> histogram;
    std::function<double()> read;  // a gauge, or a counter kept elsewhere
    // A labeled gauge: its label's name and its reader.
    std::string label_name;
    std::function<LabeledValues()> read_labeled;
  };
  void SetReader(const std::string& name, const std::string& help, const char* type,
                 std::function<double()> read);
  mutable std::mutex mu_;
  std::map<std::string, Family> families_;
};

// A label value with Prometheus' escapes (backslash, quote, newline).
std::string EscapeLabelValue(const std::string& value);

// Seconds-scale bounds for step latencies: 100 us to 100 s.
std::vector<double> StepLatencyBounds();

}  // namespace af::metrics
