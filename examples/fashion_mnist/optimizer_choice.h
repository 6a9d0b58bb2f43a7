// The optimizers --optimizer names, their default rates and the decayed
// learning rate, shared by the single-process and the cluster trainer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "client/ops.h"
#include "client/optimizers/optimizer.h"
#include "client/scope.h"

namespace af::fmnist {

// The rate an optimizer trains this model well with when --learning_rate
// is not given.
double DefaultLearningRate(const std::string& optimizer);

// adam | momentum | sgd | adagrad | rmsprop; null for any other name.
std::unique_ptr<Optimizer> MakeOptimizer(const std::string& name, double lr);

// lr * decay^(global_step / total_steps): the rate falls smoothly to
// lr * decay by the end of the run (tf.train.exponential_decay).
Output DecayedLearningRate(const Scope& root, double lr, double decay, int64_t total_steps,
                           const Output& global_step);

}  // namespace af::fmnist
