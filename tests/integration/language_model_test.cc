// examples/language_model as a user runs it: a small vocabulary, the
// tables in 3 shards, a sampled softmax. The held-out perplexity (full
// softmax) must fall from where it starts to below the corpus's unigram
// perplexity: the model learned the successor structure, through sparse
// gradients into partitioned tables. The full softmax must learn too.
#include <boost/test/unit_test.hpp>

#include <string>

#include "tests/client/json_test_util.h"
#include "tests/integration/fashion_mnist_test_util.h"
#include "tests/process_test_util.h"

namespace af {
namespace {

using testing::Capture;
using testing::JsonValue;
using testing::LastJsonLine;

JsonValue Train(const std::string& flags) {
  int exit_code = -1;
  const std::string output =
      Capture(std::string(AF_LANGUAGE_MODEL_BIN) +
                  " --vocab 300 --words 60000 --batch 32 --num_steps 8 --hidden 48"
                  " --embedding_dim 24 --train_steps 400 --learning_rate 0.5 --threads 2"
                  " --progress false " + flags + " 2>&1",
              &exit_code);
  BOOST_TEST_REQUIRE(exit_code == 0, output);
  return LastJsonLine(output);
}

BOOST_AUTO_TEST_SUITE(language_model)

BOOST_AUTO_TEST_CASE(sampled_softmax_over_shards_beats_the_unigram_perplexity) {
  const JsonValue r = Train("--shards 3 --num_sampled 32");
  BOOST_TEST(r["softmax"].string == "sampled");
  const double before = r["initial_perplexity"].number, after = r["final_perplexity"].number,
               unigram = r["unigram_perplexity"].number;
  BOOST_TEST_MESSAGE("perplexity " << before << " -> " << after << ", unigram " << unigram);
  BOOST_TEST(after < before);
  BOOST_TEST(after < unigram);
}

BOOST_AUTO_TEST_CASE(full_softmax_learns_too) {
  const JsonValue r = Train("--shards 2 --num_sampled 0");
  BOOST_TEST(r["softmax"].string == "full");
  BOOST_TEST(r["final_perplexity"].number < r["unigram_perplexity"].number);
}

BOOST_AUTO_TEST_CASE(bad_flags_are_refused) {
  int exit_code = -1;
  const std::string output =
      Capture(std::string(AF_LANGUAGE_MODEL_BIN) + " --vocab 100 --num_sampled 100 2>&1",
              &exit_code);
  BOOST_TEST(exit_code == 2, output);
  BOOST_TEST(output.find("num_sampled") != std::string::npos, output);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
