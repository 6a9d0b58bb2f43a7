// bench_lm_words: the language model's training words/s with the full
// softmax and with a sampled softmax (OSDI Fig. 9's two curves, in one
// process), at each vocabulary, same run, same machine. Prints one JSON
// line per case and the sampled/full ratio per vocabulary.
//
//   bench_lm_words [--vocabs 40000,800000] [--num_sampled 512] [--shards 1]
//                  [--steps 20] [--full_steps 5] [--batch 32] [--threads 2]
//                  [--virtual_ps 1,2,4,8,16,32]
//
// The full softmax costs batch * num_steps * vocab * hidden multiply-adds
// per step each way, so it gets fewer steps (--full_steps).
//
// --virtual_ps runs Fig. 9's other axis in a virtual cluster (one process,
// every task an actor, actors/virtual_cluster.h, loopback transport
// model): for each count P, P ps tasks and one worker, the tables split
// into P shards spread over them (greedy by bytes), the async protocol, the
// worker's client as distributed training runs it under `actorflow
// cluster`. Every task shares this machine's cores: the figure shows what
// partitioning, routing and the messages cost as P grows, not the paper's
// added machines.
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "actors/virtual_cluster.h"
#include "bench/bench_util.h"
#include "client/session.h"
#include "examples/language_model/distributed_lm.h"
#include "examples/language_model/lm_trainer.h"

namespace {

struct Options {
  std::vector<int64_t> vocabs = {40000, 800000};
  std::vector<int> virtual_ps;  // empty: one process, no cluster
  int num_sampled = 512, shards = 1, batch = 32, threads = 2;
  int64_t steps = 20, full_steps = 5;
};

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], v = argv[i + 1];
    if (flag == "--vocabs") {
      o.vocabs.clear();
      std::stringstream in(v);
      for (std::string item; std::getline(in, item, ',');) o.vocabs.push_back(std::atoll(item.c_str()));
    } else if (flag == "--virtual_ps") {
      std::stringstream in(v);
      for (std::string item; std::getline(in, item, ',');) o.virtual_ps.push_back(std::atoi(item.c_str()));
    } else if (flag == "--num_sampled") o.num_sampled = std::atoi(v.c_str());
    else if (flag == "--shards") o.shards = std::atoi(v.c_str());
    else if (flag == "--steps") o.steps = std::atoll(v.c_str());
    else if (flag == "--full_steps") o.full_steps = std::atoll(v.c_str());
    else if (flag == "--batch") o.batch = std::atoi(v.c_str());
    else if (flag == "--threads") o.threads = std::atoi(v.c_str());
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      std::exit(2);
    }
  }
  return o;
}

af::lm::TrainOptions TrainerOptions(const Options& o, int64_t vocab, int num_sampled,
                                    int64_t steps, int shards) {
  af::lm::TrainOptions t;
  t.model.vocab = t.corpus.vocab = vocab;
  t.model.num_sampled = num_sampled;
  t.model.shards = shards;
  t.corpus.words = 200000;
  t.batch = o.batch;
  t.threads = o.threads;
  t.eval_batches = 1;
  t.progress = false;
  // The trainer leaves its first step (graph set-up) out of words/s.
  t.train_steps = steps + 1;
  return t;
}

double WordsPerSecond(const Options& o, int64_t vocab, int num_sampled, int64_t steps) {
  af::lm::TrainReport r;
  af::bench::CheckOk(
      af::lm::TrainLanguageModel(TrainerOptions(o, vocab, num_sampled, steps, o.shards), &r),
      "train");
  return r.words_per_second();
}

// One worker and `ps` ps tasks of a fresh virtual cluster.
double VirtualWordsPerSecond(const Options& o, int64_t vocab, int num_sampled, int64_t steps,
                             int ps) {
  af::VirtualClusterOptions vc = af::VirtualClusterOptions::PsWorkers(ps, 1);
  vc.threads_per_task = o.threads;
  std::unique_ptr<af::VirtualCluster> cluster;
  af::bench::CheckOk(af::VirtualCluster::Start(vc, &cluster), "virtual cluster");
  af::lm::DistributedOptions d;
  d.protocol = "async";
  d.cluster = cluster->ClientSpec("worker", 0);
  // Every task answers heartbeats from this process, whose cores a full
  // softmax step over 800k classes keeps busy for seconds (the default 1.5 s
  // took the worker task for lost).
  d.worker_lost_after_ms = 60000;
  af::lm::DistributedReport r;
  af::bench::CheckOk(af::lm::TrainLanguageModelDistributed(
                         TrainerOptions(o, vocab, num_sampled, steps, ps), d, &r),
                     "train in the virtual cluster");
  // Containers are per process and per device name, and every virtual
  // cluster names its tasks alike: the next cluster's ps task 0 would find
  // this one's tables. Clear them, as a client of a real cluster would.
  af::SessionOptions options;
  options.cluster = cluster->spec();
  std::unique_ptr<af::Session> session;
  af::bench::CheckOk(af::Session::Create(options, &session), "session to reset");
  af::bench::CheckOk(session->Reset({}), "reset the virtual tasks' containers");
  return r.words_per_second();
}

void VirtualSweep(const Options& o) {
  for (int64_t vocab : o.vocabs) {
    for (int ps : o.virtual_ps) {
      const std::string extra = "\"vocab\":" + std::to_string(vocab) + ",\"ps\":" +
                                std::to_string(ps) + ",\"batch\":" + std::to_string(o.batch) +
                                ",\"cluster\":\"virtual\"";
      const double full = VirtualWordsPerSecond(o, vocab, 0, o.full_steps, ps);
      const double sampled = VirtualWordsPerSecond(o, vocab, o.num_sampled, o.steps, ps);
      af::bench::PrintResult("lm_words", "full_softmax", extra, "words_per_second", full,
                             "words/s");
      af::bench::PrintResult("lm_words", "sampled_softmax_" + std::to_string(o.num_sampled),
                             extra, "words_per_second", sampled, "words/s");
      af::bench::PrintResult("lm_words", "sampled_over_full", extra, "ratio", sampled / full,
                             "x");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  if (!o.virtual_ps.empty()) {
    VirtualSweep(o);
    return 0;
  }
  for (int64_t vocab : o.vocabs) {
    const std::string extra = "\"vocab\":" + std::to_string(vocab) +
                              ",\"shards\":" + std::to_string(o.shards) +
                              ",\"batch\":" + std::to_string(o.batch);
    const double full = WordsPerSecond(o, vocab, 0, o.full_steps);
    const double sampled = WordsPerSecond(o, vocab, o.num_sampled, o.steps);
    af::bench::PrintResult("lm_words", "full_softmax", extra, "words_per_second", full, "words/s");
    af::bench::PrintResult("lm_words", "sampled_softmax_" + std::to_string(o.num_sampled), extra,
                           "words_per_second", sampled, "words/s");
    af::bench::PrintResult("lm_words", "sampled_over_full", extra, "ratio", sampled / full, "x");
  }
  return 0;
}
