// The language model as one worker of a cluster (TF_CONFIG, as `actorflow
// cluster` sets it): the partitioned tables and the LSTM on the ps tasks
// (a replica device setter, greedy by bytes, so each table's shards spread
// over them), the gradients combined by a coordination protocol (async,
// sync, backup:B) — sparse ones through sparse accumulators — inside a
// MonitoredTrainingSession. Worker 0 is the chief: it initializes and, at
// the end, measures the held-out perplexity.
//
//   actorflow cluster --ps 2 --workers 3 -- language_model --protocol backup:1 ...
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cluster_spec.h"
#include "core/status.h"
#include "examples/language_model/lm_trainer.h"

namespace af::lm {

struct DistributedOptions {
  std::string protocol = "sync";
  int64_t sync_timeout_ms = 30000;
  // A cluster given here instead of TF_CONFIG, such as a virtual cluster's
  // ClientSpec("worker", task) (actors/virtual_cluster.h): this client is
  // worker `task` of it, and its compute runs on that task's device.
  std::optional<ClusterSpec> cluster;
  int task = 0;
  // How long a task may leave heartbeats unanswered before it is lost
  // (0: SessionOptions' default).
  int64_t worker_lost_after_ms = 0;
};

struct DistributedReport {
  std::string task;
  int num_ps = 0, num_workers = 0;
  int64_t steps = 0, words = 0;  // this worker's
  // The steps after the first (which sets the graph up): their words and time.
  int64_t timed_words = 0;
  double train_seconds = 0;
  double words_per_second() const { return train_seconds > 0 ? timed_words / train_seconds : 0; }
  int64_t global_step = 0;
  int64_t gradients_applied = 0, gradients_dropped = 0;  // this worker's, per variable
  int64_t variables_with_gradients = 0;
  std::string ps_load;                // bytes per ps task
  // Per ps task, the mean bytes a timed step sent to it and received from
  // it (RunMetadata::traffic): rows, not tables, when the gradients are
  // sparse.
  struct PsTraffic {
    std::string task;
    double bytes_to = 0, bytes_from = 0;
  };
  std::vector<PsTraffic> ps_traffic;
  double final_perplexity = 0;        // the chief only
  double unigram_perplexity = 0;
};

// `found` is false (and OK) when TF_CONFIG names no cluster.
Status FindLmClusterTask(std::string* job, int* index, bool* found);

Status TrainLanguageModelDistributed(const TrainOptions& options,
                                     const DistributedOptions& distributed,
                                     DistributedReport* report);

}  // namespace af::lm
