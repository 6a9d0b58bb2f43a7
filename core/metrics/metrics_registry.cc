#include "core/metrics/metrics_registry.h"

#include <algorithm>
#include <cmath>
#include <charconv>

namespace af::metrics {

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)),
      buckets_(std::make_unique<std::atomic<uint64_t>[]>(bounds_.size() + 1)) {
  std::sort(bounds_.begin(), bounds_.end());
  for (size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0);
}

void Histogram::Observe(double value) {
  const size_t bucket =
      std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
  buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  if (value > 0) {
    sum_micros_.fetch_add(static_cast<uint64_t>(std::llround(value * 1e6)),
                          std::memory_order_relaxed);
  }
}

std::vector<uint64_t> Histogram::BucketCounts() const {
  std::vector<uint64_t> counts(bounds_.size() + 1);
  for (size_t i = 0; i < counts.size(); ++i) {
    counts[i] = buckets_[i].load(std::memory_order_relaxed);
  }
  return counts;
}

double Histogram::sum() const {
  return static_cast<double>(sum_micros_.load(std::memory_order_relaxed)) / 1e6;
}

MetricsRegistry& MetricsRegistry::Global() {
  static MetricsRegistry* const registry = new MetricsRegistry();
  return *registry;
}

std::string EscapeLabelValue(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

std::string RenderLabels(const std::vector<std::pair<std::string, std::string>>& labels) {
  if (labels.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += ",";
    out += labels[i].first + "=\"" + EscapeLabelValue(labels[i].second) + "\"";
  }
  return out + "}";
}

std::string Number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  char buffer[64];
  // The shortest text that reads back as the same double (0.00025, not
  // 0.00025000000000000001).
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
  return std::string(buffer, end);
}

}  // namespace

Counter* MetricsRegistry::GetCounter(
    const std::string& name, const std::string& help,
    const std::vector<std::pair<std::string, std::string>>& labels) {
  std::lock_guard<std::mutex> lock(mu_);
  Family& family = families_[name];
  if (family.type.empty()) {
    family.type = "counter";
    family.help = help;
  }
  std::unique_ptr<Counter>& counter = family.counters[RenderLabels(labels)];
  if (!counter) counter = std::make_unique<Counter>();
  return counter.get();
}

Histogram* MetricsRegistry::GetHistogram(const std::string& name, const std::string& help,
                                         const std::vector<double>& bounds) {
  std::lock_guard<std::mutex> lock(mu_);
  Family& family = families_[name];
  if (!family.histogram) {
    family.type = "histogram";
    family.help = help;
    family.histogram = std::make_unique<Histogram>(bounds);
  }
  return family.histogram.get();
}

void MetricsRegistry::SetReader(const std::string& name, const std::string& help,
                                const char* type, std::function<double()> read) {
  std::lock_guard<std::mutex> lock(mu_);
  Family& family = families_[name];
  family.type = type;
  family.help = help;
  family.read = std::move(read);
  family.read_labeled = nullptr;
}

void MetricsRegistry::SetGauge(const std::string& name, const std::string& help,
                               std::function<double()> read) {
  SetReader(name, help, "gauge", std::move(read));
}

void MetricsRegistry::SetCounterReader(const std::string& name, const std::string& help,
                                       std::function<double()> read) {
  SetReader(name, help, "counter", std::move(read));
}

void MetricsRegistry::SetLabeledGauge(const std::string& name, const std::string& help,
                                      const std::string& label_name,
                                      std::function<LabeledValues()> read) {
  std::lock_guard<std::mutex> lock(mu_);
  Family& family = families_[name];
  family.type = "gauge";
  family.help = help;
  family.read = nullptr;
  family.label_name = label_name;
  family.read_labeled = std::move(read);
}

std::string MetricsRegistry::Exposition() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  for (const auto& [name, family] : families_) {
    out += "# HELP " + name + " " + family.help + "\n";
    out += "# TYPE " + name + " " + family.type + "\n";
    if (family.read) {
      out += name + " " + Number(family.read()) + "\n";
    } else if (family.read_labeled) {
      LabeledValues series = family.read_labeled();
      // Sorted, so that consecutive scrapes list the series alike.
      std::sort(series.begin(), series.end());
      for (const auto& [value, number] : series) {
        out += name + RenderLabels({{family.label_name, value}}) + " " + Number(number) + "\n";
      }
    } else if (family.type == "counter") {
      for (const auto& [labels, counter] : family.counters) {
        out += name + labels + " " + std::to_string(counter->value()) + "\n";
      }
    } else if (family.histogram) {
      const Histogram& h = *family.histogram;
      const std::vector<uint64_t> counts = h.BucketCounts();
      uint64_t cumulative = 0;
      for (size_t i = 0; i < counts.size(); ++i) {
        cumulative += counts[i];
        const std::string le = i < h.bounds().size() ? Number(h.bounds()[i]) : "+Inf";
        out += name + "_bucket{le=\"" + le + "\"} " + std::to_string(cumulative) + "\n";
      }
      out += name + "_sum " + Number(h.sum()) + "\n";
      out += name + "_count " + std::to_string(cumulative) + "\n";
    }
  }
  return out;
}

std::vector<double> StepLatencyBounds() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
          0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,    10,   25, 100};
}

}  // namespace af::metrics
