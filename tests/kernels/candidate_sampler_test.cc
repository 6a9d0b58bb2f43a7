// The candidate samplers and ComputeAccidentalHits: expected counts against
// the closed forms (in double), empirical frequencies against each
// distribution (a chi-square bound), distinct candidates when unique,
// TensorFlow's seeding, FixedUnigram's table from unigrams and from a
// vocabulary file, the learned sampler following what it is shown, and
// the errors.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "tests/kernels/op_test_util.h"
#include "tests/temp_dir_test_util.h"
#include "tests/test_util.h"

// KernelRunner::Attr passes its value to an unqualified SetAttr, and core
// has none for list(float) yet; argument-dependent lookup finds this one
// through the NodeDef.
namespace tensorflow {
inline void SetAttr(NodeDef* node, const std::string& name, const std::vector<float>& values) {
  AttrValue::ListValue* list = (*node->mutable_attr())[name].mutable_list();
  list->clear_f();
  for (float v : values) list->add_f(v);
}
}  // namespace tensorflow

namespace af::test {
namespace {

using af::testing::Mentions;
using Probability = std::function<double(int64_t)>;

struct SamplerOptions {
  int64_t num_true = 1, num_sampled = 1, range_max = 1;
  bool unique = false;
  int64_t seed = 11, seed2 = 23;
};

void SetSamplerAttrs(KernelRunner& r, const SamplerOptions& o) {
  r.Attr("num_true", o.num_true)
      .Attr("num_sampled", o.num_sampled)
      .Attr("unique", o.unique)
      .Attr("range_max", o.range_max)
      .Attr("seed", o.seed)
      .Attr("seed2", o.seed2);
}

struct Draw {
  std::vector<int64_t> sampled;
  std::vector<double> sampled_expected, true_expected;
};

Tensor Classes(const std::vector<int64_t>& values, int64_t batch, int64_t num_true) {
  return Tensor::FromVector<int64_t>(values, TensorShape({batch, num_true}));
}

Draw RunSampler(KernelRunner& r, const Tensor& true_classes) {
  auto out = r.Run({true_classes});
  BOOST_REQUIRE_MESSAGE(out.ok(), out.status().ToString());
  const std::vector<Tensor>& t = *out;
  BOOST_REQUIRE(t.size() == 3u);
  BOOST_REQUIRE(t[0].dtype() == DT_INT64 && t[1].dtype() == DT_FLOAT && t[2].dtype() == DT_FLOAT);
  BOOST_REQUIRE(t[1].shape() == true_classes.shape());
  BOOST_REQUIRE(t[0].shape() == t[2].shape() && t[0].dims() == 1);
  Draw d;
  for (int64_t i = 0; i < t[0].NumElements(); ++i) {
    d.sampled.push_back(t[0].data<int64_t>()[i]);
    d.sampled_expected.push_back(t[2].data<float>()[i]);
  }
  for (int64_t i = 0; i < t[1].NumElements(); ++i) d.true_expected.push_back(t[1].data<float>()[i]);
  return d;
}

// TensorFlow's expected count of a class of probability p in a batch of n
// candidates that took `tries` draws.
double ExpectedCount(double p, int64_t n, int64_t tries) {
  if (tries == n) return p * static_cast<double>(n);
  return 1.0 - std::pow(1.0 - p, static_cast<double>(tries));
}

bool Close(double got, double want) {
  return std::fabs(got - want) <= 2e-6 + 2e-5 * std::fabs(want);
}

// The number of draws that explains every expected count of `d`, or -1.
int64_t TriesExplaining(const Draw& d, const std::vector<int64_t>& true_classes,
                        const Probability& p, int64_t n) {
  for (int64_t tries = n; tries < 100 * n + 1000; ++tries) {
    bool all = true;
    for (size_t i = 0; all && i < d.sampled.size(); ++i)
      all = Close(d.sampled_expected[i], ExpectedCount(p(d.sampled[i]), n, tries));
    for (size_t i = 0; all && i < true_classes.size(); ++i)
      all = Close(d.true_expected[i], ExpectedCount(p(true_classes[i]), n, tries));
    if (all) return tries;
  }
  return -1;
}

// Pearson's statistic of `counts` against `p`; a class of probability 0
// that was drawn makes it infinite.
double ChiSquare(const std::vector<int64_t>& counts, const Probability& p) {
  int64_t total = 0;
  for (int64_t c : counts) total += c;
  double chi2 = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    const double want = p(static_cast<int64_t>(k)) * static_cast<double>(total);
    if (want == 0) {
      if (counts[k] != 0) return INFINITY;
      continue;
    }
    const double miss = static_cast<double>(counts[k]) - want;
    chi2 += miss * miss / want;
  }
  return chi2;
}

// Generous: the statistic's mean is about `bins - 1` and its standard
// deviation sqrt(2 (bins - 1)); a wrong distribution over 100k draws lands
// far beyond.
double ChiSquareBound(int64_t bins) {
  const double dof = static_cast<double>(bins - 1);
  return dof + 8 * std::sqrt(2 * dof) + 10;
}

Probability UniformP(int64_t range) {
  return [range](int64_t) { return 1.0 / static_cast<double>(range); };
}

Probability LogUniformP(int64_t range) {
  return [range](int64_t k) {
    const double x = static_cast<double>(k);
    return std::log((x + 2.0) / (x + 1.0)) / std::log(static_cast<double>(range) + 1.0);
  };
}

Probability TableP(const std::vector<double>& weights) {
  double total = 0;
  for (double w : weights) total += w;
  return [weights, total](int64_t k) {
    if (k < 0 || k >= static_cast<int64_t>(weights.size())) return 0.0;
    return weights[static_cast<size_t>(k)] / total;
  };
}

// Draws `runs` batches of `num_sampled` with repeats and checks both the
// expected counts and the frequencies against `p`.
void CheckDistribution(KernelRunner& r, const SamplerOptions& o, const Probability& p,
                       int runs = 50) {
  const std::vector<int64_t> classes = {0, o.range_max - 1, o.range_max / 2};
  std::vector<int64_t> counts(static_cast<size_t>(o.range_max), 0);
  for (int run = 0; run < runs; ++run) {
    const Draw d = RunSampler(r, Classes(classes, 3, 1));
    BOOST_TEST_REQUIRE(TriesExplaining(d, classes, p, o.num_sampled) == o.num_sampled);
    for (int64_t v : d.sampled) {
      BOOST_TEST_REQUIRE((v >= 0 && v < o.range_max), "candidate " << v);
      ++counts[static_cast<size_t>(v)];
    }
  }
  const double chi2 = ChiSquare(counts, p);
  BOOST_TEST(chi2 < ChiSquareBound(o.range_max), r.node_def().op() << ": chi2 " << chi2);
}

// A unique batch: distinct candidates, and expected counts that one number
// of tries explains (more tries than candidates when the range is tight).
void CheckUnique(const std::string& op, const Probability& p, int64_t range,
                 std::function<void(KernelRunner&)> extra_attrs = {}) {
  SamplerOptions o{.num_true = 2, .num_sampled = range - 2, .range_max = range, .unique = true};
  KernelRunner r(op);
  SetSamplerAttrs(r, o);
  if (extra_attrs) extra_attrs(r);
  r.Input(Classes({0, 1}, 1, 2));
  const std::vector<int64_t> classes = {1, range - 1, 0, 2};
  bool saw_rejections = false;
  for (int run = 0; run < 5; ++run) {
    const Draw d = RunSampler(r, Classes(classes, 2, 2));
    BOOST_TEST(std::set<int64_t>(d.sampled.begin(), d.sampled.end()).size() == d.sampled.size(),
               op << " repeated a candidate");
    const int64_t tries = TriesExplaining(d, classes, p, o.num_sampled);
    BOOST_TEST(tries >= o.num_sampled, op << ": no number of tries explains the counts");
    saw_rejections = saw_rejections || tries > o.num_sampled;
  }
  BOOST_TEST(saw_rejections, op << ": a nearly full unique batch should reject some draws");
}

#define EXPECT_CODE(status_expr, want_code, text)                   \
  do {                                                              \
    const Status& af_st_ = (status_expr);                           \
    BOOST_CHECK_EQUAL(af_st_.code(), want_code);                    \
    BOOST_CHECK_MESSAGE(Mentions(af_st_, text), af_st_.ToString()); \
  } while (0)

BOOST_AUTO_TEST_SUITE(candidate_sampler)

BOOST_AUTO_TEST_CASE(uniform_matches_its_distribution_and_expected_counts) {
  SamplerOptions o{.num_sampled = 2000, .range_max = 40};
  KernelRunner r("UniformCandidateSampler");
  SetSamplerAttrs(r, o);
  r.Input(Classes({0}, 1, 1));
  CheckDistribution(r, o, UniformP(o.range_max));
  CheckUnique("UniformCandidateSampler", UniformP(12), 12);
}

BOOST_AUTO_TEST_CASE(log_uniform_matches_zipf_and_expected_counts) {
  SamplerOptions o{.num_sampled = 2000, .range_max = 60};
  KernelRunner r("LogUniformCandidateSampler");
  SetSamplerAttrs(r, o);
  r.Input(Classes({0}, 1, 1));
  CheckDistribution(r, o, LogUniformP(o.range_max));
  // P sums to 1 over the range: log(range + 1) telescopes.
  double total = 0;
  for (int64_t k = 0; k < o.range_max; ++k) total += LogUniformP(o.range_max)(k);
  BOOST_TEST(std::fabs(total - 1.0) < 1e-12);
  CheckUnique("LogUniformCandidateSampler", LogUniformP(10), 10);
}

BOOST_AUTO_TEST_CASE(fixed_unigram_from_unigrams_with_distortion_and_reserved_ids) {
  // Two reserved ids of weight 0, then counts 1, 2, 3, 4 raised to 0.5.
  const std::vector<double> weights = {0, 0, 1, std::sqrt(2.0), std::sqrt(3.0), 2};
  SamplerOptions o{.num_sampled = 2000, .range_max = 6};
  KernelRunner r("FixedUnigramCandidateSampler");
  SetSamplerAttrs(r, o);
  r.Attr("unigrams", std::vector<float>{1, 2, 3, 4})
      .Attr("distortion", 0.5f)
      .Attr("num_reserved_ids", int64_t{2});
  r.Input(Classes({0}, 1, 1));
  CheckDistribution(r, o, TableP(weights));  // the reserved ids never come out
  CheckUnique("FixedUnigramCandidateSampler", TableP({1, 2, 3, 4, 5, 6}), 6, [](KernelRunner& k) {
    k.Attr("unigrams", std::vector<float>{1, 2, 3, 4, 5, 6});
  });
}

BOOST_AUTO_TEST_CASE(fixed_unigram_shards_keep_their_ids) {
  // Ids 0, 1 reserved, 2..5 the counts 1..4; shard 1 of 2 keeps ids 1, 3, 5.
  SamplerOptions o{.num_sampled = 2000, .range_max = 3};
  KernelRunner r("FixedUnigramCandidateSampler");
  SetSamplerAttrs(r, o);
  r.Attr("unigrams", std::vector<float>{1, 2, 3, 4})
      .Attr("num_reserved_ids", int64_t{2})
      .Attr("num_shards", int64_t{2})
      .Attr("shard", int64_t{1});
  r.Input(Classes({0}, 1, 1));
  CheckDistribution(r, o, TableP({0, 2, 4}));
}

BOOST_AUTO_TEST_CASE(fixed_unigram_reads_a_vocabulary_file) {
  af::testing::TempDir dir("af_vocab");
  const std::string path = dir.path() + "/vocab.csv";
  {
    std::ofstream f(path);
    f << "the,extra,50\nof,30\n\nand, 20\r\n";  // a blank line is no id
  }
  SamplerOptions o{.num_sampled = 2000, .range_max = 3};
  KernelRunner r("FixedUnigramCandidateSampler");
  SetSamplerAttrs(r, o);
  r.Attr("vocab_file", path).Attr("distortion", 0.75f);
  r.Input(Classes({0}, 1, 1));
  CheckDistribution(r, o,
                    TableP({std::pow(50.0, 0.75), std::pow(30.0, 0.75), std::pow(20.0, 0.75)}));

  {
    std::ofstream f(path);
    f << "the,50\nof,lots\n";
  }
  KernelRunner bad("FixedUnigramCandidateSampler");
  SetSamplerAttrs(bad, {.range_max = 2});
  bad.Attr("vocab_file", path).Input(Classes({0}, 1, 1));
  const Status st = bad.Build();
  EXPECT_CODE(st, Code::INVALID_ARGUMENT, path);
  BOOST_TEST(Mentions(st, "line 2"), st);
  BOOST_TEST(Mentions(st, "lots"), st);

  KernelRunner missing("FixedUnigramCandidateSampler");
  SetSamplerAttrs(missing, {.range_max = 2});
  missing.Attr("vocab_file", dir.path() + "/absent.csv").Input(Classes({0}, 1, 1));
  EXPECT_CODE(missing.Build(), Code::NOT_FOUND, "absent.csv");
}

BOOST_AUTO_TEST_CASE(fixed_unigram_table_errors) {
  auto build = [](int64_t range_max, const std::vector<float>& unigrams,
                  const std::string& vocab_file = "") {
    KernelRunner r("FixedUnigramCandidateSampler");
    SetSamplerAttrs(r, {.range_max = range_max});
    r.Attr("unigrams", unigrams).Attr("vocab_file", vocab_file).Input(Classes({0}, 1, 1));
    return r.Build();
  };
  EXPECT_CODE(build(4, {1, 2, 3}), Code::INVALID_ARGUMENT, "range_max = 4");
  EXPECT_CODE(build(3, {1, -2, 3}), Code::INVALID_ARGUMENT, "unigrams[1]");
  EXPECT_CODE(build(2, {0, 0}), Code::INVALID_ARGUMENT, "positive");
  EXPECT_CODE(build(2, {}), Code::INVALID_ARGUMENT, "exactly one");
  EXPECT_CODE(build(2, {1, 2}, "/tmp/v.csv"), Code::INVALID_ARGUMENT, "exactly one");

  // Unique needs as many ids of nonzero weight as candidates.
  KernelRunner r("FixedUnigramCandidateSampler");
  SetSamplerAttrs(r, {.num_sampled = 3, .range_max = 4, .unique = true});
  r.Attr("unigrams", std::vector<float>{1, 0, 2, 0});
  r.Input(Classes({0}, 1, 1));
  const auto out = r.Run();
  BOOST_REQUIRE(!out.ok());
  EXPECT_CODE(out.status(), Code::INVALID_ARGUMENT, "num_sampled = 3");
}

BOOST_AUTO_TEST_CASE(learned_unigram_starts_uniform_and_follows_the_true_classes) {
  const int64_t range = 10, batch = 50;
  SamplerOptions o{.num_sampled = 500, .range_max = range};
  KernelRunner r("LearnedUnigramCandidateSampler");
  SetSamplerAttrs(r, o);
  const std::vector<int64_t> threes(batch, 3);
  r.Input(Classes(threes, batch, 1));
  // First batch: drawn before anything was learned, every count at 1.
  Draw d = RunSampler(r, Classes(threes, batch, 1));
  BOOST_TEST(TriesExplaining(d, threes, UniformP(range), o.num_sampled) == o.num_sampled);
  // After seeing class 3 fifty times: P(3) = 51 / 60, the others 1 / 60.
  std::vector<double> weights(range, 1.0);
  weights[3] = 1.0 + batch;
  d = RunSampler(r, Classes(threes, batch, 1));
  BOOST_TEST(TriesExplaining(d, threes, TableP(weights), o.num_sampled) == o.num_sampled);
  std::vector<int64_t> counts(range, 0);
  for (int64_t v : d.sampled) ++counts[static_cast<size_t>(v)];
  BOOST_TEST(ChiSquare(counts, TableP(weights)) < ChiSquareBound(range));
  // Then class 7, fifty times: the next batch sees both.
  weights[3] += batch;
  RunSampler(r, Classes(std::vector<int64_t>(batch, 7), batch, 1));
  weights[7] += batch;
  d = RunSampler(r, Classes(threes, batch, 1));
  BOOST_TEST(TriesExplaining(d, threes, TableP(weights), o.num_sampled) == o.num_sampled);

  auto out = r.Run({Classes({3, 10}, 2, 1)});
  BOOST_REQUIRE(!out.ok());
  EXPECT_CODE(out.status(), Code::INVALID_ARGUMENT, "true class 10");
}

BOOST_AUTO_TEST_CASE(seeds_repeat_a_sequence_and_zero_seeds_do_not) {
  const Tensor classes = Classes({1, 2}, 2, 1);
  auto sequence = [&](const std::string& op, int64_t seed, int64_t seed2) {
    KernelRunner r(op);
    SetSamplerAttrs(
        r, {.num_sampled = 20, .range_max = 1000, .unique = true, .seed = seed, .seed2 = seed2});
    r.Input(classes);
    std::vector<int64_t> all;
    for (int run = 0; run < 3; ++run) {
      const Draw d = RunSampler(r, classes);
      all.insert(all.end(), d.sampled.begin(), d.sampled.end());
    }
    return all;
  };
  for (const char* op : {"UniformCandidateSampler", "LogUniformCandidateSampler",
                         "LearnedUnigramCandidateSampler"}) {
    const auto a = sequence(op, 5, 7);
    BOOST_TEST(a == sequence(op, 5, 7), op);
    BOOST_TEST(a != sequence(op, 5, 8), op);
    // Successive steps of one kernel differ.
    BOOST_TEST(!std::equal(a.begin(), a.begin() + 20, a.begin() + 20), op);
  }
  BOOST_TEST(sequence("UniformCandidateSampler", 0, 0) !=
             sequence("UniformCandidateSampler", 0, 0));
}

BOOST_AUTO_TEST_CASE(bad_shapes_and_too_small_ranges_are_invalid_arguments) {
  for (const char* op : {"UniformCandidateSampler", "LogUniformCandidateSampler",
                         "LearnedUnigramCandidateSampler"}) {
    KernelRunner r(op);
    SetSamplerAttrs(r, {.num_true = 2, .num_sampled = 3, .range_max = 10});
    r.Input(Tensor::FromVector<int64_t>({1, 2, 3, 4}));
    auto out = r.Run();
    BOOST_REQUIRE(!out.ok());
    EXPECT_CODE(out.status(), Code::INVALID_ARGUMENT, "[4]");
    out = r.Run({Classes({1, 2, 3, 4, 5, 6}, 2, 3)});
    BOOST_REQUIRE(!out.ok());
    EXPECT_CODE(out.status(), Code::INVALID_ARGUMENT, "[2,3]");

    KernelRunner tight(op);
    SetSamplerAttrs(tight, {.num_sampled = 11, .range_max = 10, .unique = true});
    tight.Input(Classes({1}, 1, 1));
    out = tight.Run();
    BOOST_REQUIRE(!out.ok());
    EXPECT_CODE(out.status(), Code::INVALID_ARGUMENT, "num_sampled = 11");

    // With repeats allowed, more candidates than classes is fine.
    KernelRunner loose(op);
    SetSamplerAttrs(loose, {.num_sampled = 11, .range_max = 10});
    loose.Input(Classes({1}, 1, 1));
    out = loose.Run();
    BOOST_TEST(out.ok(), out.status());
  }
}

std::vector<std::pair<int64_t, int64_t>> ReferenceHits(const std::vector<int64_t>& classes,
                                                       int64_t num_true,
                                                       const std::vector<int64_t>& sampled) {
  std::vector<std::pair<int64_t, int64_t>> hits;
  const int64_t batch = static_cast<int64_t>(classes.size()) / num_true;
  for (int64_t i = 0; i < batch; ++i) {
    for (int64_t j = 0; j < static_cast<int64_t>(sampled.size()); ++j) {
      bool hit = false;
      for (int64_t k = 0; k < num_true; ++k)
        hit = hit ||
              classes[static_cast<size_t>(i * num_true + k)] == sampled[static_cast<size_t>(j)];
      if (hit) hits.emplace_back(i, j);
    }
  }
  return hits;
}

BOOST_AUTO_TEST_CASE(accidental_hits_match_a_reference_loop) {
  std::mt19937 rng(3);
  for (int64_t num_true : {1, 3, 12}) {
    const int64_t batch = 7, num_sampled = 15, range = 9;  // small range: many hits, repeats
    std::vector<int64_t> classes(static_cast<size_t>(batch * num_true)), sampled(num_sampled);
    for (auto& c : classes) c = static_cast<int64_t>(rng() % range);
    for (auto& c : sampled) c = static_cast<int64_t>(rng() % range);
    KernelRunner r("ComputeAccidentalHits");
    r.Attr("num_true", num_true);
    r.Input(Classes(classes, batch, num_true)).Input(Tensor::FromVector<int64_t>(sampled));
    auto out = r.Run();
    BOOST_REQUIRE_MESSAGE(out.ok(), out.status().ToString());
    const auto want = ReferenceHits(classes, num_true, sampled);
    BOOST_TEST_REQUIRE(!want.empty());
    const auto& t = *out;
    BOOST_REQUIRE(t[0].dtype() == DT_INT32 && t[1].dtype() == DT_INT64 && t[2].dtype() == DT_FLOAT);
    BOOST_TEST_REQUIRE(t[0].NumElements() == static_cast<int64_t>(want.size()));
    BOOST_TEST_REQUIRE(t[1].NumElements() == static_cast<int64_t>(want.size()));
    BOOST_TEST_REQUIRE(t[2].NumElements() == static_cast<int64_t>(want.size()));
    for (size_t h = 0; h < want.size(); ++h) {
      BOOST_TEST(t[0].data<int32_t>()[h] == want[h].first);
      BOOST_TEST(t[1].data<int64_t>()[h] == want[h].second);
      BOOST_TEST(t[2].data<float>()[h] == -std::numeric_limits<float>::max());
    }
  }
  // No hits: three empty vectors.
  KernelRunner none("ComputeAccidentalHits");
  none.Attr("num_true", int64_t{1});
  none.Input(Classes({1, 2}, 2, 1)).Input(Tensor::FromVector<int64_t>({3, 4, 5}));
  auto out = none.Run();
  BOOST_REQUIRE_MESSAGE(out.ok(), out.status().ToString());
  for (const Tensor& t : *out) BOOST_TEST(t.shape() == TensorShape({0}));
}

BOOST_AUTO_TEST_CASE(accidental_hits_check_shapes) {
  KernelRunner r("ComputeAccidentalHits");
  r.Attr("num_true", int64_t{2});
  r.Input(Classes({1, 2, 3}, 3, 1)).Input(Tensor::FromVector<int64_t>({1}));
  auto out = r.Run();
  BOOST_REQUIRE(!out.ok());
  EXPECT_CODE(out.status(), Code::INVALID_ARGUMENT, "[3,1]");
  out = r.Run({Classes({1, 2}, 1, 2), Tensor::FromVector<int64_t>({1, 2}, TensorShape({1, 2}))});
  BOOST_REQUIRE(!out.ok());
  EXPECT_CODE(out.status(), Code::INVALID_ARGUMENT, "[1,2]");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
