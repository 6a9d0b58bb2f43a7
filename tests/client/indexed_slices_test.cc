// Sparse gradients: a gather's params get IndexedSlices (the rows read),
// sums of them concatenate, a dense use converts, and the optimizers
// update only those rows (gradient descent, lazy Adam) or match their
// dense update (Adam).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <map>

#include "client/client_session.h"
#include "client/gradients.h"
#include "client/optimizers/optimizers.h"
#include "client/standard_ops.h"

namespace af {
namespace {

constexpr int kRows = 6, kDim = 3;

Tensor Table() {
  Tensor t(DT_DOUBLE, TensorShape({kRows, kDim}));
  for (int i = 0; i < kRows * kDim; ++i) t.data<double>()[i] = 0.1 * i - 0.7;
  return t;
}

// loss = sum(gather(table, ids) * weights): d loss / d table[ids[j]] += weights[j].
struct Embedding {
  Scope root = Scope::NewRootScope();
  Variable table{root.WithOpName("table"), Input::Initializer(Table())};
  std::vector<int32_t> ids = {4, 1, 4, 0};
  Output rows = ops::Gather(root, table, ops::Const(root, Input::Initializer({4, 1, 4, 0})));
  Output weights = ops::Const(root, Input::Initializer(Weights()));
  Output loss = ops::Sum(root, ops::Mul(root, rows, weights), IndexAxes());

  static Tensor Weights() {
    Tensor t(DT_DOUBLE, TensorShape({4, kDim}));
    for (int i = 0; i < 4 * kDim; ++i) t.data<double>()[i] = 1.0 + 0.25 * i;
    return t;
  }
  Output IndexAxes() { return ops::Const(root, Input::Initializer({0, 1})); }
  // The dense gradient by hand.
  std::vector<double> WantGradient() const {
    std::vector<double> g(kRows * kDim, 0.0);
    const Tensor w = Weights();
    for (size_t j = 0; j < ids.size(); ++j)
      for (int d = 0; d < kDim; ++d) g[ids[j] * kDim + d] += w.data<double>()[j * kDim + d];
    return g;
  }
};

std::vector<Tensor> Fetch(const Scope& root, const std::vector<Output>& outputs,
                          const std::vector<Operation>& before = {}) {
  ClientSession session(root);
  std::vector<Tensor> out;
  Status s = session.Run({}, {}, {GlobalVariablesInitializer(root)}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  for (const Operation& op : before) {
    s = session.Run({}, {}, {op}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
  }
  s = session.Run(outputs, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  return out;
}

void CheckClose(const Tensor& got, const std::vector<double>& want, double tol = 1e-12) {
  BOOST_TEST_REQUIRE(got.NumElements() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i)
    BOOST_TEST(std::fabs(got.data<double>()[i] - want[i]) < tol,
               "[" << i << "] " << got.data<double>()[i] << " vs " << want[i]);
}

BOOST_AUTO_TEST_SUITE(indexed_slices)

BOOST_AUTO_TEST_CASE(a_gather_gives_its_params_the_rows_it_read) {
  Embedding e;
  std::vector<GradientValue> grads;
  Status s = AddSymbolicGradients(e.root, {e.loss}, {e.table}, &grads);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST_REQUIRE(grads[0].is_sparse());
  const IndexedSlices& g = grads[0].slices();
  auto out = Fetch(e.root, {g.values, g.indices, g.dense_shape, ToDense(e.root, grads[0])});
  BOOST_TEST(out[0].shape().DebugString() == "[4,3]");
  BOOST_TEST(std::vector<int32_t>(out[1].data<int32_t>(), out[1].data<int32_t>() + 4) == e.ids);
  BOOST_TEST(out[2].data<int32_t>()[0] == kRows);
  BOOST_TEST(out[2].data<int32_t>()[1] == kDim);
  CheckClose(out[3], e.WantGradient());
  // The tensor API converts the same gradient.
  std::vector<Output> dense;
  s = AddSymbolicGradients(e.root, {e.loss}, {e.table}, &dense);
  BOOST_TEST_REQUIRE(s.ok(), s);
  CheckClose(Fetch(e.root, {dense[0]})[0], e.WantGradient());
}

BOOST_AUTO_TEST_CASE(two_gathers_concatenate_and_an_identity_passes_rows_through) {
  Embedding e;
  auto more = ops::Gather(e.root, ops::Identity(e.root, e.table),
                          ops::Const(e.root, Input::Initializer({int32_t{2}, int32_t{4}})));
  auto loss = ops::Add(e.root, e.loss, ops::Sum(e.root, more, e.IndexAxes()));
  std::vector<GradientValue> grads;
  Status s = AddSymbolicGradients(e.root, {loss}, {e.table}, &grads);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST_REQUIRE(grads[0].is_sparse());
  auto out = Fetch(e.root, {grads[0].slices().indices, ToDense(e.root, grads[0])});
  BOOST_TEST(out[0].NumElements() == 6);  // 4 + 2 rows, repeats kept
  std::vector<double> want = e.WantGradient();
  for (int row : {2, 4})
    for (int d = 0; d < kDim; ++d) want[row * kDim + d] += 1.0;
  CheckClose(out[1], want);
}

BOOST_AUTO_TEST_CASE(a_dense_use_of_the_params_makes_the_gradient_dense) {
  Embedding e;
  auto loss = ops::Add(e.root, e.loss, ops::Sum(e.root, ops::Square(e.root, e.table), e.IndexAxes()));
  std::vector<GradientValue> grads;
  Status s = AddSymbolicGradients(e.root, {loss}, {e.table}, &grads);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(!grads[0].is_sparse());
  std::vector<double> want = e.WantGradient();
  const Tensor t = Table();
  for (int i = 0; i < kRows * kDim; ++i) want[i] += 2 * t.data<double>()[i];
  CheckClose(Fetch(e.root, {grads[0].dense()})[0], want);
}

// Gradient descent moves only the gathered rows, repeats summed.
BOOST_AUTO_TEST_CASE(gradient_descent_updates_only_the_gathered_rows) {
  Embedding e;
  GradientDescentOptimizer sgd(0.5);
  Operation train;
  Status s = sgd.Minimize(e.root, e.loss, &train);
  BOOST_TEST_REQUIRE(s.ok(), s);
  bool scatters = false;
  for (const Node* n : e.root.graph()->nodes()) scatters |= n->type_string() == "ScatterSub";
  BOOST_TEST(scatters);
  const Tensor t0 = Table();
  std::vector<double> want(t0.data<double>(), t0.data<double>() + kRows * kDim);
  const std::vector<double> g = e.WantGradient();
  for (int i = 0; i < kRows * kDim; ++i) want[i] -= 0.5 * g[i];
  CheckClose(Fetch(e.root, {e.table}, {train})[0], want);
}

// TensorFlow's sparse Adam equals its dense Adam (every row's moments
// decay); two steps so the decay shows.
BOOST_AUTO_TEST_CASE(adam_sparse_matches_adam_dense) {
  auto train = [](bool sparse) {
    Embedding e;
    AdamOptimizer adam(0.1);
    std::vector<GradAndVar> gv;
    Status s = adam.ComputeGradients(e.root, e.loss, {}, &gv);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST_REQUIRE(gv[0].first.is_sparse());
    if (!sparse) gv[0].first = ToDense(e.root, gv[0].first);
    Operation op;
    s = adam.ApplyGradients(e.root, gv, GetOrCreateGlobalStep(e.root), &op);
    BOOST_TEST_REQUIRE(s.ok(), s);
    return Fetch(e.root, {e.table}, {op, op})[0];
  };
  const Tensor dense = train(false);
  CheckClose(train(true), std::vector<double>(dense.data<double>(),
                                              dense.data<double>() + kRows * kDim),
             1e-12);
}

// Lazy Adam: untouched rows (and their moments) stay; touched rows follow
// Adam with that row's own moments, the repeated id's gradients summed.
BOOST_AUTO_TEST_CASE(lazy_adam_moves_only_the_gathered_rows) {
  Embedding e;
  const double lr = 0.1, b1 = 0.9, b2 = 0.999, eps = 1e-8;
  LazyAdamOptimizer adam(lr, b1, b2, eps);
  Operation train;
  Status s = adam.Minimize(e.root, e.loss, &train);
  BOOST_TEST_REQUIRE(s.ok(), s);
  Output m;
  for (const Node* n : e.root.graph()->nodes())
    if (n->name() == "table/LazyAdam") m = Output(const_cast<Node*>(n), 0);
  BOOST_TEST_REQUIRE(m.valid());
  auto out = Fetch(e.root, {e.table, m}, {train, train});
  const Tensor t0 = Table();
  const std::vector<double> g = e.WantGradient();
  std::vector<double> want_w(kRows * kDim), want_m(kRows * kDim);
  for (int i = 0; i < kRows * kDim; ++i) {
    const int row = i / kDim;
    const bool touched = row == 0 || row == 1 || row == 4;
    double w = t0.data<double>()[i], mm = 0, vv = 0, p1 = 1, p2 = 1;
    for (int step = 0; step < 2 && touched; ++step) {
      p1 *= b1;
      p2 *= b2;
      mm = b1 * mm + (1 - b1) * g[i];
      vv = b2 * vv + (1 - b2) * g[i] * g[i];
      w -= lr * std::sqrt(1 - p2) / (1 - p1) * mm / (std::sqrt(vv) + eps);
    }
    want_w[i] = w;
    want_m[i] = mm;
  }
  CheckClose(out[0], want_w, 1e-12);
  CheckClose(out[1], want_m, 1e-12);
}

BOOST_AUTO_TEST_CASE(deduplicate_sums_repeated_rows) {
  Scope root = Scope::NewRootScope();
  IndexedSlices s;
  s.values = ops::Const(root, Input::Initializer({1.0, 2.0, 4.0, 8.0}));
  s.indices = ops::Const(root, Input::Initializer({int64_t{3}, int64_t{1}, int64_t{3}, int64_t{0}}));
  s.dense_shape = ops::Const(root, Input::Initializer({int64_t{5}}));
  IndexedSlices d = DeduplicateSlices(root, s);
  auto out = Fetch(root, {d.indices, d.values, ToDense(root, s)});
  BOOST_TEST(std::vector<int64_t>(out[0].data<int64_t>(), out[0].data<int64_t>() + 3) ==
             (std::vector<int64_t>{3, 1, 0}));
  CheckClose(out[1], {5.0, 2.0, 8.0});
  CheckClose(out[2], {8.0, 2.0, 0.0, 5.0, 0.0});
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
