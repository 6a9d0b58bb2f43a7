// SampledSoftmaxLoss and NceLoss: with the sampler's answer fixed (Const
// sampled_values), the losses equal a double-precision reference, with and
// without accidental-hit removal, over one shard and two ("mod" and
// "div"); the inputs' gradient passes a numerical check; each weight
// shard's gradient is IndexedSlices equal, densified, to the reference;
// and sampled softmax with the default sampler trains a small model.
#include <boost/test/unit_test.hpp>

#include <cfloat>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/nn/sampled_losses.h"
#include "client/optimizers/gradient_descent.h"
#include "client/variables.h"
#include "grad_test_util.h"
#include "tests/test_util.h"

namespace af {
namespace {

constexpr int64_t kBatch = 3, kDim = 4, kClasses = 7, kNumTrue = 2, kNumSampled = 4;

// One problem: parameters, inputs, labels and what the sampler "drew".
struct Problem {
  std::vector<double> w, b, x;                       // [classes, dim], [classes], [batch, dim]
  std::vector<int64_t> labels = {1, 3, 2, 5, 6, 0};  // [batch, num_true]
  // Row 0 has 3 (position 0), row 1 has 2 (position 3), row 2 has 0 (2).
  std::vector<int64_t> sampled = {3, 4, 0, 2};
  std::vector<float> true_expected = {0.4f, 1.3f, 0.25f, 0.9f, 0.6f, 1.1f};
  std::vector<float> sampled_expected = {0.7f, 0.35f, 1.4f, 0.2f};

  Problem() {
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int64_t i = 0; i < kClasses * kDim; ++i) w.push_back(u(rng));
    for (int64_t i = 0; i < kClasses; ++i) b.push_back(u(rng));
    for (int64_t i = 0; i < kBatch * kDim; ++i) x.push_back(u(rng));
  }
};

enum class Loss { kSoftmax, kNce };

// The logits of row i: num_true true ones, then num_sampled sampled ones,
// each less log(expected count), -FLT_MAX added at accidental hits.
std::vector<double> ReferenceLogits(const Problem& p, int64_t i, bool remove_hits,
                                    std::vector<int64_t>* classes) {
  std::vector<double> logits;
  classes->clear();
  auto score = [&](int64_t c) {
    double dot = p.b[static_cast<size_t>(c)];
    for (int64_t d = 0; d < kDim; ++d)
      dot += p.x[static_cast<size_t>(i * kDim + d)] * p.w[static_cast<size_t>(c * kDim + d)];
    return dot;
  };
  for (int64_t k = 0; k < kNumTrue; ++k) {
    const int64_t c = p.labels[static_cast<size_t>(i * kNumTrue + k)];
    classes->push_back(c);
    logits.push_back(score(c) - std::log(static_cast<double>(p.true_expected[i * kNumTrue + k])));
  }
  for (int64_t j = 0; j < kNumSampled; ++j) {
    const int64_t c = p.sampled[static_cast<size_t>(j)];
    classes->push_back(c);
    double logit = score(c) - std::log(static_cast<double>(p.sampled_expected[j]));
    bool hit = false;
    for (int64_t k = 0; k < kNumTrue; ++k) hit = hit || p.labels[i * kNumTrue + k] == c;
    if (remove_hits && hit) logit += -static_cast<double>(FLT_MAX);
    logits.push_back(logit);
  }
  return logits;
}

double Target(size_t t) { return t < static_cast<size_t>(kNumTrue) ? 1.0 / kNumTrue : 0.0; }

// Per-example losses, and d(sum of losses)/d(logit) for each logit.
std::vector<double> ReferenceLoss(const Problem& p, Loss loss, bool remove_hits,
                                  std::vector<std::vector<double>>* dlogits = nullptr,
                                  std::vector<std::vector<int64_t>>* classes = nullptr) {
  std::vector<double> out;
  for (int64_t i = 0; i < kBatch; ++i) {
    std::vector<int64_t> row_classes;
    const std::vector<double> l = ReferenceLogits(p, i, remove_hits, &row_classes);
    std::vector<double> g(l.size());
    double value = 0;
    if (loss == Loss::kSoftmax) {
      double max = l[0];
      for (double v : l) max = std::max(max, v);
      double sum = 0;
      for (double v : l) sum += std::exp(v - max);
      const double log_z = max + std::log(sum);
      for (size_t t = 0; t < l.size(); ++t) {
        value -= Target(t) * (l[t] - log_z);
        g[t] = std::exp(l[t] - log_z) - Target(t);
      }
    } else {
      for (size_t t = 0; t < l.size(); ++t) {
        const double z = Target(t);
        value += std::max(l[t], 0.0) - l[t] * z + std::log1p(std::exp(-std::fabs(l[t])));
        g[t] = 1.0 / (1.0 + std::exp(-l[t])) - z;
      }
    }
    out.push_back(value);
    if (dlogits) dlogits->push_back(g);
    if (classes) classes->push_back(row_classes);
  }
  return out;
}

// Which shard holds class c and at which row, for `num_shards` shards.
std::pair<int64_t, int64_t> ShardOf(int64_t c, int num_shards, const std::string& strategy) {
  if (num_shards == 1) return {0, c};
  if (strategy == "mod") return {c % num_shards, c / num_shards};
  // "div" over 7 classes in 2 shards: rows 0..3, then 4..6.
  const int64_t first = (kClasses + num_shards - 1) / num_shards;
  return c < first ? std::make_pair(int64_t{0}, c) : std::make_pair(int64_t{1}, c - first);
}

// The rows of `values` (row length `width`; 1 for biases) held by each shard.
std::vector<std::vector<double>> SplitRows(const std::vector<double>& values, int64_t width,
                                           int num_shards, const std::string& strategy) {
  std::vector<std::vector<double>> shards(static_cast<size_t>(num_shards));
  std::vector<std::vector<std::vector<double>>> rows(static_cast<size_t>(num_shards));
  for (int64_t c = 0; c < kClasses; ++c) {
    const auto [shard, row] = ShardOf(c, num_shards, strategy);
    auto& r = rows[static_cast<size_t>(shard)];
    if (static_cast<int64_t>(r.size()) <= row) r.resize(static_cast<size_t>(row) + 1);
    r[static_cast<size_t>(row)].assign(values.begin() + c * width,
                                       values.begin() + (c + 1) * width);
  }
  for (int s = 0; s < num_shards; ++s)
    for (const auto& r : rows[static_cast<size_t>(s)])
      shards[static_cast<size_t>(s)].insert(shards[static_cast<size_t>(s)].end(), r.begin(),
                                            r.end());
  return shards;
}

Tensor Floats(const std::vector<double>& v, const TensorShape& shape) {
  std::vector<float> f(v.begin(), v.end());
  return Tensor::FromVector<float>(f, shape);
}

// The graph of one case: shard variables of w and b, the constant inputs
// and sampler answer, and the loss.
struct Graph {
  Scope root = Scope::NewRootScope();
  std::vector<Output> w_shards, b_shards;
  Output loss;
};

void Build(Graph* g, const Problem& p, Loss loss, bool remove_hits, int num_shards,
           const std::string& strategy, const std::string& name) {
  const Scope& root = g->root;
  const auto w = SplitRows(p.w, kDim, num_shards, strategy);
  const auto b = SplitRows(p.b, 1, num_shards, strategy);
  for (int s = 0; s < num_shards; ++s) {
    const int64_t rows = static_cast<int64_t>(b[static_cast<size_t>(s)].size());
    const std::string id = name + "_" + std::to_string(s);
    g->w_shards.push_back(Variable(root.WithOpName(id + "_w"),
                                   Floats(w[static_cast<size_t>(s)], TensorShape({rows, kDim})))
                              .var);
    g->b_shards.push_back(
        Variable(root.WithOpName(id + "_b"), Floats(b[static_cast<size_t>(s)], TensorShape({rows})))
            .var);
  }
  auto labels =
      ops::Const(root, Tensor::FromVector<int64_t>(p.labels, TensorShape({kBatch, kNumTrue})));
  auto inputs = ops::Const(root, Floats(p.x, TensorShape({kBatch, kDim})));
  SampledValues drawn{
      ops::Const(root, Tensor::FromVector<int64_t>(p.sampled)),
      ops::Const(root, Tensor::FromVector<float>(p.true_expected, TensorShape({kBatch, kNumTrue}))),
      ops::Const(root, Tensor::FromVector<float>(p.sampled_expected))};
  g->loss = loss == Loss::kSoftmax
                ? SampledSoftmaxLoss(root, g->w_shards, g->b_shards, labels, inputs, kNumSampled,
                                     kClasses, kNumTrue, &drawn, remove_hits, strategy)
                : NceLoss(root, g->w_shards, g->b_shards, labels, inputs, kNumSampled, kClasses,
                          kNumTrue, &drawn, remove_hits, strategy);
  BOOST_TEST_REQUIRE(root.ok(), root.status());
}

std::vector<Tensor> RunAfterInit(const Scope& root, const std::vector<Output>& fetch) {
  ClientSession session(root);
  std::vector<Tensor> out;
  Status s = session.Run({}, {}, {GlobalVariablesInitializer(root)}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  s = session.Run(fetch, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  return out;
}

bool Near(double got, double want) {
  return std::fabs(got - want) <= 1e-4 + 1e-4 * std::fabs(want);
}

struct Case {
  Loss loss;
  bool remove_hits;
  int num_shards;
  std::string strategy;
  std::string Name() const {
    return std::string(loss == Loss::kSoftmax ? "softmax" : "nce") +
           (remove_hits ? "_nohits" : "_hits") + "_" + std::to_string(num_shards) + strategy;
  }
};

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (Loss loss : {Loss::kSoftmax, Loss::kNce})
    for (bool remove_hits : {true, false})
      for (const auto& [shards, strategy] :
           std::vector<std::pair<int, std::string>>{{1, "mod"}, {2, "mod"}, {2, "div"}})
        cases.push_back({loss, remove_hits, shards, strategy});
  return cases;
}

BOOST_AUTO_TEST_SUITE(sampled_losses)

BOOST_AUTO_TEST_CASE(losses_equal_a_double_reference) {
  const Problem p;
  for (const Case& c : AllCases()) {
    Graph g;
    Build(&g, p, c.loss, c.remove_hits, c.num_shards, c.strategy, "sl_fwd_" + c.Name());
    const Tensor loss = RunAfterInit(g.root, {g.loss})[0];
    BOOST_TEST_REQUIRE(loss.shape() == TensorShape({kBatch}), c.Name());
    const std::vector<double> want = ReferenceLoss(p, c.loss, c.remove_hits);
    for (int64_t i = 0; i < kBatch; ++i)
      BOOST_TEST(Near(loss.data<float>()[i], want[static_cast<size_t>(i)]),
                 c.Name() << " row " << i << ": " << loss.data<float>()[i] << " vs "
                          << want[static_cast<size_t>(i)]);
  }
  // The hits matter: removing them changes every row's loss here.
  const auto kept = ReferenceLoss(p, Loss::kSoftmax, false);
  const auto removed = ReferenceLoss(p, Loss::kSoftmax, true);
  for (int64_t i = 0; i < kBatch; ++i)
    BOOST_TEST(std::fabs(kept[static_cast<size_t>(i)] - removed[static_cast<size_t>(i)]) > 1e-3);
}

BOOST_AUTO_TEST_CASE(weight_gradients_are_sparse_and_match_the_reference) {
  const Problem p;
  for (const Case& c : AllCases()) {
    Graph g;
    Build(&g, p, c.loss, c.remove_hits, c.num_shards, c.strategy, "sl_grad_" + c.Name());
    std::vector<Output> xs = g.w_shards;
    xs.insert(xs.end(), g.b_shards.begin(), g.b_shards.end());
    std::vector<GradientValue> grads;
    Status st = AddSymbolicGradients(g.root, {g.loss}, xs, &grads);
    BOOST_TEST_REQUIRE(st.ok(), st);
    std::vector<Output> dense;
    for (const GradientValue& grad : grads) {
      BOOST_TEST(grad.is_sparse(), c.Name() << ": a shard's gradient is not IndexedSlices");
      dense.push_back(ToDense(g.root, grad));
    }
    const std::vector<Tensor> got = RunAfterInit(g.root, dense);

    // d(sum of losses)/dW[c] = sum over the logits of class c of
    // dlogit * x[row]; /db[c] = sum of dlogit.
    std::vector<std::vector<double>> dlogits;
    std::vector<std::vector<int64_t>> classes;
    ReferenceLoss(p, c.loss, c.remove_hits, &dlogits, &classes);
    std::vector<double> dw(kClasses * kDim, 0.0), db(kClasses, 0.0);
    for (int64_t i = 0; i < kBatch; ++i) {
      for (size_t t = 0; t < classes[i].size(); ++t) {
        const int64_t cls = classes[i][t];
        db[cls] += dlogits[i][t];
        for (int64_t d = 0; d < kDim; ++d) dw[cls * kDim + d] += dlogits[i][t] * p.x[i * kDim + d];
      }
    }
    const auto dw_shards = SplitRows(dw, kDim, c.num_shards, c.strategy);
    const auto db_shards = SplitRows(db, 1, c.num_shards, c.strategy);
    for (int s = 0; s < c.num_shards; ++s) {
      const Tensor& gw = got[static_cast<size_t>(s)];
      const Tensor& gb = got[static_cast<size_t>(c.num_shards) + static_cast<size_t>(s)];
      BOOST_TEST_REQUIRE(gw.NumElements() == static_cast<int64_t>(dw_shards[s].size()));
      BOOST_TEST_REQUIRE(gb.NumElements() == static_cast<int64_t>(db_shards[s].size()));
      for (int64_t e = 0; e < gw.NumElements(); ++e)
        BOOST_TEST(Near(gw.data<float>()[e], dw_shards[s][e]),
                   c.Name() << " shard " << s << " dW[" << e << "]: " << gw.data<float>()[e]
                            << " vs " << dw_shards[s][e]);
      for (int64_t e = 0; e < gb.NumElements(); ++e)
        BOOST_TEST(Near(gb.data<float>()[e], db_shards[s][e]),
                   c.Name() << " shard " << s << " db[" << e << "]");
    }
  }
}

BOOST_AUTO_TEST_CASE(inputs_gradient_passes_a_numerical_check) {
  const Problem p;
  for (Loss loss : {Loss::kSoftmax, Loss::kNce}) {
    for (bool remove_hits : {true, false}) {
      Scope root = Scope::NewRootScope();
      auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({kBatch, kDim}));
      const auto w = SplitRows(p.w, kDim, 2, "mod");
      const auto b = SplitRows(p.b, 1, 2, "mod");
      std::vector<Output> w_shards, b_shards;
      for (int s = 0; s < 2; ++s) {
        const int64_t rows = static_cast<int64_t>(b[s].size());
        w_shards.push_back(
            ops::Const(root, Tensor::FromVector<double>(w[s], TensorShape({rows, kDim}))));
        b_shards.push_back(ops::Const(root, Tensor::FromVector<double>(b[s], TensorShape({rows}))));
      }
      auto labels =
          ops::Const(root, Tensor::FromVector<int64_t>(p.labels, TensorShape({kBatch, kNumTrue})));
      SampledValues drawn{ops::Const(root, Tensor::FromVector<int64_t>(p.sampled)),
                          ops::Const(root, Tensor::FromVector<float>(
                                               p.true_expected, TensorShape({kBatch, kNumTrue}))),
                          ops::Const(root, Tensor::FromVector<float>(p.sampled_expected))};
      Output y = loss == Loss::kSoftmax
                     ? SampledSoftmaxLoss(root, w_shards, b_shards, labels, x, kNumSampled,
                                          kClasses, kNumTrue, &drawn, remove_hits)
                     : NceLoss(root, w_shards, b_shards, labels, x, kNumSampled, kClasses, kNumTrue,
                               &drawn, remove_hits);
      BOOST_TEST_REQUIRE(root.ok(), root.status());
      const double error = testing::GradientError(
          root, {x}, {Tensor::FromVector<double>(p.x, TensorShape({kBatch, kDim}))}, {y});
      BOOST_TEST(error < 1e-6, (loss == Loss::kSoftmax ? "softmax" : "nce")
                                   << " remove_hits " << remove_hits << ": " << error);
    }
  }
}

// Six classes, each an input pattern of its own: sampled softmax with the
// default (log-uniform) sampler lowers the full softmax loss.
BOOST_AUTO_TEST_CASE(sampled_softmax_training_lowers_the_full_softmax_loss) {
  constexpr int64_t kTrainClasses = 6, kPerClass = 2, kN = kTrainClasses * kPerClass;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0, 0.1);
  std::vector<double> x;
  std::vector<int64_t> labels;
  for (int64_t n = 0; n < kN; ++n) {
    const int64_t c = n % kTrainClasses;
    for (int64_t d = 0; d < kTrainClasses; ++d) x.push_back((d == c ? 1.0 : 0.0) + noise(rng));
    labels.push_back(c);
  }
  Scope root = Scope::NewRootScope();
  Variable w(root.WithOpName("sl_train_w"),
             ops::Const(root, Tensor::FromVector<float>(
                                  std::vector<float>(kTrainClasses * kTrainClasses, 0.0f),
                                  TensorShape({kTrainClasses, kTrainClasses}))));
  Variable b(root.WithOpName("sl_train_b"),
             ops::Const(root, Tensor::FromVector<float>(std::vector<float>(kTrainClasses, 0.0f))));
  auto inputs = ops::Const(root, Floats(x, TensorShape({kN, kTrainClasses})));
  auto label_matrix = ops::Const(root, Tensor::FromVector<int64_t>(labels, TensorShape({kN, 1})));
  Output sampled = SampledSoftmaxLoss(root, {w.var}, {b.var}, label_matrix, inputs,
                                      /*num_sampled=*/3, kTrainClasses, 1, nullptr, true, "mod",
                                      /*seed=*/9);
  auto train_loss = ops::Mean(root, sampled, {0});
  auto logits =
      ops::Add(root, ops::MatMul(root, inputs, w.var, ops::MatMul::TransposeB(true)), b.var);
  auto full = ops::Mean(root,
                        ops::SparseSoftmaxCrossEntropyWithLogits(
                            root, logits, ops::Const(root, Tensor::FromVector<int64_t>(labels)))
                            .loss,
                        {0});
  GradientDescentOptimizer sgd(0.5);
  Operation train;
  Status st = sgd.Minimize(root, train_loss, &train, {w.var, b.var});
  BOOST_TEST_REQUIRE(st.ok(), st);

  ClientSession session(root);
  std::vector<Tensor> out;
  st = session.Run({}, {}, {GlobalVariablesInitializer(root)}, &out);
  BOOST_TEST_REQUIRE(st.ok(), st);
  st = session.Run({full}, &out);
  BOOST_TEST_REQUIRE(st.ok(), st);
  const float before = out[0].data<float>()[0];
  for (int step = 0; step < 200; ++step) {
    st = session.Run({}, {}, {train}, &out);
    BOOST_TEST_REQUIRE(st.ok(), st);
  }
  st = session.Run({full, train_loss}, &out);
  BOOST_TEST_REQUIRE(st.ok(), st);
  const float after = out[0].data<float>()[0];
  BOOST_TEST(std::isfinite(out[1].data<float>()[0]));
  BOOST_TEST(std::fabs(before - std::log(static_cast<double>(kTrainClasses))) < 1e-5,
             "zero weights score every class alike: " << before);
  BOOST_TEST(after < 0.5f * before, "full softmax loss " << before << " -> " << after);
}

BOOST_AUTO_TEST_CASE(bad_arguments_are_named) {
  Scope root = Scope::NewRootScope();
  auto w = ops::Const(root, Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})));
  auto b = ops::Const(root, Tensor::FromVector<float>({0, 0}));
  auto labels = ops::Const(root, Tensor::FromVector<int64_t>({1}, TensorShape({1, 1})));
  auto x = ops::Const(root, Tensor::FromVector<float>({1, 1}, TensorShape({1, 2})));
  SampledSoftmaxLoss(root, {w}, {b}, labels, x, /*num_sampled=*/0, 2);
  BOOST_TEST(root.status().code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(testing::Mentions(root.status(), "num_sampled"), root.status());

  Scope wide = Scope::NewRootScope();
  SampledSoftmaxLoss(wide,
                     {ops::Const(wide, Tensor::FromVector<float>({1, 2}, TensorShape({1, 2})))},
                     {ops::Const(wide, Tensor::FromVector<float>({0}))},
                     ops::Const(wide, Tensor::FromVector<int64_t>({0}, TensorShape({1, 1}))),
                     ops::Const(wide, Tensor::FromVector<float>({1, 1}, TensorShape({1, 2}))), 1, 1,
                     /*num_true=*/2);
  BOOST_TEST(testing::Mentions(wide.status(), "num_true = 2], got shape [1,1]"), wide.status());

  Scope other = Scope::NewRootScope();
  auto ints = ops::Const(other, Tensor::FromVector<int32_t>({1, 1}, TensorShape({1, 2})));
  NceLoss(other, {ops::Const(other, Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})))},
          {ops::Const(other, Tensor::FromVector<float>({0, 0}))},
          ops::Const(other, Tensor::FromVector<int64_t>({1}, TensorShape({1, 1}))), ints, 1, 2);
  BOOST_TEST(testing::Mentions(other.status(), "NceLoss: inputs must be float or double"),
             other.status());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
