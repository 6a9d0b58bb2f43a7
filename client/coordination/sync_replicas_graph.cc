#include "client/coordination/sync_replicas_graph.h"

#include <cctype>

#include "client/standard_ops.h"
#include "client/variables.h"

namespace af {

Status BuildSyncReplicasGraph(const Scope& scope, const std::vector<GradAndVar>& grads_and_vars,
                              const ReplicaContext& replica, int32_t cap,
                              const ProtocolOptions& options, SyncReplicasGraph* graph) {
  const Scope s = scope.NewSubScope("sync_replicas");
  const Output& global_step = replica.global_step;
  // Shared state without a variable of its own lives with the global step.
  const Scope on_step = s.ColocateWith(global_step.op());
  auto queue = ops::FIFOQueueV2(AnchoredTo(on_step.WithOpName("sync_token_q"), global_step),
                                {DT_INT64},
                                ops::FIFOQueueV2::Shapes({PartialTensorShape(TensorShape{})})
                                    .SharedName(replica.shared_name + "/sync_token_q"));
  graph->local_step = ops::Placeholder(s.WithOpName("local_step"), DT_INT64);
  // Asked for on the global step's own device, so that a replica device
  // setter cannot send this variable to another ps task than its group's.
  // Named for the training (its shared name), as its queues are: two
  // trainings in one process or on one ps task keep apart.
  std::string presence_name = replica.shared_name + "_worker_last_step";
  for (char& c : presence_name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') c = '_';
  }
  Scope presence = AnchoredTo(on_step.WithOpName(presence_name), global_step);
  if (!global_step.node()->def().device().empty()) {
    presence = presence.WithDevice(global_step.node()->def().device());
  }
  const Variable last_steps(
      presence, Input::Initializer(Tensor::FromVector<int64_t>(
                    std::vector<int64_t>(static_cast<size_t>(replica.num_workers), -1))),
      /*trainable=*/false);
  AF_RETURN_IF_ERROR(presence.status());
  graph->last_steps = last_steps.var;
  graph->mark_present =
      ops::ScatterUpdate(s.ColocateWith(last_steps.var.op()).WithOpName("mark_present"),
                         last_steps.var,
                         Input::Initializer(Tensor::FromVector<int32_t>({replica.worker_index})),
                         ops::Reshape(s, graph->local_step,
                                      Input::Initializer(Tensor::FromVector<int32_t>({1}))))
          .operation;
  if (replica.is_chief) {
    graph->num_required = ops::Placeholder(s.WithOpName("replicas_to_aggregate"), DT_INT32);
    graph->num_tokens = ops::Placeholder(s.WithOpName("tokens_per_step"), DT_INT32);
  }

  // Named on each apply, so that a chief's take left waiting says whose
  // gradients it lacks (a stopped or lost worker).
  const std::string sender = replica.task_name.empty()
                                 ? "worker " + std::to_string(replica.worker_index)
                                 : replica.task_name;
  std::vector<Operation> applies, set_steps;
  std::vector<GradAndVar> averages;
  for (const auto& [grad, var] : grads_and_vars) {
    if (!grad.valid()) continue;
    // The accumulator sits with its variable, so a gradient crosses to the
    // ps task once, and the average never leaves it.
    const Scope on_var = s.NewSubScope(var.op().name()).ColocateWith(var.op());
    const DataType dtype = BaseType(var.type());
    const std::string shared = replica.shared_name + "/" + var.op().name() + "/grad_accum";
    Output accumulator;
    ops::AccumulatorTryApplyGradient::Attrs named = ops::AccumulatorTryApplyGradient::Replica(sender);
    Output applied;
    if (grad.is_sparse()) {
      // Rows in, rows out: a sparse gradient crosses to the ps task as the
      // rows it has, and the chief's take hands the optimizer rows again.
      const IndexedSlices& rows = grad.slices();
      accumulator = ops::SparseConditionalAccumulator(
          AnchoredTo(on_var.WithOpName("grad_accum"), var), dtype, var.shape(),
          ops::SparseConditionalAccumulator::SharedName(shared));
      applied = ops::SparseAccumulatorTryApplyGradient(
          on_var.WithOpName("apply"), accumulator, graph->local_step,
          ops::Cast(on_var, rows.indices, DT_INT64), rows.values,
          ops::Cast(on_var, rows.dense_shape, DT_INT64), cap, /*has_known_shape=*/true,
          ops::SparseAccumulatorTryApplyGradient::Replica(sender));
    } else {
      accumulator = ops::ConditionalAccumulator(
          AnchoredTo(on_var.WithOpName("grad_accum"), var), dtype, var.shape(),
          ops::ConditionalAccumulator::SharedName(shared));
      applied = ops::AccumulatorTryApplyGradient(on_var.WithOpName("apply"), accumulator,
                                                 graph->local_step, grad.dense(), cap, named);
    }
    graph->applied.push_back(applied);
    applies.push_back(applied.op());
    if (!replica.is_chief) continue;
    if (grad.is_sparse()) {
      auto take = ops::SparseAccumulatorTakeGradient(on_var.WithOpName("take"), accumulator,
                                                     graph->num_required, dtype);
      // The take answers each row once, indices ascending.
      averages.emplace_back(IndexedSlices{take.values, take.indices, take.shape, true}, var);
    } else {
      averages.emplace_back(ops::AccumulatorTakeGradient(on_var.WithOpName("take"), accumulator,
                                                         graph->num_required, dtype),
                            var);
    }
    set_steps.push_back(ops::AccumulatorSetGlobalStep(on_var.WithOpName("set_global_step"),
                                                      accumulator, global_step)
                            .operation);
    graph->num_accumulated.push_back(
        ops::AccumulatorNumAccumulated(on_var.WithOpName("num_accumulated"), accumulator));
  }
  if (applies.empty()) {
    return errors::InvalidArgument("coordination protocol: no gradients to coordinate "
                                   "(no variable gets one from the loss)");
  }
  // The token comes once every gradient of the step was handed over.
  graph->token = ops::QueueDequeueV2(on_step.WithOpName("token").WithControlDependencies(applies),
                                     queue, {DT_INT64},
                                     ops::QueueDequeueV2::TimeoutMs(options.token_timeout_ms))[0];
  if (!replica.is_chief) return scope.status();

  Operation update;
  AF_RETURN_IF_ERROR(replica.optimizer->ApplyGradients(s, averages, global_step, &update));
  // Read after the update, on the global step's task (a read through a
  // cross-task edge would send the value from before the step).
  auto new_step = ops::Identity(on_step.WithOpName("new_global_step").WithControlDependencies({update}),
                                global_step);
  auto tokens = ops::Fill(on_step.WithOpName("tokens"), graph->num_tokens, new_step);
  graph->sync_op = ops::QueueEnqueueManyV2(on_step.WithOpName("sync_op"), queue, {tokens}).operation;
  auto same_step = ops::Fill(on_step.WithOpName("retry_tokens"), graph->num_tokens,
                             ops::Identity(on_step.WithOpName("current_global_step"), global_step));
  graph->retry_step =
      ops::QueueEnqueueManyV2(on_step.WithOpName("retry_step"), queue, {same_step}).operation;
  graph->chief_init = ops::NoOp(s.WithOpName("chief_init").WithControlDependencies(set_steps)).operation;
  return scope.status();
}

}  // namespace af
