#include "core/logging.h"
#include "examples/fashion_mnist/distributed_trainer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "client/client_session.h"
#include "client/coordination/protocol_factory.h"
#include "client/coordination/protocol_hook.h"
#include "client/optimizers/optimizers.h"
#include "client/replica_device_setter.h"
#include "client/standard_ops.h"
#include "client/summary_writer.h"
#include "client/training/monitored_training_session.h"
#include "client/training/stop_at_step_hook.h"
#include "client/variables.h"
#include "examples/fashion_mnist/batch_sampler.h"
#include "examples/fashion_mnist/evaluate.h"
#include "examples/fashion_mnist/input_pipeline.h"
#include "examples/fashion_mnist/optimizer_choice.h"
#include "examples/models/mnist_models.h"

namespace af::fmnist {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kExamplesPerEpoch = 60000;
// A worker publishes its figures to the chief every this many steps.
constexpr int64_t kReportEverySteps = 20;
// Columns of the worker_stats variable, one row per worker.
enum StatsColumn { kSteps, kExamples, kApplied, kDropped, kTrainSeconds, kDone, kColumns };
// How long the chief waits for news from workers that have not reported
// their end before it reports what it has.
constexpr auto kWaitForWorkers = std::chrono::seconds(10);
constexpr int64_t kRemoteTimeoutMs = 120000;


struct DistributedGraph {
  Output pixels, labels;  // fed: a batch, or a slice of the test set
  models::Model model;
  Output global_step;
  Output worker_stats;  // double [n, kColumns] on a ps task
  Output stats_row;     // fed: this worker's row
  Operation publish_stats;
  std::unique_ptr<Optimizer> optimizer;
  std::unique_ptr<ReplicaDeviceSetter> setter;
};

Status BuildDistributedGraph(const Scope& root, const Options& o, const ClusterTask& task,
                             const ClusterSpec& ps_cluster, int64_t total_steps,
                             CoordinationProtocol* protocol, const SessionOptions& session_options,
                             DistributedGraph* g) {
  ReplicaDeviceSetterOptions placement;
  placement.worker_device = "/job:localhost/replica:0/task:0";
  placement.strategy =
      o.ps_strategy == "greedy" ? PsStrategy::kGreedyByBytes : PsStrategy::kRoundRobin;
  AF_RETURN_IF_ERROR(ReplicaDeviceSetter::FromCluster(ps_cluster, placement, &g->setter));
  const Scope scope = root.WithDeviceFunction(g->setter->function());

  g->pixels = ops::Placeholder(scope.WithOpName("pixels"), DT_UINT8);
  g->labels = ops::Placeholder(scope.WithOpName("labels"), DT_INT32);
  const Output images = StandardizePixels(scope.NewSubScope("input"), g->pixels);
  AF_RETURN_IF_ERROR(models::BuildModel(scope.NewSubScope(o.model), o.model, images, g->labels,
                                        o.seed, &g->model));
  g->global_step = GetOrCreateGlobalStep(scope);

  const double lr = o.learning_rate > 0 ? o.learning_rate : DefaultLearningRate(o.optimizer);
  g->optimizer = MakeOptimizer(o.optimizer, lr);
  if (!g->optimizer) return errors::InvalidArgument("unknown --optimizer '", o.optimizer, "'");
  if (o.lr_decay != 1.0)
    g->optimizer->SetLearningRate(
        DecayedLearningRate(scope, lr, o.lr_decay, total_steps, g->global_step));
  std::vector<GradAndVar> grads_and_vars;
  AF_RETURN_IF_ERROR(g->optimizer->ComputeGradients(scope, g->model.loss, {}, &grads_and_vars));

  ReplicaContext replica;
  replica.worker_index = task.index;
  replica.task_name = task.name();
  replica.num_workers = task.num_workers();
  replica.is_chief = task.is_chief();
  replica.optimizer = g->optimizer.get();
  replica.global_step = g->global_step;
  for (int t : ps_cluster.task_indices("ps")) replica.ps_devices.push_back(ClusterSpec::TaskName("ps", t));
  replica.shared_name = "fashion_mnist";
  replica.session_options = session_options;
  AF_RETURN_IF_ERROR(protocol->Build(scope, grads_and_vars, replica));

  const int64_t n = task.num_workers();
  Variable stats(scope.WithOpName("worker_stats"),
                 Input::Initializer(Tensor(DT_DOUBLE, TensorShape{n, kColumns})), false);
  g->worker_stats = stats.var;
  g->stats_row = ops::Placeholder(scope.WithOpName("stats_row"), DT_DOUBLE);
  // The update lives with the variable (the device setter would send it
  // to this worker), as an optimizer's apply ops do.
  g->publish_stats = ops::ScatterUpdate(root.ColocateWith(stats.var).WithOpName("publish_stats"),
                                        stats.var,
                                        ops::Const(scope, {static_cast<int32_t>(task.index)}),
                                        ops::Reshape(scope, g->stats_row,
                                                     ops::Const(scope, {1, int{kColumns}})))
                         .operation;
  return root.status();
}

Tensor StatsRow(const WorkerFigures& f) {
  Tensor row(DT_DOUBLE, TensorShape{kColumns});
  double* v = row.data<double>();
  v[kSteps] = static_cast<double>(f.steps);
  v[kExamples] = static_cast<double>(f.examples);
  v[kApplied] = static_cast<double>(f.gradients_applied);
  v[kDropped] = static_cast<double>(f.gradients_dropped);
  v[kTrainSeconds] = f.train_seconds;
  v[kDone] = f.done ? 1 : 0;
  return row;
}

std::vector<WorkerFigures> FiguresOf(const Tensor& stats) {
  std::vector<WorkerFigures> out(static_cast<size_t>(stats.dim_size(0)));
  const double* v = stats.data<double>();
  for (size_t i = 0; i < out.size(); ++i, v += kColumns) {
    out[i].steps = static_cast<int64_t>(v[kSteps]);
    out[i].examples = static_cast<int64_t>(v[kExamples]);
    out[i].gradients_applied = static_cast<int64_t>(v[kApplied]);
    out[i].gradients_dropped = static_cast<int64_t>(v[kDropped]);
    out[i].train_seconds = v[kTrainSeconds];
    out[i].done = v[kDone] != 0;
  }
  return out;
}

// One event writer per directory (TensorBoard follows one file per
// directory): logdir/worker-<i> for each worker, logdir/eval for the
// chief's test accuracy; the training session writes logdir itself.
Status MaybeWriter(const std::string& logdir, const std::string& sub,
                   std::unique_ptr<SummaryWriter>* out) {
  if (logdir.empty()) return Status::OK();
  return SummaryWriter::Create(logdir + "/" + sub, out);
}

}  // namespace

Status TrainDistributed(const Options& o, const ClusterTask& task, DistributedReport* report) {
  report->protocol = o.protocol;
  report->task = task.name();
  report->num_workers = task.num_workers();
  report->num_ps = task.num_ps();
  const auto log = [&](const std::string& line) {
    AF_LOG(INFO) << line;
  };

  ProtocolOptions protocol_options;
  protocol_options.aggregation_timeout_ms = o.sync_timeout_ms;
  protocol_options.token_timeout_ms = std::max<int64_t>(protocol_options.token_timeout_ms,
                                                        4 * o.sync_timeout_ms);
  std::shared_ptr<CoordinationProtocol> protocol;
  {
    std::unique_ptr<CoordinationProtocol> made;
    AF_RETURN_IF_ERROR(CreateCoordinationProtocol(o.protocol, protocol_options, &made));
    protocol = std::move(made);
  }
  const int64_t k = protocol->GradientsPerGlobalStep(task.num_workers());
  // --max_examples shortens the epoch (for quick runs), as in one process.
  const int64_t epoch_examples =
      o.max_examples > 0 ? std::min(o.max_examples, kExamplesPerEpoch) : kExamplesPerEpoch;
  const int64_t steps_per_epoch = (epoch_examples + o.batch * k - 1) / (o.batch * k);
  const int64_t last_step = steps_per_epoch * o.epochs;

  // The data, read once by a session of this process alone.
  RawExamples train, test;
  {
    Scope data_root = Scope::NewRootScope();
    ClientSession data_session(data_root);
    AF_RETURN_IF_ERROR(ReadRawExamples(data_root, data_session, o.data_dir, "train", &train));
    AF_RETURN_IF_ERROR(ReadRawExamples(data_root, data_session, o.data_dir, "t10k", &test));
  }

  ClusterSpec ps_cluster;
  AF_RETURN_IF_ERROR(PsTasksOnly(task.spec, &ps_cluster));
  SessionOptions session_options;
  session_options.cluster = ps_cluster;
  session_options.threads_per_device = o.threads;
  session_options.default_timeout_ms = kRemoteTimeoutMs;
  session_options.setup_timeout_ms = 60000;

  Scope root = Scope::NewRootScope();
  DistributedGraph g;
  AF_RETURN_IF_ERROR(BuildDistributedGraph(root, o, task, ps_cluster, last_step, protocol.get(),
                                           session_options, &g));
  report->ps_load = g.setter->LoadReport();
  if (task.is_chief()) log("variables per ps task:\n" + report->ps_load);

  MonitoredTrainingSessionOptions mts;
  mts.session = session_options;
  mts.is_chief = task.is_chief();
  if (task.is_chief()) mts.checkpoint_dir = o.logdir;
  mts.save_checkpoint_secs = o.checkpoint_secs > 0 ? o.checkpoint_secs : 600;
  mts.save_summaries_steps = o.summary_steps;
  mts.summary_scalars = {{"loss", g.model.loss}};
  mts.task_name = report->task + (task.is_chief() ? " (chief)" : "");
  mts.shard_replica_steps = o.shard_replica_steps;
  auto stop_hook = StopAtStepHook::AtStep(last_step);
  mts.hooks = {std::make_shared<CoordinationProtocolHook>(protocol), stop_hook};
  mts.log = [](const std::string& line) { AF_LOG(INFO) << line; };
  std::unique_ptr<MonitoredTrainingSession> session;
  AF_RETURN_IF_ERROR(MonitoredTrainingSession::Create(root, mts, &session));

  std::unique_ptr<SummaryWriter> worker_writer, eval_writer;
  AF_RETURN_IF_ERROR(MaybeWriter(o.logdir, "worker-" + std::to_string(task.index), &worker_writer));
  if (task.is_chief()) AF_RETURN_IF_ERROR(MaybeWriter(o.logdir, "eval", &eval_writer));

  BatchSampler sampler(train, o.batch, static_cast<uint64_t>(o.seed) * 7919 + task.index);
  WorkerFigures& self = report->self;
  std::vector<Tensor> out;
  ClientSession::FeedType feeds;
  Tensor pixels, labels;
  const auto start = Clock::now();
  double eval_seconds = 0;
  int64_t global_step = -1;
  int64_t next_epoch_step = 0;  // the chief evaluates once the global step reaches it
  int64_t last_eval_step = -1;
  int recoveries_seen = 0;
  const auto train_seconds = [&] {
    return std::chrono::duration<double>(Clock::now() - start).count() - eval_seconds;
  };
  const auto publish = [&]() -> Status {
    self.train_seconds = train_seconds();
    const CoordinationStats stats = protocol->stats();
    self.gradients_applied = stats.gradients_applied;
    self.gradients_dropped = stats.gradients_dropped;
    return session->session()->Run({{g.stats_row, StatsRow(self)}}, {}, {g.publish_stats},
                                   nullptr);
  };
  const auto evaluate = [&]() -> Status {
    const auto eval_start = Clock::now();
    double accuracy = 0;
    AF_RETURN_IF_ERROR(EvaluateAccuracy(*session->session(), g.pixels, g.labels,
                                        g.model.num_correct, test.pixels, test.labels, &accuracy));
    report->test_accuracy.push_back(accuracy);
    const int epoch = static_cast<int>(global_step / steps_per_epoch);
    char line[200];
    std::snprintf(line, sizeof line, "epoch %d/%d (global step %lld): test accuracy %.4f", epoch,
                  o.epochs, static_cast<long long>(global_step), accuracy);
    log(line);
    if (eval_writer) {
      (void)eval_writer->AddScalar("test_accuracy", static_cast<float>(accuracy), global_step);
      (void)eval_writer->Flush();
    }
    eval_seconds += std::chrono::duration<double>(Clock::now() - eval_start).count();
    return Status::OK();
  };

  Status status;
  while (!session->ShouldStop()) {
    sampler.Next(&pixels, &labels);
    status = session->Run({{g.pixels, pixels}, {g.labels, labels}},
                          {g.model.loss, g.global_step}, {}, &out);
    if (errors::IsOutOfRange(status)) break;
    if (!status.ok()) break;
    if (self.steps == 0) {
      report->first_global_step = out[1].scalar<int64_t>();
      next_epoch_step = (report->first_global_step / steps_per_epoch + 1) * steps_per_epoch;
    }
    ++self.steps;
    self.examples += o.batch;
    const int64_t step_before = global_step;
    global_step = out[1].scalar<int64_t>();
    if (session->recoveries() != recoveries_seen) {
      recoveries_seen = session->recoveries();
      report->global_steps_rolled_back += std::max<int64_t>(0, step_before - global_step);
    }
    if (worker_writer && o.summary_steps > 0 && self.steps % o.summary_steps == 0) {
      (void)worker_writer->AddScalar("loss", out[0].scalar<float>(), global_step);
      (void)worker_writer->AddScalar("examples_per_second",
                                     static_cast<float>(self.examples / train_seconds()),
                                     global_step);
      (void)worker_writer->AddScalar("gradients_dropped",
                                     static_cast<float>(protocol->stats().gradients_dropped),
                                     global_step);
    }
    // Outside the training session's steps, so not recovered by it: a
    // failure here (a ps task lost this moment) is logged, and the next
    // step recovers and tries again.
    if (self.steps % kReportEverySteps == 0) {
      const Status published = publish();
      if (!published.ok()) log("publishing this worker's figures failed: " + published.ToString());
    }
    if (task.is_chief() && global_step >= next_epoch_step) {
      const Status evaluated = evaluate();
      if (evaluated.ok()) {
        last_eval_step = global_step;
        next_epoch_step = (global_step / steps_per_epoch + 1) * steps_per_epoch;
      } else {
        log("evaluation failed, trying again after the next step: " + evaluated.ToString());
      }
    }
  }
  self.train_seconds = train_seconds();
  report->global_step = global_step;
  report->recoveries = session->recoveries();
  for (const RecoveryRecord& r : session->recovery_records()) report->recovery_seconds += r.seconds;
  if (status.ok() || errors::IsOutOfRange(status)) {
    self.done = true;
    status = publish();
  }
  const CoordinationStats stats = protocol->stats();
  {
    char line[300];
    std::snprintf(line, sizeof line,
                  "trained %lld steps (%lld examples, %.0f examples/s); gradients applied %lld, "
                  "dropped %lld; %d recoveries",
                  static_cast<long long>(self.steps), static_cast<long long>(self.examples),
                  self.examples_per_second(), static_cast<long long>(stats.gradients_applied),
                  static_cast<long long>(stats.gradients_dropped), report->recoveries);
    log(line);
  }
  if (status.ok() && task.is_chief()) {
    // Every worker's figures, once each says it finished, or once none of
    // the unfinished ones has reported for a while (a worker that died and
    // was not restarted never will).
    std::vector<WorkerFigures> workers;
    std::string last_seen;
    auto last_change = Clock::now();
    for (;;) {
      status = session->session()->Run({g.worker_stats}, &out);
      if (!status.ok()) break;
      workers = FiguresOf(out[0]);
      const bool all_done = std::all_of(workers.begin(), workers.end(),
                                        [](const WorkerFigures& w) { return w.done; });
      if (all_done) break;
      if (out[0].tensor_data() != last_seen) {
        last_seen = std::string(out[0].tensor_data());
        last_change = Clock::now();
      } else if (Clock::now() - last_change > kWaitForWorkers) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    report->workers = workers;
    // Both rates over the chief's training time (its evaluations left
    // out), the span in which the workers trained together.
    double examples = 0;
    for (size_t i = 0; i < workers.size(); ++i) {
      if (!workers[i].done) log("worker " + std::to_string(i) + " did not report its end");
      examples += static_cast<double>(workers[i].examples);
    }
    report->global_examples_per_second = self.train_seconds > 0 ? examples / self.train_seconds : 0;
    const double applied =
        static_cast<double>(global_step - report->first_global_step) * o.batch * k;
    report->applied_examples_per_second = self.train_seconds > 0 ? applied / self.train_seconds : 0;
    // The other workers may have made the last steps: evaluate the model
    // as it ended unless that was done.
    if (status.ok()) status = session->session()->Run({g.global_step}, &out);
    if (status.ok()) {
      global_step = report->global_step = out[0].scalar<int64_t>();
      if (global_step > last_eval_step) status = evaluate();
    }
  }
  if (worker_writer) (void)worker_writer->Close();
  if (eval_writer) (void)eval_writer->Close();
  const Status closed = session->Close();
  if (!status.ok() && !errors::IsOutOfRange(status)) return status;
  return closed;
}

}  // namespace af::fmnist
