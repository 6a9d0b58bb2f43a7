// The graph of `sync` and `backup:B` (TensorFlow's SyncReplicasOptimizer),
// built once per worker:
//
//   per variable v, on v's ps task:
//     acc_v      ConditionalAccumulator, shared_name "<prefix>/<v>/grad_accum"
//   every worker's step:
//     applied_v  AccumulatorTryApplyGradient(acc_v, local_step, grad_v, m)
//     token      QueueDequeueV2(token queue) after every applied_v, with a
//                timeout: the worker's next local step
//     mark_present  ScatterUpdate(worker_last_step, [i], local_step)
//   the chief's aggregation step (its own loop, ChiefAggregationLoop):
//     avg_v      AccumulatorTakeGradient(acc_v, num_required)
//     update     optimizer.ApplyGradients(avg_v, v) and global_step += 1
//     sync_op    QueueEnqueueManyV2(token queue, Fill([tokens], global_step))
//                after update: one token per worker, the new global step
//   the chief's setup and repair:
//     chief_init AccumulatorSetGlobalStep(acc_v, global_step) for every v
//     retry_step QueueEnqueueManyV2(token queue, Fill([tokens], global_step))
//
// The token queue is a FIFOQueueV2 of int64 scalars with the global step
// (TensorFlow's sync_token_q). Workers feed their local step; the chief
// feeds num_required (m) and the number of tokens (n), which an elastic
// shrink lowers without rebuilding anything.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/coordination/anchored_scope.h"
#include "client/coordination/coordination_protocol.h"
#include "client/coordination/protocol_factory.h"

namespace af {

struct SyncReplicasGraph {
  // Every worker.
  Output local_step;             // int64 scalar placeholder
  std::vector<Output> applied;   // bool scalar per gradient: kept by its accumulator
  Output token;                  // int64 scalar: the next local step
  // Which workers are there: int64 [n] with each worker's latest local
  // step (-1: none yet), set by every step (mark_present), read by the chief
  // after a shrink to see a replacement arrive.
  Output last_steps;
  Operation mark_present;
  // The chief only (invalid elsewhere).
  Output num_required;           // int32 scalar placeholder: m
  Output num_tokens;             // int32 [1] placeholder: tokens per step, n
  Operation sync_op;             // take, update, hand out tokens
  Operation chief_init;          // accumulators' global step := global_step
  // Tokens of the current global step, without an update: the workers send
  // that step's gradients again (after a timed-out aggregation whose takes
  // were served for some variables only).
  Operation retry_step;
  std::vector<Output> num_accumulated;  // int32 scalar per accumulator
};

// Builds the graph above under scope's "sync_replicas" name scope.
// `cap` is the most gradients an accumulator keeps per step (m).
Status BuildSyncReplicasGraph(const Scope& scope, const std::vector<GradAndVar>& grads_and_vars,
                              const ReplicaContext& replica, int32_t cap,
                              const ProtocolOptions& options, SyncReplicasGraph* graph);

}  // namespace af
