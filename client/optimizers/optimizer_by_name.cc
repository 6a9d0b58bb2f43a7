#include "client/optimizers/optimizer_by_name.h"

#include "client/optimizers/optimizers.h"

namespace af {

std::unique_ptr<Optimizer> OptimizerByName(const std::string& name, double lr) {
  if (name == "sgd") return std::make_unique<GradientDescentOptimizer>(lr);
  if (name == "momentum") return std::make_unique<MomentumOptimizer>(lr, 0.9);
  if (name == "adagrad") return std::make_unique<AdagradOptimizer>(lr);
  if (name == "rmsprop") return std::make_unique<RMSPropOptimizer>(lr);
  if (name == "adam") return std::make_unique<AdamOptimizer>(lr);
  if (name == "lazy_adam") return std::make_unique<LazyAdamOptimizer>(lr);
  if (name == "ftrl") return std::make_unique<FtrlOptimizer>(lr);
  return nullptr;
}

}  // namespace af
