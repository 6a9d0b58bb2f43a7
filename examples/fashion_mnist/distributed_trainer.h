// The Fashion-MNIST trainer as one worker of a cluster: the same model as
// the single-process demo, its variables on the ps tasks (a replica device
// setter), its gradients combined by a coordination protocol (async, sync,
// backup:B, ssp:S), inside a MonitoredTrainingSession that survives tasks
// dying. Worker 0 is the chief: it initializes or restores, checkpoints,
// evaluates after each epoch and gathers every worker's figures.
//
// An epoch is 60,000 examples *applied* to the model: 60000 / (batch * k)
// global steps, where k = the gradients one global step averages (n for
// sync, n - B for backup:B, 1 for async and ssp). Each worker draws its
// batches from its own shuffle of the training set (seeded by its task).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "examples/fashion_mnist/cluster_task.h"
#include "examples/fashion_mnist/options.h"

namespace af::fmnist {

// One worker's figures, as it reported them to the chief (through a
// variable on the first ps task).
struct WorkerFigures {
  int64_t steps = 0;
  int64_t examples = 0;
  int64_t gradients_applied = 0;
  int64_t gradients_dropped = 0;
  double train_seconds = 0;
  bool done = false;  // the worker left its training loop
  double examples_per_second() const { return train_seconds > 0 ? examples / train_seconds : 0; }
};

struct DistributedReport {
  std::string protocol;
  std::string task;  // "/job:worker/replica:0/task:1"
  int num_workers = 0;
  int num_ps = 0;
  int64_t first_global_step = 0;  // > 0 when the chief restored a checkpoint
  int64_t global_step = 0;        // when this worker stopped
  WorkerFigures self;
  std::string ps_load;  // the device setter's bytes per ps task
  // The chief only:
  std::vector<WorkerFigures> workers;  // every worker's, index = task
  // Over the chief's training time (its evaluations left out): every
  // worker's examples, and the examples the global steps applied.
  double global_examples_per_second = 0;
  double applied_examples_per_second = 0;
  std::vector<double> test_accuracy;       // after each epoch
  int recoveries = 0;
  // Global steps lost to recoveries: how far the global step went back
  // when a restore (from the checkpoint or the shard replicas) replaced
  // what a lost ps task held, summed; and the seconds the recoveries took.
  int64_t global_steps_rolled_back = 0;
  double recovery_seconds = 0;
};

Status TrainDistributed(const Options& options, const ClusterTask& task, DistributedReport* report);

}  // namespace af::fmnist
