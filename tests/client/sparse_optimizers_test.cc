// The sparse updates of Momentum, Adagrad, LazyAdam, RMSProp and Ftrl: an
// IndexedSlices gradient with a repeated index moves only its rows, each
// as the per-coordinate formula says for the repeat's sum, and those rows
// as the equivalent dense gradient moves them. Rows it lacks keep their
// value (dense Momentum, Adagrad and Adam leave them too, their moments
// being zero there; dense RMSProp and Ftrl would still move them, which is
// why the sparse ops exist).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/optimizers/optimizers.h"
#include "client/standard_ops.h"
#include "core/node_def_util.h"

namespace af {
namespace {

constexpr int kRows = 5, kDim = 3, kSteps = 2;
const std::vector<int64_t> kIndices = {3, 1, 3};

Tensor InitialVar() {
  Tensor t(DT_DOUBLE, TensorShape({kRows, kDim}));
  for (int i = 0; i < kRows * kDim; ++i) t.data<double>()[i] = 0.15 * i - 1.0;
  return t;
}

// One row per entry of kIndices.
Tensor SliceValues() {
  Tensor t(DT_DOUBLE, TensorShape({static_cast<int64_t>(kIndices.size()), kDim}));
  for (int i = 0; i < t.NumElements(); ++i) t.data<double>()[i] = 0.9 - 0.25 * i;
  return t;
}

// The same gradient as a tensor: the repeated row's copies added.
Tensor DenseGradient() {
  Tensor t(DT_DOUBLE, TensorShape({kRows, kDim}));
  for (int i = 0; i < kRows * kDim; ++i) t.data<double>()[i] = 0.0;
  const Tensor v = SliceValues();
  for (size_t k = 0; k < kIndices.size(); ++k)
    for (int d = 0; d < kDim; ++d)
      t.data<double>()[kIndices[k] * kDim + d] += v.data<double>()[k * kDim + d];
  return t;
}

bool Touched(int row) {
  for (int64_t i : kIndices)
    if (i == row) return true;
  return false;
}

GradientValue SparseGradient(const Scope& root, DataType index_type) {
  const auto ints = [&](const std::vector<int64_t>& v) {
    if (index_type == DT_INT64) return ops::Const(root, Input::Initializer(Tensor::FromVector(v)));
    return ops::Const(
        root, Input::Initializer(Tensor::FromVector(std::vector<int32_t>(v.begin(), v.end()))));
  };
  return IndexedSlices{ops::Const(root, Input::Initializer(SliceValues())), ints(kIndices),
                       ints({kRows, kDim})};
}

// One optimizer, and what it does to one coordinate per step with its
// slots starting as it starts them.
struct Case {
  std::string what;
  std::function<std::unique_ptr<Optimizer>()> make;
  std::vector<double> slots;
  std::function<void(double& w, double g, std::vector<double>& s)> step;
  std::string sparse_op, dense_op;
  bool dense_keeps_untouched_rows;
};

void FtrlStep(double lr, double power, double l1, double l2, double shrinkage, double& w, double g,
              std::vector<double>& s) {
  double &accum = s[0], &linear = s[1];
  const double new_accum = accum + g * g;
  const double sigma = (std::pow(new_accum, -power) - std::pow(accum, -power)) / lr;
  linear += g + 2 * shrinkage * w - sigma * w;
  const double quadratic = std::pow(new_accum, -power) / lr + 2 * l2;
  w = std::fabs(linear) > l1 ? (std::copysign(l1, linear) - linear) / quadratic : 0.0;
  accum = new_accum;
}

// s: m, v, beta1^t, beta2^t.
void AdamStep(double lr, double b1, double b2, double eps, double& w, double g,
              std::vector<double>& s) {
  double &m = s[0], &v = s[1], &p1 = s[2], &p2 = s[3];
  m = b1 * m + (1 - b1) * g;
  v = b2 * v + (1 - b2) * g * g;
  w -= lr * std::sqrt(1 - p2) / (1 - p1) * m / (std::sqrt(v) + eps);
  p1 *= b1;
  p2 *= b2;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (bool nesterov : {false, true}) {
    cases.push_back({"Momentum nesterov=" + std::to_string(nesterov),
                     [=] { return std::make_unique<MomentumOptimizer>(0.1, 0.9, nesterov); },
                     {0.0},
                     [=](double& w, double g, std::vector<double>& s) {
                       s[0] = 0.9 * s[0] + g;
                       w -= nesterov ? 0.1 * (g + 0.9 * s[0]) : 0.1 * s[0];
                     },
                     "SparseApplyMomentum",
                     "ApplyMomentum",
                     true});
  }
  cases.push_back({"Adagrad",
                   [] { return std::make_unique<AdagradOptimizer>(0.1, 0.1); },
                   {0.1},
                   [](double& w, double g, std::vector<double>& s) {
                     s[0] += g * g;
                     w -= 0.1 * g / std::sqrt(s[0]);
                   },
                   "SparseApplyAdagrad",
                   "ApplyAdagrad",
                   true});
  // Slots m, v and the beta powers the step sees (b^t), which advance after it.
  cases.push_back({"LazyAdam",
                   [] { return std::make_unique<LazyAdamOptimizer>(0.1, 0.9, 0.999, 1e-8); },
                   {0.0, 0.0, 0.9, 0.999},
                   [](double& w, double g, std::vector<double>& s) {
                     AdamStep(0.1, 0.9, 0.999, 1e-8, w, g, s);
                   },
                   "SparseApplyAdam",
                   "ApplyAdam",
                   true});
  cases.push_back({"RMSProp",
                   [] { return std::make_unique<RMSPropOptimizer>(0.1, 0.9, 0.5, 1e-10); },
                   {1.0, 0.0},
                   [](double& w, double g, std::vector<double>& s) {
                     s[0] = 0.9 * s[0] + 0.1 * g * g;
                     s[1] = 0.5 * s[1] + 0.1 * g / std::sqrt(s[0] + 1e-10);
                     w -= s[1];
                   },
                   "SparseApplyRMSProp",
                   "ApplyRMSProp",
                   false});
  cases.push_back({"Ftrl",
                   [] { return std::make_unique<FtrlOptimizer>(0.1, -0.5, 0.1, 0.05, 0.02); },
                   {0.1, 0.0},
                   [](double& w, double g, std::vector<double>& s) {
                     FtrlStep(0.1, -0.5, 0.05, 0.02, 0.0, w, g, s);
                   },
                   "SparseApplyFtrl",
                   "ApplyFtrl",
                   false});
  cases.push_back(
      {"Ftrl with shrinkage",
       [] { return std::make_unique<FtrlOptimizer>(0.1, -0.75, 0.2, 0.05, 0.02, "Ftrl", 0.03); },
       {0.2, 0.0},
       [](double& w, double g, std::vector<double>& s) {
         FtrlStep(0.1, -0.75, 0.05, 0.02, 0.03, w, g, s);
       },
       "SparseApplyFtrlV2",
       "ApplyFtrlV2",
       false});
  return cases;
}

// kSteps updates of w from `grad` in a fresh graph, which must update
// with `want_op` and not `unwanted_op`; returns the final w.
Tensor Train(const Case& c, const std::function<GradientValue(const Scope&)>& grad,
             const std::string& want_op, const std::string& unwanted_op) {
  Scope root = Scope::NewRootScope();
  Variable w(root.WithOpName("sparse_opt_w"), Input::Initializer(InitialVar()));
  auto opt = c.make();
  Operation train;
  Status s = opt->ApplyGradients(root, {{grad(root), w.var}}, Output(), &train);
  BOOST_TEST_REQUIRE(s.ok(), s);
  bool found = false, found_unwanted = false;
  for (const Node* n : root.graph()->nodes()) {
    found = found || n->type_string() == want_op;
    found_unwanted = found_unwanted || n->type_string() == unwanted_op;
  }
  BOOST_TEST(found, "no " << want_op << " node");
  BOOST_TEST(!found_unwanted, "a " << unwanted_op << " node");
  ClientSession session(root);
  std::vector<Tensor> out;
  s = session.Run({}, {}, {GlobalVariablesInitializer(root)}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  for (int i = 0; i < kSteps; ++i) {
    s = session.Run({}, {}, {train}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
  }
  s = session.Run({w.var}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  return out[0];
}

BOOST_AUTO_TEST_SUITE(sparse_optimizers)

BOOST_AUTO_TEST_CASE(sparse_rows_move_as_the_formula_and_as_dense_others_stay) {
  const Tensor w0 = InitialVar(), dense_grad = DenseGradient();
  for (const Case& c : Cases()) {
    for (DataType index_type : {DT_INT32, DT_INT64}) {
      BOOST_TEST_CONTEXT(c.what << " indices " << DataTypeString(index_type)) {
        const Tensor sparse = Train(
            c, [&](const Scope& root) { return SparseGradient(root, index_type); }, c.sparse_op,
            c.dense_op);
        const Tensor dense = Train(
            c,
            [&](const Scope& root) {
              return GradientValue(ops::Const(root, Input::Initializer(dense_grad)));
            },
            c.dense_op, c.sparse_op);
        for (int i = 0; i < kRows * kDim; ++i) {
          const int row = i / kDim;
          const double got = sparse.data<double>()[i];
          BOOST_TEST_CONTEXT("element " << i << " (row " << row << ")") {
            if (!Touched(row)) {
              BOOST_TEST(got == w0.data<double>()[i]);
              if (c.dense_keeps_untouched_rows)
                BOOST_TEST(dense.data<double>()[i] == w0.data<double>()[i]);
              continue;
            }
            double want = w0.data<double>()[i];
            std::vector<double> slots = c.slots;
            for (int t = 0; t < kSteps; ++t) c.step(want, dense_grad.data<double>()[i], slots);
            BOOST_TEST(std::fabs(got - want) < 1e-12, got << " vs " << want);
            BOOST_TEST(std::fabs(got - dense.data<double>()[i]) < 1e-12,
                       got << " vs dense " << dense.data<double>()[i]);
          }
        }
      }
    }
  }
}

// LazyAdam's update of each sparse variable is one fused op on the
// variable's rows (no gather/scatter composition left), and two steps with a
// repeated index move each touched row as Adam does for the repeat's sum.
BOOST_AUTO_TEST_CASE(lazy_adam_is_one_sparse_apply_adam_per_variable) {
  Scope root = Scope::NewRootScope();
  Variable w1(root.WithOpName("lazy_w1"), Input::Initializer(InitialVar()));
  Variable w2(root.WithOpName("lazy_w2"), Input::Initializer(InitialVar()));
  const double lr = 0.05, b1 = 0.8, b2 = 0.99, eps = 1e-6;
  LazyAdamOptimizer adam(lr, b1, b2, eps);
  Operation train;
  Status s = adam.ApplyGradients(
      root, {{SparseGradient(root, DT_INT32), w1.var}, {SparseGradient(root, DT_INT64), w2.var}},
      Output(), &train);
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::map<std::string, int> updates_of;
  for (const Node* n : root.graph()->nodes()) {
    const std::string& op = n->type_string();
    BOOST_TEST(op != "ScatterUpdate", n->name());
    BOOST_TEST(op != "ScatterSub", n->name());
    BOOST_TEST(op != "Gather", n->name());
    if (op != "SparseApplyAdam") continue;
    // Inputs 0..2 are the variable and its slots, all by reference.
    const auto input = [&](int i) {
      const Edge* e = nullptr;
      BOOST_TEST_REQUIRE(n->input_edge(i, &e).ok());
      BOOST_TEST(IsRefType(n->input_type(i)));
      return e->src()->name();
    };
    const std::string var = input(0);
    ++updates_of[var];
    BOOST_TEST(input(1) == var + "/LazyAdam");
    BOOST_TEST(input(2) == var + "/LazyAdam_1");
    // Colocated with the variable, so a device setter's ps task runs it.
    std::vector<std::string> groups;
    BOOST_TEST_REQUIRE(GetNodeAttr(n->def(), "_class", &groups).ok());
    BOOST_TEST(groups == std::vector<std::string>{"loc:@" + var});
  }
  BOOST_TEST(updates_of.size() == 2u);
  BOOST_TEST(updates_of["lazy_w1"] == 1);
  BOOST_TEST(updates_of["lazy_w2"] == 1);

  ClientSession session(root);
  std::vector<Tensor> out;
  s = session.Run({}, {}, {GlobalVariablesInitializer(root)}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  for (int i = 0; i < kSteps; ++i) {
    s = session.Run({}, {}, {train}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
  }
  s = session.Run({w1.var, w2.var}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  const Tensor w0 = InitialVar(), g = DenseGradient();
  for (int i = 0; i < kRows * kDim; ++i) {
    double want = w0.data<double>()[i];
    if (Touched(i / kDim)) {
      std::vector<double> slots = {0.0, 0.0, b1, b2};
      for (int t = 0; t < kSteps; ++t) AdamStep(lr, b1, b2, eps, want, g.data<double>()[i], slots);
    }
    for (const Tensor& got : out) {
      BOOST_TEST_CONTEXT("element " << i) {
        BOOST_TEST(std::fabs(got.data<double>()[i] - want) < 1e-12,
                   got.data<double>()[i] << " vs " << want);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(ftrl_slots_are_named_and_start_as_configured) {
  Scope root = Scope::NewRootScope();
  Variable w(root.WithOpName("sparse_opt_w"), Input::Initializer(InitialVar()));
  FtrlOptimizer ftrl(0.1, -0.5, 0.25, 0.0, 0.0, "MyFtrl");
  Operation train;
  Status s = ftrl.ApplyGradients(root, {{SparseGradient(root, DT_INT32), w.var}}, Output(), &train);
  BOOST_TEST_REQUIRE(s.ok(), s);
  Node* accum = root.graph()->FindNode("sparse_opt_w/MyFtrl");
  Node* linear = root.graph()->FindNode("sparse_opt_w/MyFtrl_1");
  BOOST_TEST_REQUIRE(accum != nullptr);
  BOOST_TEST_REQUIRE(linear != nullptr);
  ClientSession session(root);
  std::vector<Tensor> out;
  s = session.Run({}, {}, {GlobalVariablesInitializer(root)}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  s = session.Run({}, {}, {train}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  s = session.Run({Output(accum), Output(linear)}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  // Row 0 has no gradient: its slots are as made.
  for (int d = 0; d < kDim; ++d) {
    BOOST_TEST(out[0].data<double>()[d] == 0.25);
    BOOST_TEST(out[1].data<double>()[d] == 0.0);
  }
  // Row 3's accum grew by the square of its summed gradient.
  const double g = DenseGradient().data<double>()[3 * kDim];
  BOOST_TEST(std::fabs(out[0].data<double>()[3 * kDim] - (0.25 + g * g)) < 1e-12);
}

BOOST_AUTO_TEST_CASE(ftrl_refuses_what_tensorflow_refuses) {
  const auto check = [](FtrlOptimizer& opt, const std::string& names) {
    Scope root = Scope::NewRootScope();
    Variable w(root.WithOpName("sparse_opt_w"), Input::Initializer(InitialVar()));
    Operation train;
    Status s =
        opt.ApplyGradients(root, {{SparseGradient(root, DT_INT32), w.var}}, Output(), &train);
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
    BOOST_TEST(s.message().find(names) != std::string::npos, s);
  };
  FtrlOptimizer power(0.1, 0.5);
  check(power, "learning_rate_power");
  FtrlOptimizer accum(0.1, -0.5, -1.0);
  check(accum, "initial_accumulator_value");
  FtrlOptimizer l1(0.1, -0.5, 0.1, -0.1);
  check(l1, "l1 regularization strength");
  FtrlOptimizer shrinkage(0.1, -0.5, 0.1, 0.0, 0.0, "Ftrl", -0.1);
  check(shrinkage, "l2 shrinkage regularization strength");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
