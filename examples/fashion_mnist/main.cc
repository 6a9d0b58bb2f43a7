// fashion_mnist: trains the MLP or the Deep MNIST CNN on Fashion-MNIST with
// Actorflow and prints test accuracy, wall time and examples/s. The last
// stdout line is one JSON object (as bench/peers/torch_fmnist.py prints).
// Given a cluster (TF_CONFIG, or --cluster/--job/--task) it is one worker
// of a data-parallel training (examples/fashion_mnist/distributed_trainer.h).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "core/flag_spelling.h"
#include "core/logging.h"
#include "core/net/transfer_counters.h"
#include "examples/fashion_mnist/cluster_task.h"
#include "examples/fashion_mnist/distributed_trainer.h"
#include "examples/fashion_mnist/options.h"
#include "examples/fashion_mnist/trainer.h"

namespace {

double PeakResidentMiB() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

void PrintList(const char* key, const std::vector<double>& values, const char* format) {
  std::printf(",\"%s\":[", key);
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) std::printf(",");
    std::printf(format, values[i]);
  }
  std::printf("]");
}

// A worker's lines: its own figures; the chief's also every worker's, the
// global rates and the test accuracy per epoch. The last line is JSON.
void PrintDistributedReport(const af::fmnist::Options& o,
                            const af::fmnist::DistributedReport& r, double wall) {
  const af::fmnist::WorkerFigures& me = r.self;
  std::printf("%s, protocol %s, %d ps, %d workers: %lld steps, %lld examples in %.1f s "
              "(%.0f examples/s); gradients applied %lld, dropped %lld; global step %lld; "
              "%d recoveries\n",
              r.task.c_str(), r.protocol.c_str(), r.num_ps, r.num_workers,
              static_cast<long long>(me.steps), static_cast<long long>(me.examples),
              me.train_seconds, me.examples_per_second(),
              static_cast<long long>(me.gradients_applied),
              static_cast<long long>(me.gradients_dropped), static_cast<long long>(r.global_step),
              r.recoveries);
  for (size_t i = 0; i < r.workers.size(); ++i) {
    const af::fmnist::WorkerFigures& w = r.workers[i];
    std::printf("  worker %zu: %lld steps, %.0f examples/s, gradients applied %lld, dropped %lld%s\n",
                i, static_cast<long long>(w.steps), w.examples_per_second(),
                static_cast<long long>(w.gradients_applied),
                static_cast<long long>(w.gradients_dropped), w.done ? "" : " (no end reported)");
  }
  if (!r.workers.empty()) {
    std::printf("global %.0f examples/s trained, %.0f examples/s applied; test accuracy %.4f "
                "after %zu evaluation(s)\n",
                r.global_examples_per_second, r.applied_examples_per_second,
                r.test_accuracy.empty() ? 0.0 : r.test_accuracy.back(), r.test_accuracy.size());
  }
  std::printf("{\"model\":\"%s\",\"batch\":%d,\"threads\":%d,\"epochs\":%d,\"protocol\":\"%s\","
              "\"task\":\"%s\",\"ps\":%d,\"workers\":%d,\"global_step\":%lld,"
              "\"steps\":%lld,\"train_ex_per_s\":%.1f,\"train_s\":%.2f,"
              "\"gradients_applied\":%lld,\"gradients_dropped\":%lld,\"recoveries\":%d,"
              "\"recovery_s\":%.2f,\"global_steps_rolled_back\":%lld,"
              "\"wall_s\":%.2f,\"peak_rss_mib\":%.1f",
              o.model.c_str(), o.batch, o.threads, o.epochs, r.protocol.c_str(), r.task.c_str(),
              r.num_ps, r.num_workers, static_cast<long long>(r.global_step),
              static_cast<long long>(me.steps), me.examples_per_second(), me.train_seconds,
              static_cast<long long>(me.gradients_applied),
              static_cast<long long>(me.gradients_dropped), r.recoveries, r.recovery_seconds,
              static_cast<long long>(r.global_steps_rolled_back), wall, PeakResidentMiB());
  // Tensor bytes this process moved over the data plane (docs/clusters.md),
  // where nearly all of a worker's traffic goes.
  const af::net::TransferCounters& moved = af::net::TransferCounters::Global();
  std::printf(",\"data_plane_bytes_sent\":%llu,\"data_plane_bytes_received\":%llu",
              static_cast<unsigned long long>(moved.bytes_sent.load()),
              static_cast<unsigned long long>(moved.bytes_received.load()));
  if (!r.workers.empty()) {
    std::printf(",\"global_train_ex_per_s\":%.1f,\"global_applied_ex_per_s\":%.1f",
                r.global_examples_per_second, r.applied_examples_per_second);
    std::vector<double> steps, rates, applied, dropped;
    for (const auto& w : r.workers) {
      steps.push_back(static_cast<double>(w.steps));
      rates.push_back(w.examples_per_second());
      applied.push_back(static_cast<double>(w.gradients_applied));
      dropped.push_back(static_cast<double>(w.gradients_dropped));
    }
    PrintList("worker_steps", steps, "%.0f");
    PrintList("worker_ex_per_s", rates, "%.1f");
    PrintList("worker_gradients_applied", applied, "%.0f");
    PrintList("worker_gradients_dropped", dropped, "%.0f");
    PrintList("test_acc", r.test_accuracy, "%.4f");
  }
  std::printf("}\n");
}

}  // namespace

int main(int argc, char** argv) {
  const auto start = std::chrono::steady_clock::now();
  af::SnakeCaseFlags(argc, argv);
  if (std::string error; !af::ConsumeLogLevelFlag(&argc, argv, &error)) {
    std::fprintf(stderr, "%s: %s\n", argv[0], error.c_str());
    return 2;
  }
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
  af::fmnist::ClusterTask task;
  bool distributed = false;
  s = af::fmnist::FindClusterTask(options, &task, &distributed);
  if (!s.ok()) {
    AF_LOG(ERROR) << s.ToString();
    return 2;
  }
  if (distributed) {
    af::fmnist::DistributedReport report;
    s = af::fmnist::TrainDistributed(options, task, &report);
    if (!s.ok()) {
      AF_LOG(ERROR) << task.name() << ": " << s.ToString();
      return 1;
    }
    PrintDistributedReport(
        options, report,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return 0;
  }
  af::fmnist::TrainReport report;
  s = af::fmnist::Train(options, &report);
  if (!s.ok()) {
    AF_LOG(ERROR) << s.ToString();
    return 1;
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double peak_mib = PeakResidentMiB();
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
