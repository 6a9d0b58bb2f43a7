// Where a protocol's shared state lives: with a variable (an accumulator
// beside its variable, the token queue and the staleness clock beside the
// global step). Colocation alone is not enough here. It names a group, and
// the master places each step's pruned graph on its own: a worker's step
// that never needs the variable itself (the token dequeue needs the queue,
// not the global step) would place the group without it — on the worker's
// own device — while the chief's step puts it on the ps task, and the two
// would meet two different resources of the same shared name. Found by
// tests/distributed/coordination_training_test.cc.
//
// AnchoredTo adds a control input from the variable to the op that makes
// the resource, which keeps the variable in every step that uses the
// resource, so the group is placed where the variable lives. The edge
// reads nothing.
#pragma once

#include "client/ops.h"
#include "client/scope.h"

namespace af {

inline Scope AnchoredTo(const Scope& scope, const Output& anchor) {
  return scope.WithControlDependencies({anchor.op()});
}

}  // namespace af
