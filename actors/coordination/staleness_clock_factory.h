// Installs the factory through which kernels create staleness clocks
// (core's CreateStalenessClock): each clock gets its own actor.
// InstallQueueFactory calls it, so every runtime that can make queues can
// make clocks; calling it again does nothing.
#pragma once

namespace af::actors {

void InstallStalenessClockFactory();

}  // namespace af::actors
