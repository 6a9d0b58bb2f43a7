// Installs the factories that make queues, gradient accumulators and
// staleness clocks as resource actors (actors/resources/resource_actor.h),
// once per process. Every runtime that runs kernels (a local session, a
// worker server, a virtual cluster) calls it before its first step.
#pragma once

namespace af::actors {

void InstallResourceFactories();

}  // namespace af::actors
