// fashion_mnist: trains the MLP or the Deep MNIST CNN on Fashion-MNIST with
// Actorflow and prints test accuracy, wall time and examples/s. The last
// stdout line is one JSON object (as ../shared/peers/torch_fmnist.py prints).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>

#include "examples/fashion_mnist/options.h"
#include "examples/fashion_mnist/trainer.h"

int main(int argc, char** argv) {
  const auto start = std::chrono::steady_clock::now();
  af::fmnist::Options options;
  bool help = false;
  af::Status s = af::fmnist::ParseOptions(argc, argv, &options, &help);
  if (help) {
    std::fputs(af::fmnist::Usage(), stdout);
    return 0;
  }
  if (!s.ok()) {
    std::fprintf(stderr, "fashion_mnist: %s\n%s", s.ToString().c_str(), af::fmnist::Usage());
    return 2;
  }
  af::fmnist::TrainReport report;
  s = af::fmnist::Train(options, &report);
  if (!s.ok()) {
    std::fprintf(stderr, "fashion_mnist: %s\n", s.ToString().c_str());
    return 1;
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  const double peak_mib = usage.ru_maxrss / 1024.0;
  const double accuracy = report.test_accuracy.empty() ? 0 : report.test_accuracy.back();
  std::printf("model %s, batch %d, %d thread(s): trained %lld examples in %.1f s (%.0f examples/s)\n",
              options.model.c_str(), options.batch, options.threads,
              static_cast<long long>(report.examples_trained), report.train_seconds,
              report.examples_per_second);
  std::printf("test accuracy %.4f after %zu epoch(s); wall time %.1f s; peak RSS %.0f MiB\n",
              accuracy, report.first_epoch + report.test_accuracy.size(), wall, peak_mib);
  std::printf("{\"model\":\"%s\",\"batch\":%d,\"threads\":%d,\"epochs\":%d,\"global_step\":%lld,"
              "\"train_ex_per_s\":%.1f,\"train_s\":%.2f,\"wall_s\":%.2f,\"peak_rss_mib\":%.1f,"
              "\"test_acc\":[",
              options.model.c_str(), options.batch, options.threads, options.epochs,
              static_cast<long long>(report.global_step), report.examples_per_second,
              report.train_seconds, wall, peak_mib);
  for (size_t i = 0; i < report.test_accuracy.size(); ++i)
    std::printf("%s%.4f", i ? "," : "", report.test_accuracy[i]);
  std::printf("],\"train_loss\":[");
  for (size_t i = 0; i < report.epoch_loss.size(); ++i)
    std::printf("%s%.4f", i ? "," : "", report.epoch_loss[i]);
  std::printf("],\"rss_mib\":[");
  for (size_t i = 0; i < report.epoch_rss_mib.size(); ++i)
    std::printf("%s%.1f", i ? "," : "", report.epoch_rss_mib[i]);
  std::printf("]}\n");
  return 0;
}
