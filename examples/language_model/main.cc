// language_model: a word-level LSTM language model (the OSDI paper's §6.4
// model at this machine's scale) on a synthetic Zipf corpus with
// structure (examples/language_model/corpus.h), its embedding and softmax
// tables partitioned into --shards variables and trained with a sampled
// softmax (--num_sampled; 0 = the full softmax). Prints the held-out
// perplexity before and after, the corpus's unigram perplexity and words/s;
// the last line is JSON.
//
//   build/bin/language_model [--vocab 40000] [--num_sampled 512] [--shards 4]
//       [--train_steps 300] [--batch 32] [--num_steps 10] [--hidden 128]
//       [--embedding_dim 64] [--words 1000000] [--optimizer adagrad]
//       [--learning_rate 0.2] [--threads 2] [--seed 1]
//
// Under a cluster (TF_CONFIG, as `actorflow cluster --ps N --workers M --
// language_model ...` sets it) each worker trains data-parallel with
// --protocol async|sync|backup:B (examples/language_model/distributed_lm.h);
// every worker prints its own JSON line, the chief's with the perplexity.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/flag_spelling.h"
#include "examples/language_model/distributed_lm.h"
#include "examples/language_model/lm_trainer.h"

namespace {

bool ParseFlags(int argc, char** argv, af::lm::TrainOptions* o,
                af::lm::DistributedOptions* d) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "flag %s needs a value\n", flag.c_str());
      return false;
    }
    const std::string v = argv[++i];
    const long long n = std::atoll(v.c_str());
    if (flag == "--vocab") o->model.vocab = n, o->corpus.vocab = n;
    else if (flag == "--num_sampled") o->model.num_sampled = static_cast<int>(n);
    else if (flag == "--shards") o->model.shards = static_cast<int>(n);
    else if (flag == "--train_steps") o->train_steps = n;
    else if (flag == "--batch") o->batch = static_cast<int>(n);
    else if (flag == "--num_steps") o->model.num_steps = static_cast<int>(n);
    else if (flag == "--hidden") o->model.hidden = static_cast<int>(n);
    else if (flag == "--embedding_dim") o->model.embedding_dim = static_cast<int>(n);
    else if (flag == "--words") o->corpus.words = n;
    else if (flag == "--optimizer") o->optimizer = v;
    else if (flag == "--learning_rate") o->learning_rate = std::atof(v.c_str());
    else if (flag == "--threads") o->threads = static_cast<int>(n);
    else if (flag == "--eval_batches") o->eval_batches = static_cast<int>(n);
    else if (flag == "--seed") o->model.seed = n, o->corpus.seed = static_cast<uint64_t>(n);
    else if (flag == "--progress") o->progress = v != "false" && v != "0";
    else if (flag == "--protocol") d->protocol = v;
    else if (flag == "--sync_timeout_ms") d->sync_timeout_ms = n;
    else {
      std::fprintf(stderr, "unknown flag %s (see the comment atop examples/language_model/main.cc)\n",
                   flag.c_str());
      return false;
    }
  }
  if (o->model.vocab < 2 || o->model.shards < 1 || o->batch < 1 || o->model.num_steps < 1 ||
      o->model.num_sampled < 0 || o->model.num_sampled >= o->model.vocab) {
    std::fprintf(stderr, "need vocab >= 2, shards >= 1, batch >= 1, num_steps >= 1 and "
                         "0 <= num_sampled < vocab\n");
    return false;
  }
  return true;
}

// [{"task":"/job:ps/replica:0/task:0","to":N,"from":M},...]: mean bytes
// per timed step.
std::string PsTrafficJson(const af::lm::DistributedReport& r) {
  std::string json;
  for (const auto& ps : r.ps_traffic) {
    if (!json.empty()) json += ",";
    char entry[200];
    std::snprintf(entry, sizeof(entry), "{\"task\":\"%s\",\"to\":%.0f,\"from\":%.0f}",
                  ps.task.c_str(), ps.bytes_to, ps.bytes_from);
    json += entry;
  }
  return json;
}

int RunInCluster(const af::lm::TrainOptions& o, const af::lm::DistributedOptions& d) {
  af::lm::DistributedReport r;
  af::Status s = af::lm::TrainLanguageModelDistributed(o, d, &r);
  if (!s.ok()) {
    std::fprintf(stderr, "language_model %s: %s\n", r.task.c_str(), s.ToString().c_str());
    return 1;
  }
  std::printf("%s, protocol %s, %d ps, %d workers: %lld steps; %lld words after the first step in %.1f s "
              "(%.0f words/s); gradients applied %lld, dropped %lld (%lld variables); "
              "global step %lld\n",
              r.task.c_str(), d.protocol.c_str(), r.num_ps, r.num_workers,
              static_cast<long long>(r.steps), static_cast<long long>(r.timed_words), r.train_seconds,
              r.words_per_second(),
              static_cast<long long>(r.gradients_applied),
              static_cast<long long>(r.gradients_dropped),
              static_cast<long long>(r.variables_with_gradients),
              static_cast<long long>(r.global_step));
  std::printf("{\"example\":\"language_model\",\"task\":\"%s\",\"protocol\":\"%s\","
              "\"num_ps\":%d,\"num_workers\":%d,\"steps\":%lld,\"words_per_second\":%.1f,"
              "\"gradients_applied\":%lld,\"gradients_dropped\":%lld,\"variables\":%lld,"
              "\"global_step\":%lld,\"final_perplexity\":%.2f,\"unigram_perplexity\":%.2f,"
              "\"ps_bytes_per_step\":[%s]}\n",
              r.task.c_str(), d.protocol.c_str(), r.num_ps, r.num_workers,
              static_cast<long long>(r.steps), r.words_per_second(),
              static_cast<long long>(r.gradients_applied),
              static_cast<long long>(r.gradients_dropped),
              static_cast<long long>(r.variables_with_gradients),
              static_cast<long long>(r.global_step), r.final_perplexity, r.unigram_perplexity,
              PsTrafficJson(r).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  af::SnakeCaseFlags(argc, argv);
  af::lm::TrainOptions o;
  af::lm::DistributedOptions d;
  if (!ParseFlags(argc, argv, &o, &d)) return 2;
  std::string job;
  int index = -1;
  bool in_cluster = false;
  af::Status found = af::lm::FindLmClusterTask(&job, &index, &in_cluster);
  if (!found.ok()) {
    std::fprintf(stderr, "language_model: %s\n", found.ToString().c_str());
    return 2;
  }
  if (in_cluster) return RunInCluster(o, d);
  af::lm::TrainReport r;
  af::Status s = af::lm::TrainLanguageModel(o, &r);
  if (!s.ok()) {
    std::fprintf(stderr, "language_model: %s\n", s.ToString().c_str());
    return 1;
  }
  const char* softmax = o.model.num_sampled > 0 ? "sampled" : "full";
  std::printf("vocab %lld, %d shard(s), %s softmax: %lld steps; %lld words after the first step in %.1f s "
              "(%.0f words/s); held-out perplexity %.1f -> %.1f (unigram %.1f)\n",
              static_cast<long long>(o.model.vocab), o.model.shards, softmax,
              static_cast<long long>(r.steps), static_cast<long long>(r.timed_words), r.train_seconds,
              r.words_per_second(), r.initial_perplexity, r.final_perplexity,
              r.unigram_perplexity);
  std::printf("{\"example\":\"language_model\",\"vocab\":%lld,\"shards\":%d,\"softmax\":\"%s\","
              "\"num_sampled\":%d,\"steps\":%lld,\"words_per_second\":%.1f,"
              "\"initial_perplexity\":%.2f,\"final_perplexity\":%.2f,"
              "\"unigram_perplexity\":%.2f}\n",
              static_cast<long long>(o.model.vocab), o.model.shards, softmax,
              o.model.num_sampled, static_cast<long long>(r.steps), r.words_per_second(),
              r.initial_perplexity, r.final_perplexity, r.unigram_perplexity);
  return 0;
}
