#include "examples/language_model/lm_trainer.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

#include "client/client_session.h"
#include "client/optimizers/optimizer_by_name.h"
#include "client/standard_ops.h"
#include "client/variables.h"

namespace af::lm {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

Status TrainLanguageModel(const TrainOptions& o, TrainReport* report) {
  const std::vector<int32_t> corpus = GenerateCorpus(o.corpus);
  const int n = o.model.num_steps;
  // The last tenth is held out.
  const int64_t held_out_start = HeldOutStart(corpus);
  if (held_out_start < n + 1 || static_cast<int64_t>(corpus.size()) - held_out_start < n + 1)
    return errors::InvalidArgument("the corpus (", corpus.size(), " words) is too short for ",
                                   n, "-word windows");
  report->unigram_perplexity = UnigramPerplexity(corpus, o.model.vocab);

  Scope root = Scope::NewRootScope();
  LanguageModel m;
  AF_RETURN_IF_ERROR(BuildLanguageModel(root, o.model, &m));
  std::unique_ptr<Optimizer> optimizer = OptimizerByName(o.optimizer, o.learning_rate);
  if (!optimizer) return errors::InvalidArgument("unknown optimizer '", o.optimizer, "'");
  Operation train;
  AF_RETURN_IF_ERROR(optimizer->Minimize(root, m.train_loss, &train));

  SessionOptions session_options;
  session_options.threads_per_device = o.threads;
  ClientSession session(root, session_options);
  AF_RETURN_IF_ERROR(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr));

  Tensor inputs(DT_INT32, TensorShape({o.batch, n}));
  Tensor targets(DT_INT64, TensorShape({o.batch, n}));
  std::vector<int64_t> starts(static_cast<size_t>(o.batch));
  // Held-out windows, the same for both evaluations.
  auto perplexity = [&](double* out) -> Status {
    double loss = 0;
    std::vector<Tensor> fetched;
    for (int e = 0; e < o.eval_batches; ++e) {
      HeldOutStarts(corpus, n, e, &starts);
      FillWindows(corpus, starts, n, &inputs, &targets);
      AF_RETURN_IF_ERROR(
          session.Run({{m.inputs, inputs}, {m.targets, targets}}, {m.eval_loss}, &fetched));
      loss += fetched[0].scalar<float>();
    }
    *out = std::exp(loss / o.eval_batches);
    return Status::OK();
  };
  AF_RETURN_IF_ERROR(perplexity(&report->initial_perplexity));

  std::mt19937_64 rng(o.corpus.seed + 17);
  std::uniform_int_distribution<int64_t> start(0, held_out_start - n - 1);
  std::vector<Tensor> fetched;
  // The first step sets the graph up (partitions registered, kernels made):
  // words/s counts the steps after it.
  auto begin = Clock::now();
  int64_t timed_words = 0;
  for (int64_t step = 0; step < o.train_steps; ++step) {
    for (int64_t& s : starts) s = start(rng);
    FillWindows(corpus, starts, n, &inputs, &targets);
    AF_RETURN_IF_ERROR(session.Run({{m.inputs, inputs}, {m.targets, targets}}, {m.train_loss},
                                   {train}, &fetched));
    report->last_train_loss = fetched[0].scalar<float>();
    ++report->steps;
    report->words += static_cast<int64_t>(o.batch) * n;
    if (report->steps == 1)
      begin = Clock::now();
    else
      timed_words += static_cast<int64_t>(o.batch) * n;
    if (o.progress && (step + 1) % 100 == 0)
      std::fprintf(stderr, "step %lld: train loss %.3f\n", static_cast<long long>(step + 1),
                   report->last_train_loss);
  }
  report->train_seconds = std::chrono::duration<double>(Clock::now() - begin).count();
  report->timed_words = timed_words;
  AF_RETURN_IF_ERROR(perplexity(&report->final_perplexity));
  // Variables outlive a session in the process's containers: free the
  // tables, so that the next model of this process starts afresh.
  return session.Reset({});
}

}  // namespace af::lm
