// Staleness-clock ops for stale-synchronous parallel training. These are
// Actorflow's own ops, not TensorFlow's: TensorFlow has no SSP. The clock is
// a resource like ResourceConditionalAccumulator's (core/
// staleness_clock_interface.h has the rule); client/coordination/ builds
// the `ssp:S` protocol from them.
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

Status TickShape(InferenceContext* c) {
  PartialTensorShape unused;
  AF_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));  // worker
  return shape_fn::ScalarShape(c);
}

}  // namespace

REGISTER_OP("StalenessClock")
    .Output("handle: resource")
    .Attr("num_workers: int >= 1")
    .Attr("staleness: int >= 0")
    .Attr("inactive_after_ms: int = 0")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("Actorflow's own op: a clock per worker for stale-synchronous training; no worker "
         "starts a step more than `staleness` steps ahead of the slowest active one. A worker "
         "silent for inactive_after_ms (> 0) stops holding the others back until it ticks.");

REGISTER_OP("StalenessClockTick")
    .Input("handle: resource")
    .Input("worker: int32")
    .Output("clock: int64")
    .Attr("timeout_ms: int = -1")
    .SetIsStateful()
    .SetShapeFn(TickShape)
    .Doc("Actorflow's own op: records that `worker` finished a step and completes when it may "
         "start the next one (its clock minus the slowest active worker's <= staleness); "
         "outputs the worker's clock. timeout_ms > 0 bounds the wait (DEADLINE_EXCEEDED).");

}  // namespace af
