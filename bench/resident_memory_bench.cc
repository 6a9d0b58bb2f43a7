// bench_resident_memory: resident memory of the Fashion-MNIST trainer after
// each epoch's evaluation, for a job long enough to show a leak or creeping
// fragmentation (issue: "memory that stays flat"). Prints one JSON line per
// epoch and the spread from epoch 2 on (the first epochs fill the buffer
// cache and the step-plan cache).
//
//   bench_resident_memory [--model mlp] [--epochs 30] [any trainer flag]
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/allocator.h"
#include "examples/fashion_mnist/options.h"
#include "examples/fashion_mnist/trainer.h"

int main(int argc, char** argv) {
  using namespace af;
  fmnist::Options options;
  options.model = "mlp";
  options.epochs = 30;
  options.progress = false;
  bool help = false;
  bench::CheckOk(fmnist::ParseOptions(argc, argv, &options, &help), "flags");
  if (help) {
    std::printf("%s", fmnist::Usage());
    return 0;
  }
  fmnist::TrainReport report;
  bench::CheckOk(fmnist::Train(options, &report), "training");
  const std::string extra = "\"model\":\"" + options.model + "\"";
  const std::vector<double>& rss = report.epoch_rss_mib;
  for (size_t i = 0; i < rss.size(); ++i) {
    bench::PrintResult("resident_memory", "epoch_" + std::to_string(report.first_epoch + i + 1),
                       extra, "rss", rss[i], "MiB");
  }
  if (rss.size() > 2) {
    const auto [low, high] = std::minmax_element(rss.begin() + 1, rss.end());
    bench::PrintResult("resident_memory", "epochs_2_to_" + std::to_string(rss.size()), extra,
                       "spread", *high - *low, "MiB");
    bench::PrintResult("resident_memory", "epochs_2_to_" + std::to_string(rss.size()), extra,
                       "growth", rss.back() - rss[1], "MiB");
  }
  const AllocatorStats stats = GetCpuAllocator()->GetStats();
  bench::PrintResult("resident_memory", "end", extra, "tensor_bytes_cached",
                     static_cast<double>(stats.bytes_cached) / (1 << 20), "MiB");
  bench::PrintResult("resident_memory", "end", extra, "tensor_peak_in_use",
                     static_cast<double>(stats.peak_bytes_in_use) / (1 << 20), "MiB");
  return 0;
}
