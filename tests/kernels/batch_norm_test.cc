// FusedBatchNorm (V1, V3) and FusedBatchNormGrad (V1, V3) in training and
// inference against double-precision references. The gradient reference is
// itself checked against central differences of the forward reference.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "tests/kernels/op_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using testing::Contains;

// x viewed as [outer, channels, inner] for a format.
struct View {
  int64_t outer = 1, channels = 0, inner = 1;
  View(const TensorShape& s, const std::string& format) {
    const bool last = format.back() == 'C';
    const int ch = last ? s.dims() - 1 : 1;
    channels = s.dim_size(ch);
    for (int d = 0; d < ch; ++d) outer *= s.dim_size(d);
    for (int d = ch + 1; d < s.dims(); ++d) inner *= s.dim_size(d);
  }
  int64_t Channel(int64_t i) const { return (i / inner) % channels; }
  int64_t PerChannel() const { return outer * inner; }
};

struct Stats {
  std::vector<double> mean, var;  // var biased
};

Stats BatchStats(const std::vector<double>& x, const View& v) {
  Stats s{std::vector<double>(v.channels, 0.0), std::vector<double>(v.channels, 0.0)};
  for (size_t i = 0; i < x.size(); ++i) s.mean[v.Channel(i)] += x[i];
  for (double& m : s.mean) m /= static_cast<double>(v.PerChannel());
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = x[i] - s.mean[v.Channel(i)];
    s.var[v.Channel(i)] += d * d;
  }
  for (double& m : s.var) m /= static_cast<double>(v.PerChannel());
  return s;
}

std::vector<double> Normalize(const std::vector<double>& x, const View& v, const Stats& s,
                              const std::vector<double>& scale, const std::vector<double>& offset,
                              double eps) {
  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t c = v.Channel(i);
    y[i] = (x[i] - s.mean[c]) / std::sqrt(s.var[c] + eps) * scale[c] + offset[c];
  }
  return y;
}

std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> v(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) v[i] = ValueAsDouble(t, i);
  return v;
}

struct NormCase {
  NormCase(std::string op, TensorShape x, std::string format, bool training, float factor = 1.0f)
      : op(std::move(op)),
        x(std::move(x)),
        format(std::move(format)),
        training(training),
        factor(factor) {}
  std::string op;  // FusedBatchNorm or FusedBatchNormV3
  TensorShape x;
  std::string format;
  bool training;
  float factor;
};

void CheckForward(const NormCase& c, uint32_t seed) {
  BOOST_TEST_CONTEXT(c.op << " " << c.x.DebugString() << " " << c.format
                          << (c.training ? " training" : " inference") << " factor " << c.factor) {
    const View v(c.x, c.format);
    const double eps = 1e-3;
    Tensor x = RandomTensor<float>(c.x, seed, -3, 5);
    Tensor scale = RandomTensor<float>({v.channels}, seed + 1, 0.5, 2);
    Tensor offset = RandomTensor<float>({v.channels}, seed + 2);
    Tensor mean = RandomTensor<float>({v.channels}, seed + 3);
    Tensor var = RandomTensor<float>({v.channels}, seed + 4, 0.5, 2);
    KernelRunner r(c.op);
    r.Attr("epsilon", static_cast<float>(eps))
        .Attr("is_training", c.training)
        .Attr("data_format", c.format)
        .Attr("exponential_avg_factor", c.factor);
    // Training with factor 1 takes empty running statistics, as Keras feeds them.
    const bool empty_running = c.training && c.factor == 1.0f;
    auto out = r.Input(x)
                   .Input(scale)
                   .Input(offset)
                   .Input(empty_running ? Tensor(DT_FLOAT, {0}) : mean)
                   .Input(empty_running ? Tensor(DT_FLOAT, {0}) : var)
                   .Run();
    AF_REQUIRE_OK(out.status());
    BOOST_REQUIRE_EQUAL(out->size(), c.op == "FusedBatchNormV3" ? 6u : 5u);
    const std::vector<double> xs = AsDoubles(x);
    Stats s = c.training ? BatchStats(xs, v) : Stats{AsDoubles(mean), AsDoubles(var)};
    const auto y = Normalize(xs, v, s, AsDoubles(scale), AsDoubles(offset), eps);
    std::vector<double> batch_mean = s.mean, batch_var = s.var;
    if (c.training) {
      const double m = static_cast<double>(v.PerChannel());
      for (int64_t ch = 0; ch < v.channels; ++ch) {
        const double unbiased = s.var[ch] * m / (m - 1);
        const double f = c.factor;
        batch_mean[ch] = (1 - f) * ValueAsDouble(mean, ch) + f * s.mean[ch];
        batch_var[ch] = (1 - f) * ValueAsDouble(var, ch) + f * unbiased;
      }
    }
    AF_EXPECT_OK(CheckTensor((*out)[0], DT_FLOAT, c.x, y, 1e-5, 1e-5));
    AF_EXPECT_OK(CheckTensor((*out)[1], DT_FLOAT, {v.channels}, batch_mean, 1e-5, 1e-6));
    AF_EXPECT_OK(CheckTensor((*out)[2], DT_FLOAT, {v.channels}, batch_var, 1e-5, 1e-6));
    AF_EXPECT_OK(CheckTensor((*out)[3], DT_FLOAT, {v.channels}, s.mean, 1e-5, 1e-6));
    AF_EXPECT_OK(CheckTensor((*out)[4], DT_FLOAT, {v.channels}, s.var, 1e-5, 1e-6));
  }
}

BOOST_AUTO_TEST_SUITE(batch_norm)

BOOST_AUTO_TEST_CASE(forward) {
  uint32_t seed = 1;
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV3"}) {
    for (bool training : {true, false}) {
      CheckForward({op, {2, 5, 4, 3}, "NHWC", training}, seed += 5);
      CheckForward({op, {3, 4, 3, 5}, "NCHW", training}, seed += 5);
      CheckForward({op, {8, 14, 14, 32}, "NHWC", training}, seed += 5);
    }
    CheckForward({op, {2, 5, 4, 3}, "NHWC", true, 0.25f}, seed += 5);
  }
  CheckForward({"FusedBatchNormV3", {2, 3, 4, 2, 3}, "NDHWC", true}, seed += 5);
  CheckForward({"FusedBatchNormV3", {2, 3, 4, 2, 3}, "NCDHW", false}, seed += 5);
}

// Gradients of L = sum(dy * y) with y the training-mode output, from the
// definition: with xhat = (x - mean) * inv and m elements per channel,
// dx = scale * inv * (dy - mean(dy) - xhat * mean(dy * xhat)).
struct GradRef {
  std::vector<double> dx, dscale, doffset;
};

GradRef RefGrad(const std::vector<double>& dy, const std::vector<double>& x, const View& v,
                const Stats& s, const std::vector<double>& scale, double eps, bool training) {
  GradRef g{std::vector<double>(x.size()), std::vector<double>(v.channels, 0.0),
            std::vector<double>(v.channels, 0.0)};
  std::vector<double> inv(v.channels), sum_dy(v.channels, 0.0), sum_dy_xhat(v.channels, 0.0);
  for (int64_t c = 0; c < v.channels; ++c) inv[c] = 1 / std::sqrt(s.var[c] + eps);
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t c = v.Channel(i);
    sum_dy[c] += dy[i];
    sum_dy_xhat[c] += dy[i] * (x[i] - s.mean[c]) * inv[c];
  }
  const double m = static_cast<double>(v.PerChannel());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t c = v.Channel(i);
    const double xhat = (x[i] - s.mean[c]) * inv[c];
    g.dx[i] = training ? scale[c] * inv[c] * (dy[i] - sum_dy[c] / m - xhat * sum_dy_xhat[c] / m)
                       : scale[c] * inv[c] * dy[i];
  }
  g.dscale = sum_dy_xhat;
  g.doffset = sum_dy;
  return g;
}

BOOST_AUTO_TEST_CASE(gradient_reference_matches_numeric_differences) {
  const TensorShape shape{2, 3, 2, 2};
  const View v(shape, "NHWC");
  Tensor xt = RandomTensor<double>(shape, 5, -2, 2), dyt = RandomTensor<double>(shape, 6);
  const std::vector<double> x = AsDoubles(xt), dy = AsDoubles(dyt), scale = {0.7, 1.3};
  const std::vector<double> offset = {0.1, -0.2};
  const double eps = 1e-3, h = 1e-6;
  auto loss = [&](const std::vector<double>& xv) {
    const auto y = Normalize(xv, v, BatchStats(xv, v), scale, offset, eps);
    double l = 0;
    for (size_t i = 0; i < y.size(); ++i) l += dy[i] * y[i];
    return l;
  };
  const GradRef g = RefGrad(dy, x, v, BatchStats(x, v), scale, eps, true);
  for (size_t i = 0; i < x.size(); ++i) {
    std::vector<double> xp = x, xm = x;
    xp[i] += h;
    xm[i] -= h;
    BOOST_CHECK_SMALL((loss(xp) - loss(xm)) / (2 * h) - g.dx[i], 1e-6);
  }
}

void CheckGrad(const std::string& op, const TensorShape& shape, const std::string& format,
               bool training, uint32_t seed) {
  BOOST_TEST_CONTEXT(op << " " << shape.DebugString() << " " << format
                        << (training ? " training" : " inference")) {
    const View v(shape, format);
    const double eps = 1e-3;
    Tensor x = RandomTensor<float>(shape, seed, -2, 3);
    Tensor dy = RandomTensor<float>(shape, seed + 1);
    Tensor scale = RandomTensor<float>({v.channels}, seed + 2, 0.5, 2);
    const std::vector<double> xs = AsDoubles(x);
    Stats s = BatchStats(xs, v);
    if (!training) {  // population statistics unrelated to this batch
      for (double& m : s.mean) m += 0.3;
      for (double& var : s.var) var *= 1.7;
    }
    Tensor mean(DT_FLOAT, {v.channels}), var(DT_FLOAT, {v.channels});
    for (int64_t c = 0; c < v.channels; ++c) {
      mean.data<float>()[c] = static_cast<float>(s.mean[c]);
      var.data<float>()[c] = static_cast<float>(s.var[c]);
      s.mean[c] = mean.data<float>()[c];  // the kernel sees the rounded values
      s.var[c] = var.data<float>()[c];
    }
    KernelRunner r(op);
    r.Attr("epsilon", static_cast<float>(eps))
        .Attr("is_training", training)
        .Attr("data_format", format);
    r.Input(dy).Input(x).Input(scale).Input(mean).Input(var);
    if (op == "FusedBatchNormGradV3") r.Input(Tensor(DT_FLOAT, {}));
    auto out = r.Run();
    AF_REQUIRE_OK(out.status());
    const GradRef g = RefGrad(AsDoubles(dy), xs, v, s, AsDoubles(scale), eps, training);
    AF_EXPECT_OK(CheckTensor((*out)[0], DT_FLOAT, shape, g.dx, 1e-4, 1e-5));
    AF_EXPECT_OK(CheckTensor((*out)[1], DT_FLOAT, {v.channels}, g.dscale, 1e-4, 1e-4));
    AF_EXPECT_OK(CheckTensor((*out)[2], DT_FLOAT, {v.channels}, g.doffset, 1e-4, 1e-4));
    BOOST_TEST((*out)[3].shape() == TensorShape({0}));
    BOOST_TEST((*out)[4].shape() == TensorShape({0}));
  }
}

BOOST_AUTO_TEST_CASE(gradient) {
  uint32_t seed = 40;
  for (const char* op : {"FusedBatchNormGrad", "FusedBatchNormGradV3"})
    for (bool training : {true, false}) {
      CheckGrad(op, {2, 5, 4, 3}, "NHWC", training, seed += 3);
      CheckGrad(op, {3, 4, 3, 5}, "NCHW", training, seed += 3);
      CheckGrad(op, {8, 7, 7, 16}, "NHWC", training, seed += 3);
    }
}

BOOST_AUTO_TEST_CASE(errors_name_the_node) {
  {
    KernelRunner r("FusedBatchNorm", "bn");
    auto out = r.Input(RandomTensor<float>({2, 3, 3, 4}, 1))
                   .Input(RandomTensor<float>({3}, 2))
                   .Input(RandomTensor<float>({4}, 3))
                   .Input(Tensor(DT_FLOAT, {0}))
                   .Input(Tensor(DT_FLOAT, {0}))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_TEST(out.status().code() == Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "bn") &&
                            Contains(out.status().message(),
                                     "scale must have the same number of elements as the "
                                     "channels of x, got 3 and 4"),
                        out.status().ToString());
  }
  {
    KernelRunner r("FusedBatchNorm", "bn_infer");
    r.Attr("is_training", false);
    auto out = r.Input(RandomTensor<float>({2, 3, 3, 4}, 1))
                   .Input(RandomTensor<float>({4}, 2))
                   .Input(RandomTensor<float>({4}, 3))
                   .Input(Tensor(DT_FLOAT, {0}))
                   .Input(Tensor(DT_FLOAT, {0}))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "bn_infer") &&
                            Contains(out.status().message(), "mean must have the same number"),
                        out.status().ToString());
  }
  {
    KernelRunner r("FusedBatchNorm", "bn_rank");
    auto out = r.Input(RandomTensor<float>({3, 4}, 1))
                   .Input(RandomTensor<float>({4}, 2))
                   .Input(RandomTensor<float>({4}, 3))
                   .Input(Tensor(DT_FLOAT, {0}))
                   .Input(Tensor(DT_FLOAT, {0}))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "bn_rank") &&
                            Contains(out.status().message(), "input must be 4-dimensional"),
                        out.status().ToString());
  }
  {
    KernelRunner r("FusedBatchNormGrad", "bn_grad");
    auto out = r.Input(RandomTensor<float>({2, 3, 3, 4}, 1))
                   .Input(RandomTensor<float>({2, 3, 4, 4}, 2))
                   .Input(RandomTensor<float>({4}, 3))
                   .Input(RandomTensor<float>({4}, 4))
                   .Input(RandomTensor<float>({4}, 5))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "bn_grad") &&
                            Contains(out.status().message(), "must have same shape"),
                        out.status().ToString());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
