#include "examples/language_model/distributed_lm.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>

#include "client/client_session.h"
#include "client/coordination/protocol_factory.h"
#include "client/coordination/protocol_hook.h"
#include "client/optimizers/optimizer_by_name.h"
#include "client/replica_device_setter.h"
#include "client/standard_ops.h"
#include "client/training/monitored_training_session.h"
#include "client/training/stop_at_step_hook.h"
#include "client/variables.h"
#include "core/cluster_spec.h"
#include "core/logging.h"

namespace af::lm {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kRemoteTimeoutMs = 120000;


}  // namespace

Status FindLmClusterTask(std::string* job, int* index, bool* found) {
  *found = false;
  const char* tf_config = std::getenv("TF_CONFIG");
  if (tf_config == nullptr || *tf_config == '\0') return Status::OK();
  ClusterSpec spec;
  Status s = ClusterSpec::FromTfConfig(tf_config, &spec, job, index);
  if (!s.ok()) return s.WithContext("TF_CONFIG");
  if (*job != "worker")
    return errors::InvalidArgument("this task is /job:", *job, "/task:", *index,
                                   "; language_model runs the worker tasks (run `actorflow "
                                   "server` for ps tasks)");
  *found = true;
  return Status::OK();
}

Status TrainLanguageModelDistributed(const TrainOptions& o, const DistributedOptions& d,
                                     DistributedReport* report) {
  ClusterSpec cluster;
  std::string job = "worker";
  int index = d.task;
  if (d.cluster) {
    cluster = *d.cluster;
  } else {
    AF_RETURN_IF_ERROR(
        ClusterSpec::FromTfConfig(std::getenv("TF_CONFIG"), &cluster, &job, &index));
  }
  report->task = ClusterSpec::TaskName(job, index);
  report->num_ps = cluster.num_tasks("ps");
  report->num_workers = cluster.num_tasks("worker");
  if (report->num_ps < 1) return errors::InvalidArgument("the cluster has no ps task");
  const bool chief = index == 0;

  ProtocolOptions protocol_options;
  protocol_options.aggregation_timeout_ms = d.sync_timeout_ms;
  protocol_options.token_timeout_ms =
      std::max<int64_t>(protocol_options.token_timeout_ms, 4 * d.sync_timeout_ms);
  std::shared_ptr<CoordinationProtocol> protocol;
  {
    std::unique_ptr<CoordinationProtocol> made;
    AF_RETURN_IF_ERROR(CreateCoordinationProtocol(d.protocol, protocol_options, &made));
    protocol = std::move(made);
  }

  const std::vector<int32_t> corpus = GenerateCorpus(o.corpus);
  const int n = o.model.num_steps;
  const int64_t held_out_start = HeldOutStart(corpus);
  report->unigram_perplexity = UnigramPerplexity(corpus, o.model.vocab);

  // Under TF_CONFIG the session sees the ps tasks and this process (as
  // /job:localhost); a given cluster already names this worker's own task.
  ClusterSpec ps_cluster;
  if (d.cluster) {
    ps_cluster = cluster;
  } else {
    AF_RETURN_IF_ERROR(PsTasksOnly(cluster, &ps_cluster));
  }
  SessionOptions session_options;
  session_options.cluster = ps_cluster;
  session_options.threads_per_device = o.threads;
  session_options.default_timeout_ms = kRemoteTimeoutMs;
  session_options.setup_timeout_ms = 60000;
  if (d.worker_lost_after_ms > 0) session_options.worker_lost_after_ms = d.worker_lost_after_ms;

  ReplicaDeviceSetterOptions placement;
  placement.worker_device =
      d.cluster ? ClusterSpec::TaskName(job, index) : "/job:localhost/replica:0/task:0";
  placement.strategy = PsStrategy::kGreedyByBytes;
  std::unique_ptr<ReplicaDeviceSetter> setter;
  AF_RETURN_IF_ERROR(ReplicaDeviceSetter::FromCluster(ps_cluster, placement, &setter));
  Scope root = Scope::NewRootScope();
  const Scope scope = root.WithDeviceFunction(setter->function());
  LanguageModel m;
  AF_RETURN_IF_ERROR(BuildLanguageModel(scope, o.model, &m));
  const Output global_step = GetOrCreateGlobalStep(scope);
  std::unique_ptr<Optimizer> optimizer = OptimizerByName(o.optimizer, o.learning_rate);
  if (!optimizer)
    return errors::InvalidArgument("unknown optimizer '", o.optimizer, "'");
  std::vector<GradAndVar> grads_and_vars;
  AF_RETURN_IF_ERROR(optimizer->ComputeGradients(scope, m.train_loss, {}, &grads_and_vars));
  for (const GradAndVar& gv : grads_and_vars) report->variables_with_gradients += gv.first.valid();
  ReplicaContext replica;
  replica.worker_index = index;
  replica.task_name = report->task;
  replica.num_workers = report->num_workers;
  replica.is_chief = chief;
  replica.optimizer = optimizer.get();
  replica.global_step = global_step;
  for (int t : ps_cluster.task_indices("ps")) replica.ps_devices.push_back(ClusterSpec::TaskName("ps", t));
  replica.shared_name = "language_model";
  replica.session_options = session_options;
  AF_RETURN_IF_ERROR(protocol->Build(scope, grads_and_vars, replica));
  AF_RETURN_IF_ERROR(root.status());
  report->ps_load = setter->LoadReport();
  if (chief) AF_LOG(INFO) << "variables per ps task:\n" << report->ps_load;

  MonitoredTrainingSessionOptions mts;
  mts.session = session_options;
  mts.is_chief = chief;
  mts.task_name = report->task + (chief ? " (chief)" : "");
  mts.hooks = {std::make_shared<CoordinationProtocolHook>(protocol),
               StopAtStepHook::AtStep(o.train_steps)};
  mts.log = [](const std::string& line) { AF_LOG(INFO) << line; };
  std::unique_ptr<MonitoredTrainingSession> session;
  AF_RETURN_IF_ERROR(MonitoredTrainingSession::Create(root, mts, &session));

  Tensor inputs(DT_INT32, TensorShape({o.batch, n}));
  Tensor targets(DT_INT64, TensorShape({o.batch, n}));
  std::vector<int64_t> starts(static_cast<size_t>(o.batch));
  // Each worker its own windows.
  std::mt19937_64 rng(o.corpus.seed * 7919 + static_cast<uint64_t>(index) + 1);
  std::uniform_int_distribution<int64_t> start(0, held_out_start - n - 1);
  std::vector<Tensor> out;
  Status status;
  // The first step sets the graph up (partitions registered, kernels made):
  // words/s counts the steps after it.
  auto begin = Clock::now();
  int64_t timed_words = 0;
  for (int t : ps_cluster.task_indices("ps"))
    report->ps_traffic.push_back({ClusterSpec::TaskName("ps", t), 0, 0});
  RunMetadata metadata;
  while (!session->ShouldStop()) {
    for (int64_t& s : starts) s = start(rng);
    FillWindows(corpus, starts, n, &inputs, &targets);
    status = session->Run(RunOptions{}, {{m.inputs, inputs}, {m.targets, targets}},
                          {m.train_loss, global_step}, {}, &out, &metadata);
    if (!status.ok()) break;
    ++report->steps;
    report->words += static_cast<int64_t>(o.batch) * n;
    if (report->steps == 1) {
      begin = Clock::now();
    } else {
      timed_words += static_cast<int64_t>(o.batch) * n;
      for (DistributedReport::PsTraffic& ps : report->ps_traffic) {
        ps.bytes_to += static_cast<double>(BytesTo(metadata.traffic, ps.task));
        ps.bytes_from += static_cast<double>(BytesFrom(metadata.traffic, ps.task));
      }
    }
    report->global_step = out[1].scalar<int64_t>();
  }
  report->train_seconds = std::chrono::duration<double>(Clock::now() - begin).count();
  report->timed_words = timed_words;
  if (report->steps > 1) {
    for (DistributedReport::PsTraffic& ps : report->ps_traffic) {
      ps.bytes_to /= static_cast<double>(report->steps - 1);
      ps.bytes_from /= static_cast<double>(report->steps - 1);
    }
  }
  // A worker stopped by the chief's end (OUT_OF_RANGE from the protocol)
  // last saw the global step of its own last step, which the chief's final
  // update may have passed: report the step the training ended at.
  if (errors::IsOutOfRange(status) || status.ok()) {
    if (session->session()->Run({}, {global_step}, &out).ok()) {
      report->global_step = out[0].scalar<int64_t>();
    }
  }
  const CoordinationStats stats = protocol->stats();
  report->gradients_applied = stats.gradients_applied;
  report->gradients_dropped = stats.gradients_dropped;
  if ((status.ok() || errors::IsOutOfRange(status)) && chief) {
    double loss = 0;
    for (int e = 0; e < o.eval_batches && status.ok(); ++e) {
      HeldOutStarts(corpus, n, e, &starts);
      FillWindows(corpus, starts, n, &inputs, &targets);
      status = session->session()->Run({{m.inputs, inputs}, {m.targets, targets}},
                                       {m.eval_loss, global_step}, &out);
      if (status.ok()) {
        loss += out[0].scalar<float>();
        report->global_step = out[1].scalar<int64_t>();
      }
    }
    report->final_perplexity = std::exp(loss / std::max(o.eval_batches, 1));
  }
  const Status closed = session->Close();
  if (!status.ok() && !errors::IsOutOfRange(status)) return status;
  return closed;
}

}  // namespace af::lm
