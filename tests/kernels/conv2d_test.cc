// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter in float (oneDNN)
// and double (direct loops) against double-precision reference loops.
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "core/op_kernel.h"
#include "tests/kernels/conv_reference.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using testing::Contains;

std::vector<ConvCase> Cases() {
  std::vector<ConvCase> cases;
  cases.push_back({"same_s1", {2, 7, 9, 3}, {3, 3, 3, 4}});
  cases.push_back({"valid_s2", {2, 9, 8, 3}, {3, 2, 3, 5}, {1, 2, 2, 1}, "VALID"});
  cases.push_back({"same_s2_odd", {1, 7, 7, 2}, {3, 3, 2, 3}, {1, 2, 2, 1}, "SAME"});
  cases.push_back({"same_rect_stride", {2, 8, 11, 2}, {2, 4, 2, 3}, {1, 3, 2, 1}, "SAME"});
  cases.push_back(
      {"same_dilation2", {2, 9, 10, 3}, {3, 3, 3, 2}, {1, 1, 1, 1}, "SAME", {1, 2, 2, 1}});
  cases.push_back(
      {"valid_dilation2", {1, 11, 9, 2}, {3, 2, 2, 4}, {1, 1, 1, 1}, "VALID", {1, 2, 2, 1}});
  cases.push_back({"filter_1x1", {2, 5, 5, 8}, {1, 1, 8, 16}});
  cases.push_back({"filter_1x1_s2", {2, 5, 6, 4}, {1, 1, 4, 3}, {1, 2, 2, 1}, "VALID"});
  cases.push_back({"explicit",
                   {1, 6, 5, 2},
                   {3, 3, 2, 2},
                   {1, 1, 1, 1},
                   "EXPLICIT",
                   {1, 1, 1, 1},
                   {0, 0, 1, 2, 0, 1, 0, 0}});
  // Channels >= 16: oneDNN's blocked-weight kernels for every pass.
  cases.push_back({"wide_channels", {2, 8, 8, 16}, {3, 3, 16, 32}, {1, 1, 1, 1}, "SAME"});
  // The Deep MNIST layers at batch 2.
  cases.push_back({"mnist_conv1", {2, 28, 28, 1}, {5, 5, 1, 32}});
  cases.push_back({"mnist_conv2", {2, 14, 14, 32}, {5, 5, 32, 64}});
  ConvCase nchw{"nchw_s2", {2, 3, 7, 6}, {3, 3, 3, 4}, {1, 1, 2, 2}, "SAME"};
  nchw.format = "NCHW";
  cases.push_back(nchw);
  ConvCase nchw_dil{"nchw_dilated", {1, 2, 9, 9}, {2, 3, 2, 3},
                    {1, 1, 1, 1},   "VALID",      {1, 1, 2, 2}};
  nchw_dil.format = "NCHW";
  cases.push_back(nchw_dil);
  return cases;
}

// float sums up to filter_h * filter_w * in_depth products of values in
// [-1, 1]; its rounding stays far below these bounds.
template <typename T>
double Tol() {
  return std::is_same_v<T, float> ? 2e-4 : 1e-11;
}

template <typename T>
void CheckForward(const ConvCase& c, uint32_t seed) {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  BOOST_TEST_CONTEXT("Conv2D<" << DataTypeString(dt) << "> " << c.name) {
    Tensor input = RandomTensor<T>(c.input, seed);
    Tensor filter = RandomTensor<T>(c.filter, seed + 1);
    KernelRunner r("Conv2D");
    WithConvAttrs(r, c).Input(input).Input(filter);
    auto out = r.Run();
    AF_REQUIRE_OK(out.status());
    AF_EXPECT_OK(CheckTensor((*out)[0], dt, RefConv(c).OutputShape(),
                             RefConvForward(c, input, filter), Tol<T>(), Tol<T>()));
  }
}

template <typename T>
void CheckBackpropInput(const ConvCase& c, uint32_t seed) {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  BOOST_TEST_CONTEXT("Conv2DBackpropInput<" << DataTypeString(dt) << "> " << c.name) {
    Tensor filter = RandomTensor<T>(c.filter, seed);
    Tensor grad = RandomTensor<T>(RefConv(c).OutputShape(), seed + 1);
    KernelRunner r("Conv2DBackpropInput");
    WithConvAttrs(r, c).Input(Int32Vector(c.input)).Input(filter).Input(grad);
    auto out = r.Run();
    AF_REQUIRE_OK(out.status());
    AF_EXPECT_OK(CheckTensor((*out)[0], dt, c.input, RefConvBackpropInput(c, filter, grad),
                             Tol<T>(), Tol<T>()));
  }
}

template <typename T>
void CheckBackpropFilter(const ConvCase& c, uint32_t seed) {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  BOOST_TEST_CONTEXT("Conv2DBackpropFilter<" << DataTypeString(dt) << "> " << c.name) {
    Tensor input = RandomTensor<T>(c.input, seed);
    Tensor grad = RandomTensor<T>(RefConv(c).OutputShape(), seed + 1);
    KernelRunner r("Conv2DBackpropFilter");
    WithConvAttrs(r, c).Input(input).Input(Int32Vector(c.filter)).Input(grad);
    auto out = r.Run();
    AF_REQUIRE_OK(out.status());
    // The filter gradient sums over batch and output positions too.
    const double n =
        static_cast<double>(RefConv(c).OutputShape().num_elements() / c.filter.dim_size(3));
    AF_EXPECT_OK(CheckTensor((*out)[0], dt, c.filter, RefConvBackpropFilter(c, input, grad),
                             Tol<T>(), Tol<T>() * std::max(1.0, n / 64)));
  }
}

BOOST_AUTO_TEST_SUITE(conv2d)

BOOST_AUTO_TEST_CASE(forward_float_and_double) {
  uint32_t seed = 100;
  for (const ConvCase& c : Cases()) {
    CheckForward<float>(c, seed += 2);
    CheckForward<double>(c, seed += 2);
  }
}

BOOST_AUTO_TEST_CASE(backprop_input_float_and_double) {
  uint32_t seed = 200;
  for (const ConvCase& c : Cases()) {
    CheckBackpropInput<float>(c, seed += 2);
    CheckBackpropInput<double>(c, seed += 2);
  }
}

BOOST_AUTO_TEST_CASE(backprop_filter_float_and_double) {
  uint32_t seed = 300;
  for (const ConvCase& c : Cases()) {
    CheckBackpropFilter<float>(c, seed += 2);
    CheckBackpropFilter<double>(c, seed += 2);
  }
}

// <conv(x, f), dy> = <x, backprop_input(f, dy)> = <f, backprop_filter(x, dy)>:
// the three kernels are adjoint to one another, independent of references.
BOOST_AUTO_TEST_CASE(passes_are_adjoint) {
  ConvCase c{"adjoint", {2, 10, 9, 5}, {3, 4, 5, 6}, {1, 2, 1, 1}, "SAME", {1, 1, 2, 1}};
  Tensor x = RandomTensor<double>(c.input, 1), f = RandomTensor<double>(c.filter, 2);
  Tensor dy = RandomTensor<double>(RefConv(c).OutputShape(), 3);
  KernelRunner fwd("Conv2D"), bin("Conv2DBackpropInput"), bfl("Conv2DBackpropFilter");
  auto y = WithConvAttrs(fwd, c).Input(x).Input(f).Run();
  auto dx = WithConvAttrs(bin, c).Input(Int32Vector(c.input)).Input(f).Input(dy).Run();
  auto df = WithConvAttrs(bfl, c).Input(x).Input(Int32Vector(c.filter)).Input(dy).Run();
  AF_REQUIRE_OK(y.status());
  AF_REQUIRE_OK(dx.status());
  AF_REQUIRE_OK(df.status());
  auto dot = [](const Tensor& a, const Tensor& b) {
    double s = 0;
    for (int64_t i = 0; i < a.NumElements(); ++i) s += ValueAsDouble(a, i) * ValueAsDouble(b, i);
    return s;
  };
  const double lhs = dot((*y)[0], dy);
  BOOST_CHECK_CLOSE_FRACTION(lhs, dot(x, (*dx)[0]), 1e-10);
  BOOST_CHECK_CLOSE_FRACTION(lhs, dot(f, (*df)[0]), 1e-10);
}

// Backprop input accepts input_sizes with only the spatial dims.
BOOST_AUTO_TEST_CASE(backprop_input_takes_spatial_sizes) {
  ConvCase c{"spatial_sizes", {2, 6, 5, 3}, {3, 3, 3, 2}, {1, 2, 2, 1}, "SAME"};
  Tensor f = RandomTensor<float>(c.filter, 4);
  Tensor dy = RandomTensor<float>(RefConv(c).OutputShape(), 5);
  KernelRunner r("Conv2DBackpropInput");
  auto out =
      WithConvAttrs(r, c).Input(Tensor::FromVector<int32_t>({6, 5})).Input(f).Input(dy).Run();
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(
      CheckTensor((*out)[0], DT_FLOAT, c.input, RefConvBackpropInput(c, f, dy), 2e-4, 2e-4));
}

// Empty batches, and empty reductions that must give zeros.
BOOST_AUTO_TEST_CASE(empty_tensors) {
  ConvCase c{"empty_batch", {0, 5, 5, 3}, {3, 3, 3, 2}};
  KernelRunner r("Conv2D");
  auto out = WithConvAttrs(r, c)
                 .Input(RandomTensor<float>(c.input, 1))
                 .Input(RandomTensor<float>(c.filter, 2))
                 .Run();
  AF_REQUIRE_OK(out.status());
  BOOST_TEST((*out)[0].shape() == TensorShape({0, 5, 5, 2}));

  ConvCase z{"zero_depth", {1, 4, 4, 0}, {3, 3, 0, 2}};
  KernelRunner rz("Conv2D");
  auto zeros = WithConvAttrs(rz, z)
                   .Input(RandomTensor<float>(z.input, 1))
                   .Input(RandomTensor<float>(z.filter, 2))
                   .Run();
  AF_REQUIRE_OK(zeros.status());
  AF_EXPECT_OK(CheckTensor((*zeros)[0], DT_FLOAT, {1, 4, 4, 2}, std::vector<double>(32, 0.0)));

  KernelRunner rf("Conv2DBackpropFilter");
  auto df = WithConvAttrs(rf, c)
                .Input(RandomTensor<float>(c.input, 1))
                .Input(Int32Vector(c.filter))
                .Input(Tensor(DT_FLOAT, {0, 5, 5, 2}))
                .Run();
  AF_REQUIRE_OK(df.status());
  AF_EXPECT_OK(CheckTensor((*df)[0], DT_FLOAT, c.filter, std::vector<double>(54, 0.0)));
}

// One kernel, several shapes, repeated: the per-shape primitive cache must
// hand each call the plan for its own shape.
BOOST_AUTO_TEST_CASE(one_kernel_many_shapes) {
  ConvCase c{"cache", {1, 6, 6, 4}, {3, 3, 4, 8}};
  KernelRunner r("Conv2D");
  WithConvAttrs(r, c)
      .Input(RandomTensor<float>(c.input, 1))
      .Input(RandomTensor<float>(c.filter, 2));
  AF_REQUIRE_OK(r.Build());
  for (int round = 0; round < 2; ++round)
    for (int64_t side : {6, 9, 4}) {
      ConvCase s = c;
      s.input = TensorShape{2, side, side + 1, 4};
      Tensor x = RandomTensor<float>(s.input, 10 + side), f = RandomTensor<float>(s.filter, 20);
      auto out = r.Run({x, f});
      AF_REQUIRE_OK(out.status());
      AF_EXPECT_OK(CheckTensor((*out)[0], DT_FLOAT, RefConv(s).OutputShape(),
                               RefConvForward(s, x, f), 2e-4, 2e-4));
    }
}

// Executors call one kernel from several threads at once.
BOOST_AUTO_TEST_CASE(concurrent_calls_of_one_kernel) {
  ConvCase c{"threads", {2, 12, 12, 16}, {3, 3, 16, 16}};
  KernelRunner r("Conv2DBackpropInput");
  WithConvAttrs(r, c);
  r.Input(Int32Vector(c.input))
      .Input(RandomTensor<float>(c.filter, 1))
      .Input(RandomTensor<float>(RefConv(c).OutputShape(), 2));
  AF_REQUIRE_OK(r.Build());
  OpKernel* kernel = r.kernel();
  TestCpuDevice device;
  constexpr int kThreads = 4;
  std::vector<Status> status(kThreads);
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      Tensor f = RandomTensor<float>(c.filter, 100 + t);
      Tensor dy = RandomTensor<float>(RefConv(c).OutputShape(), 200 + t);
      const std::vector<double> want = RefConvBackpropInput(c, f, dy);
      for (int rep = 0; rep < 5; ++rep) {
        std::vector<TensorValue> in(3), out(1);
        in[0].tensor = Int32Vector(c.input);
        in[1].tensor = f;
        in[2].tensor = dy;
        for (auto& v : in) v.has_value = true;
        OpKernelContext::Params params;
        params.device = &device;
        params.op_kernel = kernel;
        params.inputs = in.data();
        params.outputs = out.data();
        OpKernelContext ctx(&params);
        kernel->Compute(&ctx);
        status[t].Update(ctx.status());
        if (!ctx.status().ok()) return;
        if (!CheckTensor(out[0].tensor, DT_FLOAT, c.input, want, 2e-4, 2e-4).ok()) ++mismatches[t];
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    AF_EXPECT_OK(status[t]);
    BOOST_TEST(mismatches[t] == 0);
  }
}

BOOST_AUTO_TEST_CASE(errors_name_the_node) {
  {
    KernelRunner r("Conv2D", "conv_depth");
    r.Attr("strides", std::vector<int64_t>{1, 1, 1, 1}).Attr("padding", "SAME");
    auto out = r.Input(RandomTensor<float>({1, 4, 4, 3}, 1))
                   .Input(RandomTensor<float>({3, 3, 2, 4}, 2))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_TEST(out.status().code() == Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(
        Contains(out.status().message(), "conv_depth") &&
            Contains(out.status().message(), "input and filter must have the same depth: 3 vs 2"),
        out.status().ToString());
  }
  {
    KernelRunner r("Conv2D", "conv_strides");
    r.Attr("strides", std::vector<int64_t>{1, 1, 1}).Attr("padding", "SAME");
    auto out = r.Input(RandomTensor<float>({1, 4, 4, 3}, 1))
                   .Input(RandomTensor<float>({3, 3, 3, 4}, 2))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_TEST(out.status().code() == Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(
        Contains(out.status().message(), "conv_strides") &&
            Contains(out.status().message(), "strides field must specify 4 dimensions"),
        out.status().ToString());
  }
  {
    KernelRunner r("Conv2D", "conv_batch_stride");
    r.Attr("strides", std::vector<int64_t>{2, 1, 1, 1}).Attr("padding", "VALID");
    auto out = r.Input(RandomTensor<float>({1, 4, 4, 3}, 1))
                   .Input(RandomTensor<float>({3, 3, 3, 4}, 2))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "strides in the batch and depth"),
                        out.status().ToString());
  }
  {
    KernelRunner r("Conv2D", "conv_too_small");
    r.Attr("strides", std::vector<int64_t>{1, 1, 1, 1}).Attr("padding", "VALID");
    auto out = r.Input(RandomTensor<float>({1, 1, 4, 3}, 1))
                   .Input(RandomTensor<float>({3, 3, 3, 4}, 2))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "conv_too_small") &&
                            Contains(out.status().message(), "output size would be negative"),
                        out.status().ToString());
  }
  {
    KernelRunner r("Conv2D", "conv_explicit");
    r.Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
        .Attr("padding", "EXPLICIT")
        .Attr("explicit_paddings", std::vector<int64_t>{0, 0, 1, 1});
    auto out = r.Input(RandomTensor<float>({1, 4, 4, 3}, 1))
                   .Input(RandomTensor<float>({3, 3, 3, 4}, 2))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(
        Contains(out.status().message(), "explicit_paddings attribute must contain 8"),
        out.status().ToString());
  }
  {
    KernelRunner r("Conv2D", "conv_rank");
    r.Attr("strides", std::vector<int64_t>{1, 1, 1, 1}).Attr("padding", "SAME");
    auto out = r.Input(RandomTensor<float>({4, 4, 3}, 1))
                   .Input(RandomTensor<float>({3, 3, 3, 4}, 2))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "input must be 4-dimensional"),
                        out.status().ToString());
  }
  {
    ConvCase c{"bad_grad", {1, 6, 6, 2}, {3, 3, 2, 4}, {1, 2, 2, 1}, "SAME"};
    KernelRunner r("Conv2DBackpropInput", "grad_input");
    auto out = WithConvAttrs(r, c)
                   .Input(Int32Vector(c.input))
                   .Input(RandomTensor<float>(c.filter, 1))
                   .Input(RandomTensor<float>({1, 4, 3, 4}, 2))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_TEST(out.status().code() == Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "grad_input") &&
                            Contains(out.status().message(),
                                     "Conv2DBackpropInput: out_backprop has shape [1,4,3,4]") &&
                            Contains(out.status().message(), "produces [1,3,3,4]"),
                        out.status().ToString());
  }
  {
    ConvCase c{"bad_sizes", {1, 6, 6, 2}, {3, 3, 2, 4}};
    KernelRunner r("Conv2DBackpropFilter", "grad_filter");
    auto out = WithConvAttrs(r, c)
                   .Input(RandomTensor<float>(c.input, 1))
                   .Input(Tensor::FromVector<int32_t>({3, 3, 2}))
                   .Input(RandomTensor<float>({1, 6, 6, 4}, 2))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "grad_filter") &&
                            Contains(out.status().message(),
                                     "Conv2DBackpropFilter: filter_sizes must have 4 elements"),
                        out.status().ToString());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
