// The fused optimizer updates against TensorFlow's formulas evaluated in
// double precision.
#include <cmath>
#include <string>
#include <vector>

#include "tests/kernels/state_test_util.h"

namespace af::test {
namespace {

constexpr int64_t kSize = 37;

std::vector<double> Values(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.NumElements()));
  for (int64_t i = 0; i < t.NumElements(); ++i) v[i] = ValueAsDouble(t, i);
  return v;
}

template <typename T>
Tensor FromDoubles(const std::vector<double>& v) {
  std::vector<T> cast(v.begin(), v.end());
  return Tensor::FromVector<T>(cast);
}

// Runs `op` with the given slot variables (var first) and value inputs in
// op order (`value_inputs` after the refs), returning the slots' new values.
template <typename T>
std::vector<std::vector<double>> RunApply(const std::string& op,
                                          const std::vector<std::vector<double>>& slots,
                                          const std::vector<Tensor>& value_inputs,
                                          const std::vector<std::pair<std::string, bool>>& attrs) {
  std::vector<std::unique_ptr<TestVariable>> vars;
  KernelRunner runner(op, "apply");
  for (size_t i = 0; i < slots.size(); ++i) {
    vars.push_back(std::make_unique<TestVariable>(DataTypeToEnum<T>::value,
                                                  op + "_slot" + std::to_string(i)));
    BOOST_REQUIRE(vars.back()->Assign(FromDoubles<T>(slots[i])).ok());
    runner.RefInput(vars.back()->storage(), vars.back()->mu());
  }
  for (const Tensor& t : value_inputs) runner.Input(t);
  for (const auto& [name, value] : attrs) runner.Attr(name, value);
  auto out = runner.Run();
  BOOST_REQUIRE_MESSAGE(out.ok(), out.status().ToString());
  BOOST_TEST((*out)[0].SharesBufferWith(*vars[0]->storage()));
  std::vector<std::vector<double>> after;
  for (const auto& v : vars) after.push_back(Values(v->Value()));
  return after;
}

template <typename T>
void Expect(const std::vector<double>& got, const std::vector<double>& want, const char* what) {
  BOOST_TEST_CONTEXT(what) {
    AF_EXPECT_OK(CheckTensor(FromDoubles<double>(got), DT_DOUBLE, {kSize}, want,
                             Tolerance<T>() * 10, Tolerance<T>() * 10));
  }
}

// Inputs in float's precision, so both types see the same numbers.
std::vector<double> Random(uint32_t seed, double lo, double hi) {
  return Values(RandomTensor<float>({kSize}, seed, lo, hi));
}

template <typename T>
void CheckGradientDescent() {
  const auto var = Random(1, -1, 1), delta = Random(2, -1, 1);
  const double alpha = 0.125;
  auto after = RunApply<T>("ApplyGradientDescent", {var},
                           {Tensor::Scalar<T>(alpha), FromDoubles<T>(delta)}, {});
  std::vector<double> want(kSize);
  for (int i = 0; i < kSize; ++i) want[i] = var[i] - alpha * delta[i];
  Expect<T>(after[0], want, "var");
}

template <typename T>
void CheckMomentum(bool nesterov) {
  const auto var = Random(3, -1, 1), accum = Random(4, -1, 1), grad = Random(5, -1, 1);
  const double lr = 0.25, momentum = 0.875;
  auto after = RunApply<T>(
      "ApplyMomentum", {var, accum},
      {Tensor::Scalar<T>(lr), FromDoubles<T>(grad), Tensor::Scalar<T>(momentum)},
      {{"use_nesterov", nesterov}});
  std::vector<double> want_var(kSize), want_accum(kSize);
  for (int i = 0; i < kSize; ++i) {
    want_accum[i] = accum[i] * momentum + grad[i];
    want_var[i] = nesterov ? var[i] - (grad[i] * lr + want_accum[i] * momentum * lr)
                           : var[i] - lr * want_accum[i];
  }
  Expect<T>(after[0], want_var, "var");
  Expect<T>(after[1], want_accum, "accum");
}

template <typename T>
void CheckAdam(bool nesterov) {
  const auto var = Random(6, -1, 1), m = Random(7, -1, 1), v = Random(8, 0, 1),
             grad = Random(9, -1, 1);
  const double beta1 = 0.875, beta2 = 0.9990234375, beta1_power = 0.5, beta2_power = 0.75,
               lr = 0.0625, epsilon = 0.0078125;
  auto after = RunApply<T>(
      "ApplyAdam", {var, m, v},
      {Tensor::Scalar<T>(beta1_power), Tensor::Scalar<T>(beta2_power), Tensor::Scalar<T>(lr),
       Tensor::Scalar<T>(beta1), Tensor::Scalar<T>(beta2), Tensor::Scalar<T>(epsilon),
       FromDoubles<T>(grad)},
      {{"use_nesterov", nesterov}});
  const double lr_t = lr * std::sqrt(1 - beta2_power) / (1 - beta1_power);
  std::vector<double> want_var(kSize), want_m(kSize), want_v(kSize);
  for (int i = 0; i < kSize; ++i) {
    want_m[i] = m[i] + (grad[i] - m[i]) * (1 - beta1);
    want_v[i] = v[i] + (grad[i] * grad[i] - v[i]) * (1 - beta2);
    const double step = nesterov ? (grad[i] * (1 - beta1) + beta1 * want_m[i]) * lr_t
                                 : want_m[i] * lr_t;
    want_var[i] = var[i] - step / (std::sqrt(want_v[i]) + epsilon);
  }
  Expect<T>(after[0], want_var, "var");
  Expect<T>(after[1], want_m, "m");
  Expect<T>(after[2], want_v, "v");
}

template <typename T>
void CheckAdagrad(bool update_slots) {
  const auto var = Random(10, -1, 1), accum = Random(11, 0.5, 1.5), grad = Random(12, -1, 1);
  const double lr = 0.375;
  auto after = RunApply<T>("ApplyAdagrad", {var, accum},
                           {Tensor::Scalar<T>(lr), FromDoubles<T>(grad)},
                           {{"update_slots", update_slots}});
  std::vector<double> want_var(kSize), want_accum(kSize);
  for (int i = 0; i < kSize; ++i) {
    want_accum[i] = update_slots ? accum[i] + grad[i] * grad[i] : accum[i];
    want_var[i] = var[i] - lr * grad[i] / std::sqrt(want_accum[i]);
  }
  Expect<T>(after[0], want_var, "var");
  Expect<T>(after[1], want_accum, "accum");
}

template <typename T>
void CheckRMSProp() {
  const auto var = Random(13, -1, 1), ms = Random(14, 0, 1), mom = Random(15, -1, 1),
             grad = Random(16, -1, 1);
  const double lr = 0.01, rho = 0.875, momentum = 0.5, epsilon = 0.0009765625;
  auto after = RunApply<T>(
      "ApplyRMSProp", {var, ms, mom},
      {Tensor::Scalar<T>(lr), Tensor::Scalar<T>(rho), Tensor::Scalar<T>(momentum),
       Tensor::Scalar<T>(epsilon), FromDoubles<T>(grad)},
      {});
  std::vector<double> want_var(kSize), want_ms(kSize), want_mom(kSize);
  for (int i = 0; i < kSize; ++i) {
    want_ms[i] = ms[i] + (grad[i] * grad[i] - ms[i]) * (1 - rho);
    want_mom[i] = mom[i] * momentum + lr * grad[i] / std::sqrt(want_ms[i] + epsilon);
    want_var[i] = var[i] - want_mom[i];
  }
  Expect<T>(after[0], want_var, "var");
  Expect<T>(after[1], want_ms, "ms");
  Expect<T>(after[2], want_mom, "mom");
}

BOOST_AUTO_TEST_SUITE(state_apply)

BOOST_AUTO_TEST_CASE(gradient_descent) {
  CheckGradientDescent<float>();
  CheckGradientDescent<double>();
}

BOOST_AUTO_TEST_CASE(momentum) {
  for (bool nesterov : {false, true}) {
    BOOST_TEST_CONTEXT("nesterov " << nesterov) {
      CheckMomentum<float>(nesterov);
      CheckMomentum<double>(nesterov);
    }
  }
}

BOOST_AUTO_TEST_CASE(adam) {
  for (bool nesterov : {false, true}) {
    BOOST_TEST_CONTEXT("nesterov " << nesterov) {
      CheckAdam<float>(nesterov);
      CheckAdam<double>(nesterov);
    }
  }
}

BOOST_AUTO_TEST_CASE(adagrad) {
  for (bool update_slots : {true, false}) {
    BOOST_TEST_CONTEXT("update_slots " << update_slots) {
      CheckAdagrad<float>(update_slots);
      CheckAdagrad<double>(update_slots);
    }
  }
}

BOOST_AUTO_TEST_CASE(rmsprop) {
  CheckRMSProp<float>();
  CheckRMSProp<double>();
}

// One step of each optimizer worked out by hand (values in the comments).
void ExpectNear(const std::vector<double>& got, const std::vector<double>& want) {
  AF_EXPECT_OK(CheckTensor(Tensor::FromVector<double>(got), DT_DOUBLE,
                           {static_cast<int64_t>(want.size())}, want, 0, 1e-12));
}

BOOST_AUTO_TEST_CASE(hand_computed_steps) {
  using D = Tensor;
  // var = [1, 2] - 0.5 * [2, -4]
  auto sgd = RunApply<double>("ApplyGradientDescent", {{1, 2}},
                              {D::Scalar<double>(0.5), D::FromVector<double>({2, -4})}, {});
  ExpectNear(sgd[0], {0, 4});

  // accum = 0.9 * [0, 0] + [0.5, -1]; var = [1, 2] - 0.1 * accum
  const std::vector<Tensor> momentum_inputs = {D::Scalar<double>(0.1),
                                               D::FromVector<double>({0.5, -1}),
                                               D::Scalar<double>(0.9)};
  auto mom = RunApply<double>("ApplyMomentum", {{1, 2}, {0, 0}}, momentum_inputs, {});
  ExpectNear(mom[0], {0.95, 2.1});
  ExpectNear(mom[1], {0.5, -1});
  // Nesterov: var -= grad * lr + accum * momentum * lr = [0.05 + 0.045, -0.1 - 0.09]
  auto nag = RunApply<double>("ApplyMomentum", {{1, 2}, {0, 0}}, momentum_inputs,
                              {{"use_nesterov", true}});
  ExpectNear(nag[0], {0.905, 2.19});

  // lr_t = 0.001 * sqrt(0.001) / 0.1; m = 0.2; v = 0.004;
  // var = 1 - m * lr_t / (sqrt(v) + 1e-8)
  const std::vector<Tensor> adam_inputs = {
      D::Scalar<double>(0.9),   D::Scalar<double>(0.999), D::Scalar<double>(0.001),
      D::Scalar<double>(0.9),   D::Scalar<double>(0.999), D::Scalar<double>(1e-8),
      D::FromVector<double>({2})};
  auto adam = RunApply<double>("ApplyAdam", {{1}, {0}, {0}}, adam_inputs, {});
  ExpectNear(adam[0], {0.9990000001581139});
  ExpectNear(adam[1], {0.2});
  ExpectNear(adam[2], {0.004});
  // Nesterov: var = 1 - (grad * (1 - beta1) + beta1 * m) * lr_t / (sqrt(v) + 1e-8)
  auto nadam = RunApply<double>("ApplyAdam", {{1}, {0}, {0}}, adam_inputs,
                                {{"use_nesterov", true}});
  ExpectNear(nadam[0], {0.9981000003004163});

  // accum = 0.1 + 0.3^2; var = 1 - 0.5 * 0.3 / sqrt(0.19)
  auto adagrad = RunApply<double>("ApplyAdagrad", {{1}, {0.1}},
                                  {D::Scalar<double>(0.5), D::FromVector<double>({0.3})}, {});
  ExpectNear(adagrad[0], {0.6558763991941574});
  ExpectNear(adagrad[1], {0.19});

  // ms = 0.5 + (4 - 0.5) * 0.1; mom = 0.1 * 0.5 + 0.01 * 2 / sqrt(ms + 1e-10); var = 1 - mom
  auto rms = RunApply<double>("ApplyRMSProp", {{1}, {0.5}, {0.1}},
                              {D::Scalar<double>(0.01), D::Scalar<double>(0.9),
                               D::Scalar<double>(0.5), D::Scalar<double>(1e-10),
                               D::FromVector<double>({2})},
                              {});
  ExpectNear(rms[0], {0.9283069542194105});
  ExpectNear(rms[1], {0.85});
  ExpectNear(rms[2], {0.07169304578058956});
}

BOOST_AUTO_TEST_CASE(shape_errors_name_the_input_and_change_nothing) {
  TestVariable var(DT_FLOAT, "apply_err_var"), accum(DT_FLOAT, "apply_err_accum");
  BOOST_REQUIRE(var.Assign(Tensor::FromVector<float>({1, 2, 3})).ok());
  BOOST_REQUIRE(accum.Assign(Tensor::FromVector<float>({1, 1})).ok());
  {
    KernelRunner r("ApplyAdagrad", "adagrad");
    r.RefInput(var.storage(), var.mu()).RefInput(accum.storage(), accum.mu());
    r.Input(Tensor::Scalar<float>(0.1f)).Input(Tensor::FromVector<float>({1, 1, 1}));
    Status s = r.Run().status();
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(s.message().find("var and accum do not have the same shape") !=
                            std::string::npos,
                        s.message());
  }
  BOOST_REQUIRE(accum.Assign(Tensor::FromVector<float>({1, 1, 1}), false).ok());
  {
    KernelRunner r("ApplyAdagrad", "adagrad");
    r.RefInput(var.storage(), var.mu()).RefInput(accum.storage(), accum.mu());
    r.Input(Tensor::FromVector<float>({0.1f})).Input(Tensor::FromVector<float>({1, 1, 1}));
    Status s = r.Run().status();
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(s.message().find("lr is not a scalar") != std::string::npos,
                        s.message());
  }
  {
    KernelRunner r("ApplyGradientDescent", "sgd");
    r.RefInput(var.storage(), var.mu());
    r.Input(Tensor::Scalar<float>(0.1f)).Input(Tensor::FromVector<float>({1, 1}));
    Status s = r.Run().status();
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(s.message().find("var and delta") != std::string::npos, s.message());
  }
  AF_EXPECT_OK(CheckTensor(var.Value(), DT_FLOAT, {3}, {1, 2, 3}));
}

BOOST_AUTO_TEST_CASE(an_uninitialized_slot_is_named) {
  TestVariable var(DT_DOUBLE, "apply_uninit_var"), accum(DT_DOUBLE, "apply_uninit_accum");
  BOOST_REQUIRE(var.Assign(Tensor::FromVector<double>({1})).ok());
  KernelRunner r("ApplyMomentum", "momentum");
  r.RefInput(var.storage(), var.mu()).RefInput(accum.storage(), accum.mu());
  r.Input(Tensor::Scalar<double>(0.1)).Input(Tensor::FromVector<double>({1}));
  r.Input(Tensor::Scalar<double>(0.9));
  Status s = r.Run().status();
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION);
  BOOST_CHECK_MESSAGE(
      s.message().find("Attempting to use uninitialized value input_1") != std::string::npos,
      s.message());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
