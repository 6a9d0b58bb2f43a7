// Installs the factory through which kernels create gradient accumulators
// (core's CreateAccumulator): each accumulator gets its own actor.
// InstallQueueFactory calls it, so every runtime that can make queues can
// make accumulators; calling it again does nothing.
#pragma once

namespace af::actors {

void InstallAccumulatorFactory();

}  // namespace af::actors
