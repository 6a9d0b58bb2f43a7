#include "examples/fashion_mnist/optimizer_choice.h"

#include <algorithm>

#include "client/optimizers/optimizer_by_name.h"
#include "client/optimizers/optimizers.h"
#include "client/standard_ops.h"

namespace af::fmnist {

double DefaultLearningRate(const std::string& optimizer) {
  if (optimizer == "sgd") return 0.1;
  if (optimizer == "momentum") return 0.01;
  if (optimizer == "adagrad") return 0.05;
  return 1e-3;  // adam, rmsprop
}

std::unique_ptr<Optimizer> MakeOptimizer(const std::string& name, double lr) {
  return OptimizerByName(name, lr);
}

Output DecayedLearningRate(const Scope& root, double lr, double decay, int64_t total_steps,
                           const Output& global_step) {
  Scope scope = root.NewSubScope("learning_rate");
  auto progress = ops::Div(scope, ops::Cast(scope, global_step, DT_FLOAT),
                           ops::Const(scope, static_cast<float>(std::max<int64_t>(total_steps, 1))));
  return ops::Mul(scope, ops::Const(scope, static_cast<float>(lr)),
                  ops::Pow(scope, ops::Const(scope, static_cast<float>(decay)), progress));
}

}  // namespace af::fmnist
