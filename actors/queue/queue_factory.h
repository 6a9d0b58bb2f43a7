// Installs the factory through which kernels create queues (core's
// CreateQueue): each queue gets its own actor. Runtimes call this when
// they start; calling it again does nothing. It installs the gradient
// accumulators' factory too (actors/accumulator/accumulator_factory.h).
#pragma once

namespace af::actors {

void InstallQueueFactory();

}  // namespace af::actors
