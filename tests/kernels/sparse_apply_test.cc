// SparseApplyMomentum, SparseApplyAdagrad, SparseApplyAdam,
// SparseApplyRMSProp and FTRL (ApplyFtrl, ApplyFtrlV2 and their sparse
// forms) against the formulas
// applied in double precision one index at a time, in index order, a
// repeated index again; and their checks, which change nothing when they
// fail. Their shape functions are in sparse_apply_shape_test.cc.
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "tests/kernels/math_test_util.h"
#include "tests/kernels/state_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using af::testing::Contains;

constexpr int64_t kRows = 7, kCols = 5;
const TensorShape kVarShape{kRows, kCols};
const std::vector<int64_t> kRepeated = {3, 1, 3, 6, 0, 3};

// Exact in float, so the float kernels and the double reference start
// from the same numbers.
constexpr double kLr = 0.25, kMomentum = 0.875, kRho = 0.875, kEpsilon = 1.0 / 1024, kL1 = 0.25,
                 kL2 = 0.125, kShrinkage = 0.0625;
// Adam's beta powers as after a few steps, so that lr_t differs from lr.
constexpr double kBeta1 = 0.875, kBeta2 = 1 - 1.0 / 1024, kBeta1Power = 0.5, kBeta2Power = 0.75;

enum class Algo { kMomentum, kAdagrad, kAdam, kRMSProp, kFtrl };

// One op and its attrs; Op(false) is its dense twin.
struct OpCase {
  Algo algo;
  bool nesterov = false;
  bool update_slots = true;
  bool v2 = false;  // FTRL with l2_shrinkage
  bool multiply_linear_by_lr = false;
  double lr_power = -0.5;

  std::string Op(bool sparse) const {
    const char* dense = algo == Algo::kMomentum  ? "ApplyMomentum"
                        : algo == Algo::kAdagrad ? "ApplyAdagrad"
                        : algo == Algo::kAdam    ? "ApplyAdam"
                        : algo == Algo::kRMSProp ? "ApplyRMSProp"
                        : v2                     ? "ApplyFtrlV2"
                                                 : "ApplyFtrl";
    return sparse ? std::string("Sparse") + dense : std::string(dense);
  }
  int NumSlots() const { return algo == Algo::kMomentum || algo == Algo::kAdagrad ? 2 : 3; }
  std::vector<std::pair<std::string, bool>> Attrs() const {
    switch (algo) {
      case Algo::kMomentum:
      case Algo::kAdam:
        return {{"use_nesterov", nesterov}};
      case Algo::kAdagrad:
        return {{"update_slots", update_slots}};
      case Algo::kRMSProp:
        return {};
      case Algo::kFtrl:
        return {{"multiply_linear_by_lr", multiply_linear_by_lr}};
    }
    return {};
  }
  std::string Describe() const {
    std::string s = Op(true);
    for (const auto& [name, value] : Attrs()) s += " " + name + "=" + (value ? "1" : "0");
    if (algo == Algo::kFtrl) s += " lr_power=" + std::to_string(lr_power);
    return s;
  }
};

std::vector<OpCase> AllCases() {
  std::vector<OpCase> cases;
  for (bool nesterov : {false, true})
    cases.push_back({.algo = Algo::kMomentum, .nesterov = nesterov});
  for (bool update : {true, false})
    cases.push_back({.algo = Algo::kAdagrad, .update_slots = update});
  for (bool nesterov : {false, true}) cases.push_back({.algo = Algo::kAdam, .nesterov = nesterov});
  cases.push_back({.algo = Algo::kRMSProp});
  for (bool v2 : {false, true})
    for (bool by_lr : {false, true})
      for (double power : {-0.5, -0.75})
        cases.push_back(
            {.algo = Algo::kFtrl, .v2 = v2, .multiply_linear_by_lr = by_lr, .lr_power = power});
  return cases;
}

// One of each op, for the checks that do not depend on attrs.
std::vector<OpCase> OnePerOp() {
  return {{.algo = Algo::kMomentum},
          {.algo = Algo::kAdagrad},
          {.algo = Algo::kAdam},
          {.algo = Algo::kRMSProp},
          {.algo = Algo::kFtrl},
          {.algo = Algo::kFtrl, .v2 = true}};
}

std::vector<double> Values(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.NumElements()));
  for (int64_t i = 0; i < t.NumElements(); ++i) v[i] = ValueAsDouble(t, i);
  return v;
}

// Uniform in [lo, hi), rounded to float.
std::vector<double> Random(const TensorShape& shape, uint32_t seed, double lo, double hi) {
  return Values(RandomTensor<float>(shape, seed, lo, hi));
}

template <typename T>
Tensor MakeTensor(const TensorShape& shape, const std::vector<double>& v) {
  return Tensor::FromVector<T>(std::vector<T>(v.begin(), v.end()), shape);
}

template <typename Index>
Tensor IndexTensor(const std::vector<int64_t>& indices) {
  return Tensor::FromVector<Index>(std::vector<Index>(indices.begin(), indices.end()));
}

// Starting values, var first; accumulators positive as optimizers keep them.
std::vector<std::vector<double>> InitialSlots(const OpCase& c, uint32_t seed) {
  std::vector<std::vector<double>> s = {Random(kVarShape, seed, -1, 1)};
  switch (c.algo) {
    case Algo::kMomentum:
      s.push_back(Random(kVarShape, seed + 1, -1, 1));
      break;
    case Algo::kAdagrad:
      s.push_back(Random(kVarShape, seed + 1, 0.5, 1.5));
      break;
    case Algo::kAdam:
      s.push_back(Random(kVarShape, seed + 1, -1, 1));
      s.push_back(Random(kVarShape, seed + 2, 0, 1));
      break;
    case Algo::kRMSProp:
      s.push_back(Random(kVarShape, seed + 1, 0, 1));
      s.push_back(Random(kVarShape, seed + 2, -1, 1));
      break;
    case Algo::kFtrl:
      s.push_back(Random(kVarShape, seed + 1, 0.1, 1));
      s.push_back(Random(kVarShape, seed + 2, -1, 1));
      break;
  }
  return s;
}

// The non-reference inputs in op order; `indices` null for the dense op.
template <typename T>
std::vector<Tensor> ValueInputs(const OpCase& c, const Tensor& grad, const Tensor* indices,
                                double lr = kLr, double l1 = kL1) {
  const auto s = [](double x) { return Tensor::Scalar<T>(static_cast<T>(x)); };
  std::vector<Tensor> in;
  const auto grad_and_indices = [&] {
    in.push_back(grad);
    if (indices != nullptr) in.push_back(*indices);
  };
  switch (c.algo) {
    case Algo::kMomentum:
      in.push_back(s(lr));
      grad_and_indices();
      in.push_back(s(kMomentum));
      break;
    case Algo::kAdagrad:
      in.push_back(s(lr));
      grad_and_indices();
      break;
    case Algo::kAdam:
      in.insert(in.end(),
                {s(kBeta1Power), s(kBeta2Power), s(lr), s(kBeta1), s(kBeta2), s(kEpsilon)});
      grad_and_indices();
      break;
    case Algo::kRMSProp:
      in.insert(in.end(), {s(lr), s(kRho), s(kMomentum), s(kEpsilon)});
      grad_and_indices();
      break;
    case Algo::kFtrl:
      grad_and_indices();
      in.insert(in.end(), {s(lr), s(l1), s(kL2)});
      if (c.v2) in.push_back(s(kShrinkage));
      in.push_back(s(c.lr_power));
      break;
  }
  return in;
}

// One FTRL-Proximal step of one coordinate, as McMahan et al. write it
// (with TensorFlow's lr_power, shrinkage and multiply_linear_by_lr).
void FtrlReference(const OpCase& c, double lr, double l1, double& var, double& accum,
                   double& linear, double g) {
  const double shrunk = c.v2 ? g + 2 * kShrinkage * var : g;
  const double new_accum = accum + g * g;
  const double p = -c.lr_power;
  const double sigma = std::pow(new_accum, p) - std::pow(accum, p);
  const double scale = c.multiply_linear_by_lr ? lr : 1.0;
  if (c.multiply_linear_by_lr) {
    linear += shrunk * lr - sigma * var;
  } else {
    linear += shrunk - sigma / lr * var;
  }
  const double quadratic = (std::pow(new_accum, p) / lr + 2 * kL2) * scale;
  const double threshold = l1 * scale;
  var =
      std::fabs(linear) > threshold ? (std::copysign(threshold, linear) - linear) / quadratic : 0.0;
  accum = new_accum;
}

// Applies the update for each of `rows` in order, grad row k to var row
// rows[k].
void ReferenceApply(const OpCase& c, std::vector<std::vector<double>>* slots,
                    const std::vector<double>& grad, const std::vector<int64_t>& rows,
                    double lr = kLr, double l1 = kL1) {
  auto& s = *slots;
  for (size_t k = 0; k < rows.size(); ++k) {
    for (int64_t j = 0; j < kCols; ++j) {
      const size_t e = static_cast<size_t>(rows[k] * kCols + j);
      const double g = grad[k * kCols + j];
      double& var = s[0][e];
      switch (c.algo) {
        case Algo::kMomentum: {
          double& a = s[1][e];
          a = a * kMomentum + g;
          var -= c.nesterov ? g * lr + a * kMomentum * lr : lr * a;
          break;
        }
        case Algo::kAdagrad: {
          double& a = s[1][e];
          if (c.update_slots) a += g * g;
          var -= lr * g / std::sqrt(a);
          break;
        }
        case Algo::kAdam: {
          // The textbook form, not the kernels' m += (g - m) * (1 - beta1).
          double &m = s[1][e], &v = s[2][e];
          const double lr_t = lr * std::sqrt(1 - kBeta2Power) / (1 - kBeta1Power);
          m = kBeta1 * m + (1 - kBeta1) * g;
          v = kBeta2 * v + (1 - kBeta2) * g * g;
          const double step = c.nesterov ? kBeta1 * m + (1 - kBeta1) * g : m;
          var -= lr_t * step / (std::sqrt(v) + kEpsilon);
          break;
        }
        case Algo::kRMSProp: {
          double &ms = s[1][e], &mom = s[2][e];
          ms += (g * g - ms) * (1 - kRho);
          mom = mom * kMomentum + lr * g / std::sqrt(ms + kEpsilon);
          var -= mom;
          break;
        }
        case Algo::kFtrl:
          FtrlReference(c, lr, l1, var, s[1][e], s[2][e], g);
          break;
      }
    }
  }
}

std::vector<int64_t> AllRows() {
  std::vector<int64_t> rows(kRows);
  std::iota(rows.begin(), rows.end(), 0);
  return rows;
}

// The variable and its slots for one run, var first; `uninitialized` names
// a slot left without a value.
template <typename T>
struct Slots {
  std::vector<std::unique_ptr<TestVariable>> vars;

  Slots(const std::string& prefix, const std::vector<std::vector<double>>& initial,
        int uninitialized = -1) {
    for (size_t i = 0; i < initial.size(); ++i) {
      vars.push_back(std::make_unique<TestVariable>(
          DataTypeToEnum<T>::value, prefix + "_slot" + std::to_string(i), "sparse_apply_test"));
      if (static_cast<int>(i) != uninitialized)
        BOOST_REQUIRE(vars.back()->Assign(MakeTensor<T>(kVarShape, initial[i])).ok());
    }
  }
  std::vector<std::vector<double>> Values() const {
    std::vector<std::vector<double>> out;
    for (const auto& v : vars) out.push_back(test::Values(v->Value()));
    return out;
  }
};

// The device the ops run on; null: the runner's own (no pool).
DeviceBase* g_device = nullptr;

// Runs `op` on the slots; on success checks the output is the variable.
template <typename T>
Status Run(const std::string& op, const OpCase& c, const Slots<T>& slots,
           std::vector<Tensor> inputs) {
  KernelRunner runner(op, "apply");
  if (g_device != nullptr) runner.OnDevice(g_device);
  for (const auto& v : slots.vars) runner.RefInput(v->storage(), v->mu());
  for (Tensor& t : inputs) runner.Input(std::move(t));
  for (const auto& [name, value] : c.Attrs()) runner.Attr(name, value);
  auto out = runner.Run();
  if (!out.ok()) return out.status();
  BOOST_TEST((*out)[0].SharesBufferWith(*slots.vars[0]->storage()));
  return Status::OK();
}

void ExpectSlots(const std::vector<std::vector<double>>& got,
                 const std::vector<std::vector<double>>& want, double tol) {
  BOOST_TEST_REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    BOOST_TEST_CONTEXT("slot " << i) {
      AF_EXPECT_OK(CheckTensor(Tensor::FromVector<double>(got[i]), DT_DOUBLE,
                               {static_cast<int64_t>(want[i].size())}, want[i], tol, tol));
    }
  }
}

// The op (sparse on `indices`, or dense) against the reference.
template <typename T, typename Index>
void CheckAgainstReference(const OpCase& c, bool sparse, const std::vector<int64_t>& indices,
                           uint32_t seed) {
  BOOST_TEST_CONTEXT(c.Op(sparse) << " " << c.Describe()
                                  << " T=" << DataTypeString(DataTypeToEnum<T>::value)
                                  << " Tindices=" << DataTypeString(DataTypeToEnum<Index>::value)) {
    const auto initial = InitialSlots(c, seed);
    const std::vector<int64_t> rows = sparse ? indices : AllRows();
    const TensorShape grad_shape{static_cast<int64_t>(rows.size()), kCols};
    const auto grad = Random(grad_shape, seed + 10, -1, 1);
    Slots<T> slots(c.Op(sparse), initial);
    const Tensor idx = IndexTensor<Index>(indices);
    AF_REQUIRE_OK(
        Run<T>(c.Op(sparse), c, slots,
               ValueInputs<T>(c, MakeTensor<T>(grad_shape, grad), sparse ? &idx : nullptr)));
    auto want = initial;
    ReferenceApply(c, &want, grad, rows);
    ExpectSlots(slots.Values(), want, Tolerance<T>() * 10);
  }
}

template <typename T, typename Index>
void CheckSparseMatchesDense(const OpCase& c, uint32_t seed) {
  BOOST_TEST_CONTEXT(c.Describe() << " T=" << DataTypeString(DataTypeToEnum<T>::value)) {
    const auto initial = InitialSlots(c, seed);
    const auto grad = Random(kVarShape, seed + 10, -1, 1);
    Slots<T> sparse(c.Op(true), initial), dense(c.Op(false), initial);
    const Tensor idx = IndexTensor<Index>(AllRows());
    AF_REQUIRE_OK(
        Run<T>(c.Op(true), c, sparse, ValueInputs<T>(c, MakeTensor<T>(kVarShape, grad), &idx)));
    AF_REQUIRE_OK(
        Run<T>(c.Op(false), c, dense, ValueInputs<T>(c, MakeTensor<T>(kVarShape, grad), nullptr)));
    ExpectSlots(sparse.Values(), dense.Values(), Tolerance<T>());
  }
}

// Runs the sparse op (float) expecting `code` with `fragment` in the
// message, and every initialized slot as it was.
void ExpectRejected(const OpCase& c, const Tensor& grad, const Tensor& indices, Code code,
                    const std::string& fragment, int uninitialized = -1, double lr = kLr,
                    double l1 = kL1) {
  BOOST_TEST_CONTEXT(c.Describe() << " expecting '" << fragment << "'") {
    const auto initial = InitialSlots(c, 99);
    Slots<float> slots(c.Op(true) + "_rejected", initial, uninitialized);
    const Status s =
        Run<float>(c.Op(true), c, slots, ValueInputs<float>(c, grad, &indices, lr, l1));
    BOOST_TEST(s.code() == code, s);
    BOOST_TEST(Contains(s, fragment), s);
    BOOST_TEST(Contains(s, "node 'apply'"), s);
    if (uninitialized >= 0) return;
    ExpectSlots(slots.Values(), initial, 0);
  }
}

Tensor FloatRows(int64_t rows, int64_t cols = kCols) {
  return RandomTensor<float>({rows, cols}, 5);
}

BOOST_AUTO_TEST_SUITE(sparse_apply)

BOOST_AUTO_TEST_CASE(sparse_ops_match_the_reference_with_repeated_indices) {
  uint32_t seed = 1;
  for (const OpCase& c : AllCases()) {
    CheckAgainstReference<float, int32_t>(c, true, kRepeated, seed);
    CheckAgainstReference<float, int64_t>(c, true, kRepeated, seed + 1);
    CheckAgainstReference<double, int32_t>(c, true, kRepeated, seed + 2);
    CheckAgainstReference<double, int64_t>(c, true, kRepeated, seed + 3);
    seed += 20;
  }
}

// Enough narrow rows that the kernels split them over a pool by row id:
// 8000 indices over 7 rows, each row repeated ~1100 times, must still be
// applied in order.
BOOST_AUTO_TEST_CASE(many_repeats_split_over_a_pool_stay_in_order) {
  ThreadPerTaskPool pool(3);
  PooledCpuDevice device(&pool);
  g_device = &device;
  std::vector<int64_t> many(8000);
  for (size_t i = 0; i < many.size(); ++i) many[i] = static_cast<int64_t>((i * 5 + i / 3) % kRows);
  uint32_t seed = 300;
  for (const OpCase& c : OnePerOp()) CheckAgainstReference<double, int64_t>(c, true, many, seed++);
  g_device = nullptr;
}

BOOST_AUTO_TEST_CASE(dense_ftrl_matches_the_reference) {
  uint32_t seed = 500;
  for (const OpCase& c : AllCases()) {
    if (c.algo != Algo::kFtrl) continue;
    CheckAgainstReference<float, int32_t>(c, false, {}, seed);
    CheckAgainstReference<double, int32_t>(c, false, {}, seed + 1);
    seed += 20;
  }
}

BOOST_AUTO_TEST_CASE(every_row_once_equals_the_dense_op) {
  uint32_t seed = 900;
  for (const OpCase& c : AllCases()) {
    CheckSparseMatchesDense<float, int32_t>(c, seed);
    CheckSparseMatchesDense<double, int64_t>(c, seed + 1);
    seed += 20;
  }
}

// Worked by hand: accum 1 -> 10; linear = 0 + 3 - (sqrt(10) - 1) / 0.5 * 0.5;
// var = (0.1 - linear) / (sqrt(10) / 0.5 + 2 * 0.25). With linear kept
// times lr (0 * 0.5 to start), the same var, and linear scaled by lr.
BOOST_AUTO_TEST_CASE(ftrl_step_by_hand) {
  const auto scalar = [](double x) { return Tensor::Scalar<double>(x); };
  for (bool by_lr : {false, true}) {
    BOOST_TEST_CONTEXT("multiply_linear_by_lr " << by_lr) {
      TestVariable var(DT_DOUBLE, "hand_var", "sparse_apply_test");
      TestVariable accum(DT_DOUBLE, "hand_accum", "sparse_apply_test");
      TestVariable linear(DT_DOUBLE, "hand_linear", "sparse_apply_test");
      BOOST_REQUIRE(var.Assign(Tensor::FromVector<double>({0.5, 0.5})).ok());
      BOOST_REQUIRE(accum.Assign(Tensor::FromVector<double>({1, 1})).ok());
      BOOST_REQUIRE(linear.Assign(Tensor::FromVector<double>({0, 0})).ok());
      KernelRunner r("SparseApplyFtrl", "apply");
      r.RefInput(var.storage(), var.mu()).RefInput(accum.storage(), accum.mu());
      r.RefInput(linear.storage(), linear.mu()).Attr("multiply_linear_by_lr", by_lr);
      // Row 1 only; the small gradient of row 0 leaves |linear| <= l1: var 0.
      r.Input(Tensor::FromVector<double>({3, 0.05})).Input(Tensor::FromVector<int32_t>({1, 0}));
      r.Input(scalar(0.5)).Input(scalar(0.1)).Input(scalar(0.25)).Input(scalar(-0.5));
      AF_REQUIRE_OK(r.Run().status());
      AF_EXPECT_OK(CheckTensor(var.Value(), DT_DOUBLE, {2}, {0.0, -0.10809822841251691}, 0, 1e-12));
      const double scale = by_lr ? 0.5 : 1.0;
      AF_EXPECT_OK(CheckTensor(
          linear.Value(), DT_DOUBLE, {2},
          {(0.05 - (std::sqrt(1.0025) - 1) / 0.5 * 0.5) * scale, 0.8377223398316205 * scale}, 0,
          1e-12));
      AF_EXPECT_OK(CheckTensor(accum.Value(), DT_DOUBLE, {2}, {1.0025, 10}, 0, 1e-12));
    }
  }
}

// Some coordinates must land on each side of the l1 threshold, or the
// reference comparison above proves less than it seems.
BOOST_AUTO_TEST_CASE(ftrl_l1_zeroes_some_weights_and_not_others) {
  const OpCase c{.algo = Algo::kFtrl, .v2 = true};
  const auto initial = InitialSlots(c, 7);
  const auto grad = Random(kVarShape, 8, -1, 1);
  auto want = initial;
  ReferenceApply(c, &want, grad, AllRows());
  int zeros = 0;
  for (double v : want[0]) zeros += v == 0.0;
  BOOST_TEST(zeros > 0);
  BOOST_TEST(zeros < kRows * kCols);
}

BOOST_AUTO_TEST_CASE(empty_indices_change_nothing) {
  for (const OpCase& c : OnePerOp()) {
    BOOST_TEST_CONTEXT(c.Describe()) {
      const auto initial = InitialSlots(c, 3);
      Slots<float> slots(c.Op(true) + "_empty", initial);
      const Tensor idx = IndexTensor<int64_t>({});
      AF_REQUIRE_OK(Run<float>(c.Op(true), c, slots, ValueInputs<float>(c, FloatRows(0), &idx)));
      ExpectSlots(slots.Values(), initial, 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_bad_index_is_named_and_changes_nothing) {
  for (const OpCase& c : OnePerOp()) {
    // The good index before the bad one must not have been applied either.
    ExpectRejected(c, FloatRows(3), IndexTensor<int32_t>({2, 7, 1}), Code::INVALID_ARGUMENT,
                   "indices[1] = 7 is not in [0, 7)");
    ExpectRejected(c, FloatRows(2), IndexTensor<int64_t>({0, -1}), Code::INVALID_ARGUMENT,
                   "indices[1] = -1 is not in [0, 7)");
  }
}

BOOST_AUTO_TEST_CASE(an_uninitialized_variable_or_slot_is_named) {
  for (const OpCase& c : OnePerOp()) {
    for (int slot = 0; slot < c.NumSlots(); ++slot) {
      ExpectRejected(c, FloatRows(1), IndexTensor<int32_t>({0}), Code::FAILED_PRECONDITION,
                     "Attempting to use uninitialized value input_" + std::to_string(slot), slot);
    }
  }
}

BOOST_AUTO_TEST_CASE(mismatched_gradients_and_indices_are_refused) {
  for (const OpCase& c : OnePerOp()) {
    ExpectRejected(c, FloatRows(2), IndexTensor<int32_t>({0, 1, 2}), Code::INVALID_ARGUMENT,
                   "grad must be the same size as indices in the first dimension");
    ExpectRejected(c, FloatRows(3, kCols + 1), IndexTensor<int32_t>({0, 1, 2}),
                   Code::INVALID_ARGUMENT, "var and grad must match in dimension 1");
    ExpectRejected(c, FloatRows(1), Tensor::FromVector<int32_t>({0}, {1, 1}),
                   Code::INVALID_ARGUMENT, "indices must be one-dimensional");
    ExpectRejected(c, RandomTensor<float>({2}, 5), IndexTensor<int32_t>({0, 1}),
                   Code::INVALID_ARGUMENT, "var and grad must have the same rank");
  }
}

BOOST_AUTO_TEST_CASE(ftrl_hyper_parameters_out_of_range_are_refused) {
  for (bool v2 : {false, true}) {
    const OpCase c{.algo = Algo::kFtrl, .v2 = v2};
    const Tensor idx = IndexTensor<int32_t>({0});
    ExpectRejected(c, FloatRows(1), idx, Code::INVALID_ARGUMENT, "lr must be positive, got 0", -1,
                   0.0);
    ExpectRejected(c, FloatRows(1), idx, Code::INVALID_ARGUMENT, "l1 must be non-negative", -1, kLr,
                   -0.5);
    ExpectRejected({.algo = Algo::kFtrl, .v2 = v2, .lr_power = 0.5}, FloatRows(1), idx,
                   Code::INVALID_ARGUMENT, "lr_power must be non-positive");
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
