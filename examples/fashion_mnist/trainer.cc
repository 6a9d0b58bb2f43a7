#include "examples/fashion_mnist/trainer.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "client/chrome_trace.h"
#include "client/client_session.h"
#include "graph/placement_settings.h"
#include "client/coordinator.h"
#include "client/optimizers/optimizers.h"
#include "client/saver.h"
#include "client/standard_ops.h"
#include "client/summary_writer.h"
#include "client/variables.h"
#include "examples/fashion_mnist/evaluate.h"
#include "examples/fashion_mnist/input_pipeline.h"
#include "examples/fashion_mnist/optimizer_choice.h"
#include "examples/fashion_mnist/progress.h"
#include "examples/fashion_mnist/saved_model_export.h"
#include "examples/models/mnist_models.h"

namespace af::fmnist {
namespace {

constexpr int64_t kTrainExamples = 60000;
constexpr auto kStopTimeout = std::chrono::seconds(30);

// The global step of the checkpoint a path names ("<prefix>-<step>").
int64_t StepOfCheckpoint(const std::string& path) {
  const size_t dash = path.rfind('-');
  if (dash == std::string::npos) return 0;
  return std::strtoll(path.c_str() + dash + 1, nullptr, 10);
}

struct Graph {
  Output images, labels;  // the dequeued batch (fed directly for evaluation)
  models::Model model;
  Operation train;
  Output global_step;
  Output batch_size;
  Output loss_summary;
  Output epoch_summary;  // weight histograms and first-layer filters
  std::unique_ptr<TrainInput> input;
};

Status BuildGraph(const Scope& root, const Options& o, int epochs_left, int64_t total_steps,
                  Graph* g) {
  g->input = std::make_unique<TrainInput>(
      BuildTrainInput(root, o.data_dir, o.batch, epochs_left, o.seed));
  g->images = g->input->images;
  g->labels = g->input->labels;
  // On a GPU the model and its training ops ask for /device:GPU:0; soft
  // placement keeps ops without a GPU kernel (accuracy, summaries) on the
  // CPU, and the input pipeline stays there.
  const Scope model_scope = o.device == "gpu" ? root.WithDevice("/device:GPU:0") : root;
  AF_RETURN_IF_ERROR(models::BuildModel(model_scope.NewSubScope(o.model), o.model, g->images,
                                        g->labels, o.seed, &g->model));
  const double lr = o.learning_rate > 0 ? o.learning_rate : DefaultLearningRate(o.optimizer);
  auto optimizer = MakeOptimizer(o.optimizer, lr);
  if (!optimizer) return errors::InvalidArgument("unknown --optimizer '", o.optimizer, "'");
  g->global_step = GetOrCreateGlobalStep(root);
  if (o.lr_decay != 1.0)
    optimizer->SetLearningRate(DecayedLearningRate(root, lr, o.lr_decay, total_steps, g->global_step));
  AF_RETURN_IF_ERROR(optimizer->Minimize(model_scope, g->model.loss, &g->train));
  g->batch_size = ops::Size(root, g->labels);

  Scope summaries = root.NewSubScope("summaries");
  g->loss_summary = ops::ScalarSummary(summaries, ops::Const(summaries, std::string("loss")),
                                       g->model.loss);
  std::vector<Output> per_epoch;
  for (const Output& var : TrainableVariables(root))
    per_epoch.push_back(ops::HistogramSummary(summaries, ops::Const(summaries, var.node()->name()),
                                              var));
  if (g->model.first_filters.node() != nullptr) {
    // [5, 5, 1, 32] -> 32 grey 5x5 images.
    auto images = ops::Transpose(summaries, g->model.first_filters, ops::Const(summaries, {3, 0, 1, 2}));
    per_epoch.push_back(ops::ImageSummary(summaries, ops::Const(summaries, std::string("conv1/filters")),
                                          images, ops::ImageSummary::MaxImages(32)));
  }
  g->epoch_summary = ops::MergeSummary(summaries, per_epoch);
  return root.status();
}

// Resident memory of this process, from /proc (0 where unavailable).
double ResidentMiB() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  long pages = 0, resident = 0;
  const int got = std::fscanf(f, "%ld %ld", &pages, &resident);
  std::fclose(f);
  return got == 2 ? static_cast<double>(resident) * sysconf(_SC_PAGESIZE) / (1 << 20) : 0;
}

Status Evaluate(const ClientSession& session, const Graph& g, const TestSet& test,
                double* accuracy) {
  return EvaluateAccuracy(session, g.images, g.labels, g.model.num_correct, test.images,
                          test.labels, accuracy);
}

Status WriteTrace(const ClientSession& session, const Graph& g, const std::string& path,
                  std::vector<Tensor>* out) {
  RunOptions options;
  options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  AF_RETURN_IF_ERROR(session.Run(options, {}, {g.model.loss, g.batch_size}, {g.train}, out,
                                 &metadata));
  return WriteChromeTrace(metadata.step_stats, path, metadata.traffic);
}

}  // namespace

Status Train(const Options& o, TrainReport* report) {
  const int64_t epoch_examples =
      o.max_examples > 0 ? std::min(o.max_examples, kTrainExamples) : kTrainExamples;
  std::string latest;
  if (!o.logdir.empty() && o.resume) latest = LatestCheckpoint(o.logdir);
  const int64_t resumed_step = latest.empty() ? 0 : StepOfCheckpoint(latest);
  const int64_t steps_per_epoch = (epoch_examples + o.batch - 1) / o.batch;
  report->first_epoch = static_cast<int>(resumed_step / steps_per_epoch);
  const int epochs_left = o.epochs - report->first_epoch;

  Scope root = Scope::NewRootScope();
  Graph g;
  AF_RETURN_IF_ERROR(BuildGraph(root, o, std::max(epochs_left, 1), o.epochs * steps_per_epoch, &g));
  Saver saver(root, SaverOptions{{}, 5, "save"});
  AF_RETURN_IF_ERROR(saver.status());

  SessionOptions session_options;
  session_options.threads_per_device = o.threads;
  session_options.num_gpu_devices = o.device == "gpu" ? 1 : 0;
  if (o.device == "gpu") SetSoftDevicePlacement(true);
  ClientSession session(root, session_options);
  AF_RETURN_IF_ERROR(session.Run({}, {}, {GlobalVariablesInitializer(root),
                                          LocalVariablesInitializer(root)}, nullptr));
  Progress progress(o.progress, std::max(epochs_left, 0) * epoch_examples);
  if (!latest.empty()) {
    AF_RETURN_IF_ERROR(saver.Restore(session, latest));
    progress.Print("resumed from " + latest + " (epoch " + std::to_string(report->first_epoch) +
                   " of " + std::to_string(o.epochs) + ")");
  }
  TestSet test;
  AF_RETURN_IF_ERROR(ReadTestSet(root, session, o.data_dir, &test));

  std::unique_ptr<SummaryWriter> writer;
  if (!o.logdir.empty()) {
    AF_RETURN_IF_ERROR(SummaryWriter::Create(o.logdir, &writer));
    tensorflow::GraphDef graph_def;
    AF_RETURN_IF_ERROR(root.ToGraphDef(&graph_def));
    AF_RETURN_IF_ERROR(writer->AddGraph(graph_def, resumed_step));
  }
  if (epochs_left <= 0) {
    double accuracy = 0;
    AF_RETURN_IF_ERROR(Evaluate(session, g, test, &accuracy));
    report->test_accuracy.push_back(accuracy);
    report->global_step = resumed_step;
    progress.Print("already trained for " + std::to_string(o.epochs) + " epochs");
    return Status::OK();
  }

  Coordinator coord;
  for (QueueRunner* runner : {g.input->image_files.runner.get(), g.input->label_files.runner.get(),
                              g.input->shuffle_runner.get()})
    AF_RETURN_IF_ERROR(runner->Start(session, &coord));

  using Clock = std::chrono::steady_clock;
  auto last_checkpoint = Clock::now();
  const auto train_start = Clock::now();
  double eval_seconds = 0;
  int64_t step = resumed_step, examples = 0, epoch_end = epoch_examples;
  double loss_sum = 0;
  int64_t loss_count = 0;
  int epoch = report->first_epoch;
  std::vector<Tensor> out;
  Status status;
  while (epoch < o.epochs) {
    const bool want_summary = writer && o.summary_steps > 0 && step % o.summary_steps == 0;
    if (!o.trace_path.empty() && step == resumed_step + 20) {
      status = WriteTrace(session, g, o.trace_path, &out);
      if (status.ok()) progress.Print("wrote a trace of step " + std::to_string(step) + " to " + o.trace_path);
    } else if (want_summary) {
      status = session.Run({}, {g.model.loss, g.batch_size, g.loss_summary}, {g.train}, &out);
    } else {
      status = session.Run({}, {g.model.loss, g.batch_size}, {g.train}, &out);
    }
    const bool input_done = status.code() == Code::OUT_OF_RANGE;
    if (!status.ok() && !input_done) break;
    if (!input_done) {
      ++step;
      examples += out[1].scalar<int32_t>();
      loss_sum += out[0].scalar<float>();
      ++loss_count;
      if (want_summary && out.size() > 2)
        (void)writer->AddSummary(out[2].scalar<std::string>(), step);
      progress.Update(step, examples, out[0].scalar<float>());
    }
    if (input_done || examples >= epoch_end) {
      const auto eval_start = Clock::now();
      double accuracy = 0;
      status = Evaluate(session, g, test, &accuracy);
      if (!status.ok()) break;
      report->test_accuracy.push_back(accuracy);
      report->epoch_loss.push_back(loss_count ? loss_sum / loss_count : 0);
      loss_sum = 0;
      loss_count = 0;
      ++epoch;
      report->epoch_rss_mib.push_back(ResidentMiB());
      char line[200];
      std::snprintf(line, sizeof line,
                    "epoch %d/%d: train loss %.4f, test accuracy %.4f, resident %.0f MiB", epoch,
                    o.epochs, report->epoch_loss.back(), accuracy, report->epoch_rss_mib.back());
      progress.Print(line);
      if (writer) {
        (void)writer->AddScalar("test_accuracy", static_cast<float>(accuracy), step);
        (void)writer->AddScalar("train_loss", static_cast<float>(report->epoch_loss.back()), step);
        if (session.Run({g.epoch_summary}, &out).ok())
          (void)writer->AddSummary(out[0].scalar<std::string>(), step);
        (void)writer->Flush();
      }
      epoch_end += epoch_examples;
      eval_seconds += std::chrono::duration<double>(Clock::now() - eval_start).count();
      if (!o.logdir.empty()) {
        status = saver.Save(session, o.logdir + "/model.ckpt", step, nullptr);
        if (!status.ok()) break;
        last_checkpoint = Clock::now();
      }
      if (input_done) break;
    } else if (!o.logdir.empty() && o.checkpoint_secs > 0 &&
               Clock::now() - last_checkpoint > std::chrono::duration<double>(o.checkpoint_secs)) {
      std::string path;
      status = saver.Save(session, o.logdir + "/model.ckpt", step, &path);
      if (!status.ok()) break;
      last_checkpoint = Clock::now();
    }
  }
  report->train_seconds =
      std::chrono::duration<double>(Clock::now() - train_start).count() - eval_seconds;
  report->global_step = step;
  report->examples_trained = examples;
  report->examples_per_second =
      report->train_seconds > 0 ? examples / report->train_seconds : 0;
  // Stop the input threads whether or not the epochs used all the input.
  coord.RequestStop();
  const Status joined = coord.Join(std::chrono::duration_cast<std::chrono::milliseconds>(kStopTimeout));
  if (writer) {
    const Status closed = writer->Close();
    if (status.ok()) status = closed;
  }
  if (!status.ok()) return status;
  AF_RETURN_IF_ERROR(joined);
  if (!o.export_dir.empty()) {
    AF_RETURN_IF_ERROR(ExportServingModel(root, session, g.images, g.model.logits, o.export_dir));
    progress.Print("exported a SavedModel to " + o.export_dir);
  }
  return Status::OK();
}

}  // namespace af::fmnist
