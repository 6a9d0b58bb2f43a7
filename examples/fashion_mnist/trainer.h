// Trains one of the models of examples/models on Fashion-MNIST: builds the
// graph (input pipeline, model, optimizer, summaries, saver), resumes from
// the logdir's latest checkpoint, runs the epochs with evaluation after
// each, and reports what happened.
#pragma once

#include <vector>

#include "core/status.h"
#include "examples/fashion_mnist/options.h"

namespace af::fmnist {

struct TrainReport {
  int64_t global_step = 0;
  int64_t examples_trained = 0;   // in this run
  double train_seconds = 0;       // training loop wall time (not evaluation)
  double examples_per_second = 0;
  std::vector<double> epoch_loss;      // mean training loss per epoch
  std::vector<double> test_accuracy;   // after each epoch
  std::vector<double> epoch_rss_mib;   // resident memory after each epoch's evaluation
  int first_epoch = 0;                 // > 0 when resumed
};

Status Train(const Options& options, TrainReport* report);

}  // namespace af::fmnist
