// Relu6, Elu, Selu, Softplus, LogSoftmax, the activation gradients,
// BiasAddGrad and L2Loss against double-precision references; the gradient
// kernels also against central differences of the forward kernels.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/op_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using testing::Contains;

constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;

double Elu(double x) { return x < 0 ? std::expm1(x) : x; }
double Selu(double x) { return x < 0 ? kSeluScale * kSeluAlpha * std::expm1(x) : kSeluScale * x; }
double Softplus(double x) { return std::log1p(std::exp(-std::fabs(x))) + std::max(x, 0.0); }
double Relu6(double x) { return std::min(std::max(x, 0.0), 6.0); }

const std::vector<TensorShape>& Shapes() {
  static const std::vector<TensorShape> shapes = {TensorShape{}, TensorShape{17}, TensorShape{4, 0},
                                                  TensorShape{3, 4, 5}};
  return shapes;
}

template <typename T>
void CheckUnary(const std::string& op, double (*ref)(double), double lo, double hi) {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  uint32_t seed = 7;
  for (const TensorShape& shape : Shapes()) {
    BOOST_TEST_CONTEXT(op << "<" << DataTypeString(dt) << "> " << shape.DebugString()) {
      Tensor x = RandomTensor<T>(shape, ++seed, lo, hi);
      auto out = RunKernel(op, {x});
      AF_REQUIRE_OK(out.status());
      std::vector<double> want;
      for (int64_t i = 0; i < x.NumElements(); ++i) want.push_back(ref(ValueAsDouble(x, i)));
      AF_EXPECT_OK(
          CheckTensor((*out)[0], dt, shape, want, Tolerance<T>() * 10, Tolerance<T>() * 10));
    }
  }
}

BOOST_AUTO_TEST_SUITE(activations)

BOOST_AUTO_TEST_CASE(forward_ops) {
  CheckUnary<float>("Relu6", Relu6, -10, 10);
  CheckUnary<double>("Relu6", Relu6, -10, 10);
  CheckUnary<int32_t>("Relu6", Relu6, -10, 10);
  CheckUnary<float>("Elu", Elu, -5, 5);
  CheckUnary<double>("Elu", Elu, -5, 5);
  CheckUnary<float>("Selu", Selu, -5, 5);
  CheckUnary<double>("Selu", Selu, -5, 5);
  CheckUnary<float>("Softplus", Softplus, -30, 30);
  CheckUnary<double>("Softplus", Softplus, -30, 30);
}

BOOST_AUTO_TEST_CASE(softplus_is_stable_at_the_extremes) {
  auto out = RunKernel("Softplus", {Tensor::FromVector<float>({-200.f, 200.f, 0.f})});
  AF_REQUIRE_OK(out.status());
  const float* y = (*out)[0].data<float>();
  BOOST_TEST(y[0] >= 0.f);
  BOOST_TEST(y[0] < 1e-30f);
  BOOST_TEST(y[1] == 200.f);
  BOOST_CHECK_CLOSE_FRACTION(y[2], std::log(2.0), 1e-6);
}

BOOST_AUTO_TEST_CASE(relu6_keeps_nan) {
  auto out = RunKernel("Relu6", {Tensor::Scalar(std::numeric_limits<float>::quiet_NaN())});
  AF_REQUIRE_OK(out.status());
  BOOST_TEST(std::isnan((*out)[0].scalar<float>()));
}

// Gradient ops against their definitions.
struct GradCase {
  std::string op;
  // Saved value (input or output of the forward op) from the input x.
  std::function<double(double)> saved;
  std::function<double(double g, double x)> grad;
};

template <typename T>
void CheckGrad(const GradCase& c, double lo, double hi) {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  BOOST_TEST_CONTEXT(c.op << "<" << DataTypeString(dt) << ">") {
    const TensorShape shape{5, 7};
    Tensor x = RandomTensor<double>(shape, 3, lo, hi);
    Tensor g = RandomTensor<T>(shape, 4);
    Tensor saved(dt, shape);
    std::vector<double> want;
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      const double xi = ValueAsDouble(x, i);
      saved.data<T>()[i] = static_cast<T>(c.saved(xi));
      want.push_back(c.grad(ValueAsDouble(g, i), xi));
    }
    auto out = RunKernel(c.op, {g, saved});
    AF_REQUIRE_OK(out.status());
    AF_EXPECT_OK(CheckTensor((*out)[0], dt, shape, want, 1e-5, 1e-5));
  }
}

BOOST_AUTO_TEST_CASE(gradient_ops) {
  auto id = [](double x) { return x; };
  const std::vector<GradCase> cases = {
      {"ReluGrad", id, [](double g, double x) { return x > 0 ? g : 0.0; }},
      {"Relu6Grad", id, [](double g, double x) { return x > 0 && x < 6 ? g : 0.0; }},
      {"EluGrad", Elu, [](double g, double x) { return x < 0 ? g * std::exp(x) : g; }},
      {"SeluGrad", Selu,
       [](double g, double x) {
         return x < 0 ? g * kSeluScale * kSeluAlpha * std::exp(x) : g * kSeluScale;
       }},
      {"SoftplusGrad", id, [](double g, double x) { return g / (1 + std::exp(-x)); }},
  };
  for (const GradCase& c : cases) {
    CheckGrad<float>(c, -8, 8);
    CheckGrad<double>(c, -8, 8);
  }
}

// Each gradient kernel matches central differences of its forward kernel
// (in double), so forward and gradient agree with each other too.
BOOST_AUTO_TEST_CASE(gradients_match_numeric_differences) {
  struct Pair {
    const char* forward;
    const char* grad;
    bool grad_takes_output;
  };
  for (const Pair& p : {Pair{"Relu", "ReluGrad", false}, Pair{"Relu6", "Relu6Grad", false},
                        Pair{"Elu", "EluGrad", true}, Pair{"Selu", "SeluGrad", true},
                        Pair{"Softplus", "SoftplusGrad", false}}) {
    BOOST_TEST_CONTEXT(p.grad) {
      // Keep points away from the kinks at 0 and 6.
      std::vector<double> xs = {-3.1, -0.7, -0.2, 0.3, 1.9, 5.4, 6.8};
      Tensor x = Tensor::FromVector<double>(xs);
      const double h = 1e-6;
      std::vector<double> plus = xs, minus = xs;
      for (double& v : plus) v += h;
      for (double& v : minus) v -= h;
      auto y = RunKernel(p.forward, {x});
      auto yp = RunKernel(p.forward, {Tensor::FromVector<double>(plus)});
      auto ym = RunKernel(p.forward, {Tensor::FromVector<double>(minus)});
      AF_REQUIRE_OK(y.status());
      AF_REQUIRE_OK(yp.status());
      AF_REQUIRE_OK(ym.status());
      Tensor ones = Tensor::FromVector<double>(std::vector<double>(xs.size(), 1.0));
      auto dx = RunKernel(p.grad, {ones, p.grad_takes_output ? (*y)[0] : x});
      AF_REQUIRE_OK(dx.status());
      std::vector<double> numeric;
      for (size_t i = 0; i < xs.size(); ++i)
        numeric.push_back((ValueAsDouble((*yp)[0], i) - ValueAsDouble((*ym)[0], i)) / (2 * h));
      AF_EXPECT_OK(CheckTensor((*dx)[0], DT_DOUBLE, {7}, numeric, 1e-6, 1e-7));
    }
  }
}

BOOST_AUTO_TEST_CASE(gradient_ops_need_equal_shapes) {
  KernelRunner r("ReluGrad", "relu_grad");
  auto out = r.Input(RandomTensor<float>({2, 3}, 1)).Input(RandomTensor<float>({3}, 2)).Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST(out.status().code() == Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(Contains(out.status().message(), "relu_grad") &&
                          Contains(out.status().message(), "must have the same size and shape") &&
                          Contains(out.status().message(), "[2,3] != input 1: [3]"),
                      out.status().ToString());
}

template <typename T>
void CheckLogSoftmax() {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  uint32_t seed = 40;
  for (const TensorShape& shape : {TensorShape{1}, TensorShape{10}, TensorShape{4, 7},
                                   TensorShape{2, 3, 33}, TensorShape{0, 5}}) {
    BOOST_TEST_CONTEXT("LogSoftmax<" << DataTypeString(dt) << "> " << shape.DebugString()) {
      Tensor x = RandomTensor<T>(shape, ++seed, -20, 20);
      auto out = RunKernel("LogSoftmax", {x});
      AF_REQUIRE_OK(out.status());
      const int64_t depth = shape.dim_size(shape.dims() - 1);
      std::vector<double> want(shape.num_elements());
      for (int64_t r = 0; depth > 0 && r < shape.num_elements() / depth; ++r) {
        double sum = 0;
        for (int64_t j = 0; j < depth; ++j) sum += std::exp(ValueAsDouble(x, r * depth + j));
        for (int64_t j = 0; j < depth; ++j)
          want[r * depth + j] = ValueAsDouble(x, r * depth + j) - std::log(sum);
      }
      AF_EXPECT_OK(
          CheckTensor((*out)[0], dt, shape, want, Tolerance<T>() * 10, Tolerance<T>() * 100));
    }
  }
  // Large logits must not overflow.
  auto big = RunKernel("LogSoftmax", {Tensor::FromVector<T>({T(1000), T(1000), T(-1000)})});
  AF_REQUIRE_OK(big.status());
  AF_EXPECT_OK(CheckTensor((*big)[0], dt, {3},
                           {-std::log(2.0), -std::log(2.0), -2000 - std::log(2.0)}, 1e-6, 1e-6));
}

BOOST_AUTO_TEST_CASE(log_softmax) {
  CheckLogSoftmax<float>();
  CheckLogSoftmax<double>();
}

template <typename T>
void CheckBiasAddGrad(const TensorShape& shape, bool nchw, uint32_t seed) {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  BOOST_TEST_CONTEXT("BiasAddGrad<" << DataTypeString(dt) << "> " << shape.DebugString()
                                    << (nchw ? " NCHW" : " NHWC")) {
    const int channel_dim = nchw ? 1 : shape.dims() - 1;
    const int64_t channels = shape.dim_size(channel_dim);
    Tensor g = RandomTensor<T>(shape, seed);
    KernelRunner r("BiasAddGrad");
    auto out = r.Attr("data_format", nchw ? "NCHW" : "NHWC").Input(g).Run();
    AF_REQUIRE_OK(out.status());
    std::vector<double> want(channels, 0.0);
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      int64_t rest = i, channel = 0;
      for (int d = shape.dims() - 1; d >= 0; --d) {
        if (d == channel_dim) channel = rest % shape.dim_size(d);
        rest /= shape.dim_size(d);
      }
      want[channel] += ValueAsDouble(g, i);
    }
    AF_EXPECT_OK(CheckTensor((*out)[0], dt, {channels}, want, 1e-5, 1e-5));
  }
}

BOOST_AUTO_TEST_CASE(bias_add_grad) {
  uint32_t seed = 60;
  for (bool nchw : {false, true}) {
    CheckBiasAddGrad<float>({4, 3}, nchw, ++seed);
    CheckBiasAddGrad<float>({2, 4, 3, 5}, nchw, ++seed);
    CheckBiasAddGrad<double>({2, 3, 2, 2, 4}, nchw, ++seed);
    CheckBiasAddGrad<float>({0, 3, 4}, nchw, ++seed);
    CheckBiasAddGrad<double>({3, 17, 13}, nchw, ++seed);
    CheckBiasAddGrad<float>({64, 14, 14, 8}, nchw, ++seed);
  }
  KernelRunner r("BiasAddGrad", "bias_grad");
  auto out = r.Input(RandomTensor<float>({3}, 1)).Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_MESSAGE(Contains(out.status().message(), "bias_grad") &&
                          Contains(out.status().message(), "must be at least 2D"),
                      out.status().ToString());
}

BOOST_AUTO_TEST_CASE(l2_loss) {
  for (const TensorShape& shape : {TensorShape{}, TensorShape{0}, TensorShape{13},
                                   TensorShape{3, 5, 7}, TensorShape{1000, 33}}) {
    BOOST_TEST_CONTEXT("L2Loss " << shape.DebugString()) {
      Tensor xf = RandomTensor<float>(shape, 5), xd = RandomTensor<double>(shape, 6);
      auto of = RunKernel("L2Loss", {xf});
      auto od = RunKernel("L2Loss", {xd});
      AF_REQUIRE_OK(of.status());
      AF_REQUIRE_OK(od.status());
      double sf = 0, sd = 0;
      for (int64_t i = 0; i < shape.num_elements(); ++i) {
        sf += ValueAsDouble(xf, i) * ValueAsDouble(xf, i);
        sd += ValueAsDouble(xd, i) * ValueAsDouble(xd, i);
      }
      AF_EXPECT_OK(CheckTensor((*of)[0], DT_FLOAT, {}, {sf / 2}, 1e-6, 1e-6));
      AF_EXPECT_OK(CheckTensor((*od)[0], DT_DOUBLE, {}, {sd / 2}, 1e-12, 1e-12));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
