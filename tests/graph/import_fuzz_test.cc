// Thousands of deterministic corruptions of real GraphDefs: every one must
// parse-and-import to OK or to a clean error, never crash or hang, and a
// failed import must leave the graph empty.
#include <boost/test/unit_test.hpp>

#include <google/protobuf/stubs/logging.h>

#include <random>
#include <vector>

#include "graph_test_util.h"

namespace af {
namespace {

using testing::DataPath;
using testing::ReadBytes;

// A small graph in text format, so the text parser gets corrupted input too.
constexpr char kTextGraph[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT
         tensor_shape { dim { size: 2 } dim { size: 2 } } float_val: 1 float_val: 2
         float_val: 3 float_val: 4 } } } }
node { name: "m" op: "MatMul" input: "x" input: "w:0"
       attr { key: "T" value { type: DT_FLOAT } } }
node { name: "r" op: "Relu" input: "m" input: "^w" attr { key: "T" value { type: DT_FLOAT } } }
)";

// Swapping these for one another keeps text parseable while breaking the
// graph in the ways import must catch: bad names, ops, types, ports, shapes.
const std::vector<std::string> kTextWords = {
    "\"x\"", "\"w\"", "\"m\"", "\"r\"", "\"w:0\"", "\"w:1\"", "\"^w\"", "\"^r\"", "\"m:3\"",
    "\"Placeholder\"", "\"Const\"", "\"MatMul\"", "\"Relu\"", "\"Identity\"", "\"Nope\"",
    "\"\"", "\"a:b\"", "DT_FLOAT", "DT_INT32", "DT_STRING", "DT_INVALID", "-1", "2", "3", "0",
    "-7", "4"};

class Mutator {
 public:
  Mutator(uint32_t seed, const std::vector<std::string>* words) : rng_(seed), words_(words) {}

  std::string Mutate(const std::string& original) {
    std::string s = original;
    const int kinds = words_ != nullptr ? 6 : 5;
    switch (Below(kinds)) {
      case 0:  // truncate
        s.resize(Below(s.size() + 1));
        break;
      case 1:  // overwrite a few bytes
        for (int i = 0, n = 1 + Below(8); i < n && !s.empty(); ++i) s[Pos(s.size())] = Byte();
        break;
      case 2:  // insert a few bytes
        for (int i = 0, n = 1 + Below(4); i < n; ++i) s.insert(s.begin() + Pos(s.size() + 1), Byte());
        break;
      case 3:  // flip single bits
        for (int i = 0, n = 1 + Below(3); i < n && !s.empty(); ++i)
          s[Pos(s.size())] ^= static_cast<char>(1u << Below(8));
        break;
      case 4: {  // copy a chunk elsewhere (duplicates nodes, attrs, inputs)
        const size_t from = Pos(s.size()), len = Below(std::min<size_t>(s.size() - from, 256) + 1);
        s.insert(Pos(s.size() + 1), s.substr(from, len));
        break;
      }
      default:  // replace words
        for (int i = 0, n = 1 + Below(2); i < n; ++i) ReplaceWord(&s);
        break;
    }
    return s;
  }

 private:
  void ReplaceWord(std::string* s) {
    const std::string& from = (*words_)[Below(words_->size())];
    const std::string& to = (*words_)[Below(words_->size())];
    std::vector<size_t> hits;
    for (size_t p = s->find(from); p != std::string::npos; p = s->find(from, p + 1)) hits.push_back(p);
    if (!hits.empty()) s->replace(hits[Below(hits.size())], from.size(), to);
  }
  // Large graphs are mostly weight bytes; aim two thirds of the edits at
  // their first and last kilobytes, where node names, ops and attrs sit.
  size_t Pos(size_t n) {
    constexpr size_t kEdge = 1024;
    if (n <= 2 * kEdge) return Below(n);
    switch (Below(3)) {
      case 0: return Below(kEdge);
      case 1: return n - 1 - Below(kEdge);
      default: return Below(n);
    }
  }
  size_t Below(size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  char Byte() { return static_cast<char>(Below(256)); }

  std::mt19937 rng_;
  const std::vector<std::string>* words_;
};

bool IsCleanError(const Status& s) {
  return s.ok() || (s.code() != Code::UNKNOWN && s.code() != Code::INTERNAL && !s.message().empty());
}

struct Tally {
  int unparsable = 0, rejected = 0, imported = 0;
};

Tally Fuzz(const std::string& original, bool text, int iterations, uint32_t seed,
           const std::vector<std::string>* words = nullptr) {
  google::protobuf::LogSilencer quiet;  // invalid UTF-8 in names is logged by protobuf
  Mutator mutator(seed, words);
  Tally tally;
  for (int i = 0; i < iterations; ++i) {
    const std::string bytes = mutator.Mutate(original);
    tensorflow::GraphDef def;
    Status s = ParseGraphDefBytes(bytes, text, &def);
    BOOST_TEST(IsCleanError(s), "mutant " << i << ": " << s);
    if (!s.ok()) {
      ++tally.unparsable;
      continue;
    }
    Graph g;
    s = ImportGraphDef(def, &g);
    BOOST_TEST(IsCleanError(s), "mutant " << i << ": " << s);
    if (!s.ok()) {
      ++tally.rejected;
      BOOST_TEST(g.num_nodes() == 0, "mutant " << i << " left nodes behind");
      continue;
    }
    ++tally.imported;
    tensorflow::GraphDef exported;
    g.ToGraphDef(&exported);
    Graph again;
    s = ImportGraphDef(exported, &again);
    BOOST_TEST(s.ok(), "mutant " << i << " round trip: " << s);
  }
  BOOST_TEST_MESSAGE(iterations << " mutants: " << tally.unparsable << " unparsable, "
                                << tally.rejected << " rejected by import, " << tally.imported
                                << " imported");
  return tally;
}

BOOST_AUTO_TEST_CASE(mutated_regression_graph) {
  Tally t = Fuzz(ReadBytes(DataPath("tf2onnx_regression_frozen.pb")), /*text=*/false, 3000, 1);
  BOOST_TEST(t.rejected > 0);  // import's checks were reached, not just the parser's
}

BOOST_AUTO_TEST_CASE(mutated_fc_layers_graph) {
  Fuzz(ReadBytes(DataPath("tf2onnx_fc_layers_frozen.pb")), /*text=*/false, 300, 2);
}

BOOST_AUTO_TEST_CASE(mutated_mnist_graph) {
  Fuzz(ReadBytes(DataPath("chaow94_mnist_mlp_frozen.pb")), /*text=*/false, 500, 3);
}

BOOST_AUTO_TEST_CASE(mutated_text_graph) {
  Graph unmutated;
  Status s = ImportGraphDef(testing::ParseText(kTextGraph), &unmutated);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  Tally t = Fuzz(kTextGraph, /*text=*/true, 3000, 4, &kTextWords);
  BOOST_TEST(t.rejected > 100);
  BOOST_TEST(t.imported > 0);
}

}  // namespace
}  // namespace af
