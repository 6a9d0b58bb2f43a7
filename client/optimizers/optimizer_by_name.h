// An optimizer from its command-line name, for programs that let the user
// pick one (--optimizer): sgd, momentum (0.9), adagrad, rmsprop, adam,
// lazy_adam, ftrl. Null for any other name.
#pragma once

#include <memory>
#include <string>

#include "client/optimizers/optimizer.h"

namespace af {

std::unique_ptr<Optimizer> OptimizerByName(const std::string& name, double learning_rate);

}  // namespace af
