// examples/language_model across processes, as a user runs it: `actorflow
// cluster --ps 2 --workers N -- language_model --protocol P` on 127.0.0.1.
// The sampled softmax's gradients are IndexedSlices, carried by sparse
// accumulators on the ps tasks; every gradient must be accounted for
// exactly (per global step, m of each variable applied, the rest dropped
// and counted by the worker that computed it), and the chief's held-out
// perplexity must beat the corpus's unigram perplexity.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/client/json_test_util.h"
#include "tests/integration/fashion_mnist_test_util.h"
#include "tests/process_test_util.h"
#include "tests/temp_dir_test_util.h"

namespace af {
namespace {

using testing::Capture;
using testing::JsonValue;
using testing::LastJsonLine;
using testing::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Outcome {
  std::vector<JsonValue> workers;  // by task index
};

Outcome TrainCluster(const std::string& protocol, int workers, int steps) {
  TempDir dir("lm_cluster");
  const std::string command =
      std::string(AF_ACTORFLOW_BIN) + " cluster --ps 2 --workers " + std::to_string(workers) +
      " --logdir " + dir.path() + " -- " + AF_LANGUAGE_MODEL_BIN + " --protocol " + protocol +
      " --vocab 300 --words 60000 --batch 32 --num_steps 8 --hidden 48 --embedding_dim 24"
      " --train_steps " + std::to_string(steps) +
      " --learning_rate 0.5 --threads 1 --progress false --shards 3 --num_sampled 32 2>&1";
  int exit_code = -1;
  const std::string output = Capture(command, &exit_code);
  BOOST_TEST_REQUIRE(exit_code == 0, output);
  Outcome o;
  for (int i = 0; i < workers; ++i) {
    const std::string log = ReadFile(dir.path() + "/worker-" + std::to_string(i) + ".log");
    o.workers.push_back(LastJsonLine(log));
  }
  return o;
}

void CheckExactAccounting(const std::string& protocol, int workers, int m, int steps) {
  const Outcome o = TrainCluster(protocol, workers, steps);
  double applied = 0, dropped = 0, computed = 0;
  const double variables = o.workers[0]["variables"].number;
  BOOST_TEST(variables == 11);  // 3 + 3 + 3 shards, the LSTM's kernel and bias
  for (const JsonValue& w : o.workers) {
    BOOST_TEST(w["global_step"].number == steps);
    applied += w["gradients_applied"].number;
    dropped += w["gradients_dropped"].number;
    computed += w["steps"].number * variables;
    // Each step's bytes to and from both ps tasks (RunMetadata::traffic).
    BOOST_TEST_REQUIRE(w["ps_bytes_per_step"].array.size() == 2u);
    for (const JsonValue& ps : w["ps_bytes_per_step"].array) {
      BOOST_TEST(ps["to"].number > 0);
      BOOST_TEST(ps["from"].number > 0);
    }
  }
  BOOST_TEST(applied == m * steps * variables, protocol);
  BOOST_TEST(dropped == computed - applied, protocol);
  const JsonValue& chief = o.workers[0];
  BOOST_TEST_MESSAGE(protocol << ": perplexity " << chief["final_perplexity"].number
                              << ", unigram " << chief["unigram_perplexity"].number);
  BOOST_TEST(chief["final_perplexity"].number < chief["unigram_perplexity"].number);
}

BOOST_AUTO_TEST_SUITE(language_model_cluster)

BOOST_AUTO_TEST_CASE(sync_trains_with_sparse_accumulators_and_exact_counts) {
  CheckExactAccounting("sync", 2, 2, 200);
}

BOOST_AUTO_TEST_CASE(backup_applies_m_per_step_and_counts_every_drop) {
  CheckExactAccounting("backup:1", 3, 2, 200);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
