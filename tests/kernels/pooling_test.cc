// MaxPool, MaxPoolGrad, AvgPool and AvgPoolGrad against double-precision
// reference loops, including SAME windows clipped at the edges.
#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tests/kernels/op_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using testing::Contains;

struct PoolCase {
  PoolCase(std::string name, TensorShape input, std::vector<int64_t> ksize,
           std::vector<int64_t> strides, std::string padding, std::string format = "NHWC",
           std::vector<int64_t> explicit_paddings = {})
      : name(std::move(name)),
        input(std::move(input)),
        ksize(std::move(ksize)),
        strides(std::move(strides)),
        padding(std::move(padding)),
        format(std::move(format)),
        explicit_paddings(std::move(explicit_paddings)) {}

  std::string name;
  TensorShape input;
  std::vector<int64_t> ksize, strides;
  std::string padding;
  std::string format;
  std::vector<int64_t> explicit_paddings;
};

// Windows of one pooling, from TensorFlow's definition: each output cell
// covers input rows [y0, y1) and columns [x0, x1) after clipping padding.
struct RefPool {
  bool nhwc;
  int64_t n, h, w, c, kh, kw, sh, sw, oh, ow, pt, pl;

  explicit RefPool(const PoolCase& p) {
    nhwc = p.format == "NHWC";
    const int hd = nhwc ? 1 : 2, wd = nhwc ? 2 : 3, cd = nhwc ? 3 : 1;
    n = p.input.dim_size(0);
    h = p.input.dim_size(hd);
    w = p.input.dim_size(wd);
    c = p.input.dim_size(cd);
    kh = p.ksize[hd];
    kw = p.ksize[wd];
    sh = p.strides[hd];
    sw = p.strides[wd];
    auto dim = [&](int64_t in, int64_t k, int64_t s, int d, int64_t* out, int64_t* pad) {
      if (p.padding == "VALID") {
        *out = (in - k) / s + 1;
        *pad = 0;
      } else if (p.padding == "SAME") {
        *out = (in + s - 1) / s;
        *pad = std::max<int64_t>(0, (*out - 1) * s + k - in) / 2;
      } else {
        const int64_t before = p.explicit_paddings[2 * d], after = p.explicit_paddings[2 * d + 1];
        *out = (in + before + after - k) / s + 1;
        *pad = before;
      }
    };
    dim(h, kh, sh, hd, &oh, &pt);
    dim(w, kw, sw, wd, &ow, &pl);
  }
  TensorShape OutputShape() const {
    return nhwc ? TensorShape{n, oh, ow, c} : TensorShape{n, c, oh, ow};
  }
  int64_t In(int64_t b, int64_t y, int64_t x, int64_t ch) const {
    return nhwc ? ((b * h + y) * w + x) * c + ch : ((b * c + ch) * h + y) * w + x;
  }
  int64_t Out(int64_t b, int64_t y, int64_t x, int64_t ch) const {
    return nhwc ? ((b * oh + y) * ow + x) * c + ch : ((b * c + ch) * oh + y) * ow + x;
  }
  // fn(out_index, in_indices of the window in row-major order).
  template <typename Fn>
  void Windows(Fn fn) const {
    for (int64_t b = 0; b < n; ++b)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x)
          for (int64_t ch = 0; ch < c; ++ch) {
            std::vector<int64_t> cells;
            for (int64_t iy = y * sh - pt; iy < y * sh - pt + kh; ++iy)
              for (int64_t ix = x * sw - pl; ix < x * sw - pl + kw; ++ix)
                if (iy >= 0 && iy < h && ix >= 0 && ix < w) cells.push_back(In(b, iy, ix, ch));
            fn(Out(b, y, x, ch), cells);
          }
  }
};

KernelRunner& WithPoolAttrs(KernelRunner& r, const PoolCase& p) {
  r.Attr("ksize", p.ksize).Attr("strides", p.strides).Attr("padding", p.padding);
  r.Attr("data_format", p.format);
  if (!p.explicit_paddings.empty()) r.Attr("explicit_paddings", p.explicit_paddings);
  return r;
}

std::vector<PoolCase> Cases() {
  std::vector<PoolCase> cases = {
      {"2x2_s2_valid", {2, 6, 6, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"},
      {"2x2_s2_same_odd", {2, 7, 5, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"},
      {"3x3_s2_same", {1, 8, 7, 4}, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"},
      {"3x3_s1_same", {2, 5, 5, 2}, {1, 3, 3, 1}, {1, 1, 1, 1}, "SAME"},
      {"3x2_s21_valid", {1, 9, 6, 5}, {1, 3, 2, 1}, {1, 2, 1, 1}, "VALID"},
      {"mnist_pool", {2, 28, 28, 32}, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"},
      {"nchw_2x2_s2_same", {2, 3, 7, 5}, {1, 1, 2, 2}, {1, 1, 2, 2}, "SAME", "NCHW"},
  };
  return cases;
}

template <typename T>
void CheckMaxPool(const PoolCase& p, uint32_t seed) {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  BOOST_TEST_CONTEXT("MaxPool<" << DataTypeString(dt) << "> " << p.name) {
    const RefPool g(p);
    Tensor x = RandomTensor<T>(p.input, seed, -100, 100);
    KernelRunner r("MaxPool");
    auto out = WithPoolAttrs(r, p).Input(x).Run();
    AF_REQUIRE_OK(out.status());
    std::vector<double> want(g.OutputShape().num_elements());
    g.Windows([&](int64_t o, const std::vector<int64_t>& cells) {
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t i : cells) m = std::max(m, ValueAsDouble(x, i));
      want[o] = m;
    });
    AF_EXPECT_OK(CheckTensor((*out)[0], dt, g.OutputShape(), want));
  }
}

template <typename T>
void CheckMaxPoolGrad(const PoolCase& p, uint32_t seed) {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  BOOST_TEST_CONTEXT("MaxPoolGrad<" << DataTypeString(dt) << "> " << p.name) {
    const RefPool g(p);
    Tensor x = RandomTensor<T>(p.input, seed);
    Tensor dy = RandomTensor<T>(g.OutputShape(), seed + 1);
    Tensor y(dt, g.OutputShape());
    std::vector<double> want(p.input.num_elements(), 0.0);
    g.Windows([&](int64_t o, const std::vector<int64_t>& cells) {
      int64_t arg = cells[0];  // the first maximum in row-major window order
      for (int64_t i : cells)
        if (ValueAsDouble(x, i) > ValueAsDouble(x, arg)) arg = i;
      y.data<T>()[o] = x.data<T>()[arg];
      want[arg] += ValueAsDouble(dy, o);
    });
    KernelRunner r("MaxPoolGrad");
    auto out = WithPoolAttrs(r, p).Input(x).Input(y).Input(dy).Run();
    AF_REQUIRE_OK(out.status());
    AF_EXPECT_OK(CheckTensor((*out)[0], dt, p.input, want, Tolerance<T>(), Tolerance<T>()));
  }
}

template <typename T>
void CheckAvgPool(const PoolCase& p, uint32_t seed) {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  BOOST_TEST_CONTEXT("AvgPool<" << DataTypeString(dt) << "> " << p.name) {
    const RefPool g(p);
    Tensor x = RandomTensor<T>(p.input, seed);
    KernelRunner r("AvgPool");
    auto out = WithPoolAttrs(r, p).Input(x).Run();
    AF_REQUIRE_OK(out.status());
    std::vector<double> want(g.OutputShape().num_elements());
    g.Windows([&](int64_t o, const std::vector<int64_t>& cells) {
      double s = 0;
      for (int64_t i : cells) s += ValueAsDouble(x, i);
      want[o] = s / static_cast<double>(cells.size());  // padding does not count
    });
    AF_EXPECT_OK(
        CheckTensor((*out)[0], dt, g.OutputShape(), want, Tolerance<T>() * 10, Tolerance<T>()));
  }
}

template <typename T>
void CheckAvgPoolGrad(const PoolCase& p, uint32_t seed) {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  BOOST_TEST_CONTEXT("AvgPoolGrad<" << DataTypeString(dt) << "> " << p.name) {
    const RefPool g(p);
    Tensor dy = RandomTensor<T>(g.OutputShape(), seed);
    std::vector<double> want(p.input.num_elements(), 0.0);
    g.Windows([&](int64_t o, const std::vector<int64_t>& cells) {
      for (int64_t i : cells) want[i] += ValueAsDouble(dy, o) / static_cast<double>(cells.size());
    });
    std::vector<int32_t> sizes;
    for (int d = 0; d < 4; ++d) sizes.push_back(static_cast<int32_t>(p.input.dim_size(d)));
    KernelRunner r("AvgPoolGrad");
    auto out = WithPoolAttrs(r, p).Input(Tensor::FromVector<int32_t>(sizes)).Input(dy).Run();
    AF_REQUIRE_OK(out.status());
    AF_EXPECT_OK(CheckTensor((*out)[0], dt, p.input, want, Tolerance<T>() * 10, Tolerance<T>()));
  }
}

BOOST_AUTO_TEST_SUITE(pooling)

BOOST_AUTO_TEST_CASE(max_pool) {
  uint32_t seed = 10;
  for (const PoolCase& p : Cases()) {
    CheckMaxPool<float>(p, ++seed);
    CheckMaxPool<double>(p, ++seed);
    CheckMaxPool<int32_t>(p, ++seed);
  }
  PoolCase explicit_pad{"explicit",
                        {1, 5, 5, 2},
                        {1, 3, 2, 1},
                        {1, 2, 2, 1},
                        "EXPLICIT",
                        "NHWC",
                        {0, 0, 1, 2, 0, 1, 0, 0}};
  CheckMaxPool<float>(explicit_pad, ++seed);
  CheckMaxPoolGrad<float>(explicit_pad, ++seed);
}

BOOST_AUTO_TEST_CASE(max_pool_grad) {
  uint32_t seed = 50;
  for (const PoolCase& p : Cases()) {
    CheckMaxPoolGrad<float>(p, seed += 2);
    CheckMaxPoolGrad<double>(p, seed += 2);
  }
}

// Ties: the first maximum of each window (in row-major order) takes the
// whole gradient; overlapping windows add up.
BOOST_AUTO_TEST_CASE(max_pool_grad_ties_go_to_the_first_maximum) {
  PoolCase p{"ties", {1, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"};
  Tensor x = Tensor::FromVector<float>(std::vector<float>(9, 1.f), p.input);
  Tensor y = Tensor::FromVector<float>({1, 1, 1, 1}, {1, 2, 2, 1});
  Tensor dy = Tensor::FromVector<float>({1, 2, 3, 4}, {1, 2, 2, 1});
  KernelRunner r("MaxPoolGrad");
  auto out = WithPoolAttrs(r, p).Input(x).Input(y).Input(dy).Run();
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_FLOAT, p.input, {1, 2, 0, 3, 4, 0, 0, 0, 0}));
}

BOOST_AUTO_TEST_CASE(avg_pool_and_grad) {
  uint32_t seed = 90;
  for (const PoolCase& p : Cases()) {
    CheckAvgPool<float>(p, ++seed);
    CheckAvgPool<double>(p, ++seed);
    CheckAvgPoolGrad<float>(p, ++seed);
    CheckAvgPoolGrad<double>(p, ++seed);
  }
}

BOOST_AUTO_TEST_CASE(errors_name_the_node) {
  {
    KernelRunner r("MaxPool", "pool_batch");
    auto out = r.Attr("ksize", std::vector<int64_t>{2, 2, 2, 1})
                   .Attr("strides", std::vector<int64_t>{1, 2, 2, 1})
                   .Attr("padding", "VALID")
                   .Input(RandomTensor<float>({2, 4, 4, 1}, 1))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_TEST(out.status().code() == Code::UNIMPLEMENTED);
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "pool_batch") &&
                            Contains(out.status().message(), "batch dimension"),
                        out.status().ToString());
  }
  {
    KernelRunner r("AvgPool", "pool_rank");
    auto out = r.Attr("ksize", std::vector<int64_t>{1, 2, 2, 1})
                   .Attr("strides", std::vector<int64_t>{1, 2, 2, 1})
                   .Attr("padding", "VALID")
                   .Input(RandomTensor<float>({4, 4, 1}, 1))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_TEST(out.status().code() == Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "pool_rank") &&
                            Contains(out.status().message(), "input must be 4-dimensional"),
                        out.status().ToString());
  }
  {
    PoolCase p{"bad_grad", {1, 4, 4, 2}, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"};
    KernelRunner r("MaxPoolGrad", "pool_grad");
    auto out = WithPoolAttrs(r, p)
                   .Input(RandomTensor<float>(p.input, 1))
                   .Input(RandomTensor<float>({1, 2, 2, 2}, 2))
                   .Input(RandomTensor<float>({1, 3, 2, 2}, 3))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "pool_grad") &&
                            Contains(out.status().message(), "grad has shape [1,3,2,2]"),
                        out.status().ToString());
  }
  {
    KernelRunner r("MaxPool", "pool_ksize");
    auto out = r.Attr("ksize", std::vector<int64_t>{1, 0, 2, 1})
                   .Attr("strides", std::vector<int64_t>{1, 2, 2, 1})
                   .Attr("padding", "VALID")
                   .Input(RandomTensor<float>({1, 4, 4, 1}, 1))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "ksize must be positive"),
                        out.status().ToString());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
