// The CUDA kernels of MatMul, BatchMatMul(V2), Conv2D and its gradients,
// the pooling ops and Softmax / LogSoftmax against the CPU kernels on
// random data. half and bfloat16 have no CPU kernels: those cases run the
// CPU kernel in float on the same (rounded) values and compare with a
// tolerance for the narrow output; they need a real CUDA GPU (an emulated
// GPU runs the CPU kernels, which lack these types).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/gpu/gpu_device_context.h"
#include "core/kernel_registry.h"
#include "core/node_def_util.h"
#include "core/op_kernel.h"
#include "core/op_registry.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/types.h"
#include "tests/gpu/gpu_kernel_runner.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/kernels/op_test_util.h"

namespace af::test {
namespace {

// ---- convolution and pooling cases ---------------------------------------

struct ConvCase {
  std::string name;
  Ints input;   // in data_format
  Ints filter;  // HWIO
  Ints strides = {1, 1, 1, 1};
  std::string padding = "SAME";
  Ints dilations = {1, 1, 1, 1};
  std::string format = "NHWC";
  Ints explicit_paddings = {};
  // float tolerance (the sums are long: up to batch * 28 * 28 terms for
  // the filter gradient).
  double rtol = 1e-4, atol = 1e-3;
};

template <typename Runner>
void ConvAttrs(Runner& r, const ConvCase& c) {
  r.Attr("strides", c.strides)
      .Attr("padding", c.padding)
      .Attr("dilations", c.dilations)
      .Attr("data_format", c.format);
  if (!c.explicit_paddings.empty()) r.Attr("explicit_paddings", c.explicit_paddings);
}

// The forward output's shape, from the CPU kernel.
TensorShape ConvOutputShape(const ConvCase& c, const Tensor& x, const Tensor& w) {
  KernelRunner r("Conv2D");
  ConvAttrs(r, c);
  auto out = r.Input(x).Input(w).Run();
  BOOST_REQUIRE_MESSAGE(out.ok(), out.status().ToString());
  return out.value()[0].shape();
}

std::vector<ConvCase> ConvCases() {
  std::vector<ConvCase> cases;
  // The demo CNN's layers at batch 8 (5x5 SAME stride 1: symmetric 2/2).
  cases.push_back({"demo_conv1", {8, 28, 28, 1}, {5, 5, 1, 32}});
  cases.push_back({"demo_conv2", {8, 14, 14, 32}, {5, 5, 32, 64}});
  cases.push_back({"valid_s1", {2, 11, 13, 3}, {3, 3, 3, 4}, {1, 1, 1, 1}, "VALID"});
  cases.push_back({"valid_s2", {2, 15, 16, 3}, {3, 3, 3, 5}, {1, 2, 2, 1}, "VALID"});
  // SAME stride 2 on an even input: padding 1 before, 2 after.
  cases.push_back({"same_s2_asymmetric", {2, 28, 28, 3}, {5, 5, 3, 8}, {1, 2, 2, 1}, "SAME"});
  // Even filter: padding 0 before, 1 after.
  cases.push_back({"same_even_filter", {2, 9, 10, 3}, {2, 2, 3, 4}});
  cases.push_back({"same_rect_stride", {2, 8, 11, 2}, {2, 4, 2, 3}, {1, 3, 2, 1}, "SAME"});
  cases.push_back(
      {"same_dilation2", {2, 13, 12, 3}, {3, 3, 3, 4}, {1, 1, 1, 1}, "SAME", {1, 2, 2, 1}});
  cases.push_back(
      {"valid_dilation2", {1, 11, 9, 2}, {3, 2, 2, 4}, {1, 1, 1, 1}, "VALID", {1, 2, 2, 1}});
  cases.push_back({"explicit", {2, 6, 5, 2}, {3, 3, 2, 3}, {1, 1, 1, 1}, "EXPLICIT", {1, 1, 1, 1},
                   "NHWC", {0, 0, 1, 2, 2, 0, 0, 0}});
  cases.push_back({"filter_1x1", {2, 5, 5, 8}, {1, 1, 8, 16}});
  ConvCase nchw{"nchw_s2", {2, 3, 12, 11}, {3, 3, 3, 4}, {1, 1, 2, 2}, "SAME"};
  nchw.format = "NCHW";
  cases.push_back(nchw);
  ConvCase nchw_dil{"nchw_dilated", {1, 2, 9, 9}, {2, 3, 2, 3}, {1, 1, 1, 1}, "VALID",
                    {1, 1, 2, 2}};
  nchw_dil.format = "NCHW";
  cases.push_back(nchw_dil);
  return cases;
}

struct PoolCase {
  std::string name;
  Ints input;
  Ints ksize;
  Ints strides;
  std::string padding;
  std::string format = "NHWC";
};

std::vector<PoolCase> PoolCases() {
  return {
      {"2x2_s2_valid", {4, 28, 28, 32}, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"},
      {"3x3_s2_same", {2, 28, 28, 8}, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"},
      {"3x3_s2_same_odd", {2, 13, 11, 5}, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"},
      {"2x2_s2_same_odd", {2, 7, 5, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"},
      {"3x2_s21_valid", {1, 9, 6, 5}, {1, 3, 2, 1}, {1, 2, 1, 1}, "VALID"},
      {"3x3_s1_same", {2, 5, 5, 2}, {1, 3, 3, 1}, {1, 1, 1, 1}, "SAME"},
      {"nchw_3x3_s2_same", {2, 3, 8, 7}, {1, 1, 3, 3}, {1, 1, 2, 2}, "SAME", "NCHW"},
  };
}

template <typename Runner>
void PoolAttrs(Runner& r, const PoolCase& p) {
  r.Attr("ksize", p.ksize)
      .Attr("strides", p.strides)
      .Attr("padding", p.padding)
      .Attr("data_format", p.format);
}

Tensor CpuMaxPool(const PoolCase& p, const Tensor& x) {
  KernelRunner r("MaxPool");
  PoolAttrs(r, p);
  auto out = r.Input(x).Run();
  BOOST_REQUIRE_MESSAGE(out.ok(), out.status().ToString());
  return out.value()[0];
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gpu_nn_kernels)

// ---- MatMul ----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(matmul_transpose_combinations) {
  AF_REQUIRE_GPU();
  const int64_t m = 37, k = 53, n = 29;
  uint32_t seed = 1;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      BOOST_TEST_CONTEXT("transpose_a=" << ta << " transpose_b=" << tb) {
        GpuKernelRunner r("MatMul");
        r.Attr("transpose_a", ta).Attr("transpose_b", tb);
        r.Input(RandomTensor<float>(ta ? TensorShape{k, m} : TensorShape{m, k}, seed++));
        r.Input(RandomTensor<float>(tb ? TensorShape{n, k} : TensorShape{k, n}, seed++));
        r.ExpectSameAsCpu(1e-4, 1e-5);
      }
    }
}

BOOST_AUTO_TEST_CASE(matmul_large) {
  AF_REQUIRE_GPU();
  GpuKernelRunner r("MatMul");
  r.Input(RandomTensor<float>(TensorShape{512, 1024}, 11));
  r.Input(RandomTensor<float>(TensorShape{1024, 256}, 12));
  r.ExpectSameAsCpu(1e-4, 1e-4);
}

BOOST_AUTO_TEST_CASE(matmul_large_transposed) {
  AF_REQUIRE_GPU();
  GpuKernelRunner r("MatMul");
  r.Attr("transpose_a", true).Attr("transpose_b", true);
  r.Input(RandomTensor<float>(TensorShape{1024, 512}, 13));
  r.Input(RandomTensor<float>(TensorShape{256, 1024}, 14));
  r.ExpectSameAsCpu(1e-4, 1e-4);
}

BOOST_AUTO_TEST_CASE(matmul_double) {
  AF_REQUIRE_GPU();
  GpuKernelRunner r("MatMul");
  r.Attr("transpose_b", true);
  r.Input(RandomTensor<double>(TensorShape{21, 34}, 15));
  r.Input(RandomTensor<double>(TensorShape{17, 34}, 16));
  r.ExpectSameAsCpu(1e-12, 1e-12);
}

BOOST_AUTO_TEST_CASE(matmul_bfloat16) {
  AF_REQUIRE_GPU();
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      BOOST_TEST_CONTEXT("transpose_a=" << ta << " transpose_b=" << tb) {
        const int64_t m = 37, k = 53, n = 29;
        ExpectNarrowMatchesCpu(
            "MatMul", [&](auto& r) { r.Attr("transpose_a", ta).Attr("transpose_b", tb); },
            {RandomNarrow(DT_BFLOAT16, ta ? TensorShape{k, m} : TensorShape{m, k}, 21),
             RandomNarrow(DT_BFLOAT16, tb ? TensorShape{n, k} : TensorShape{k, n}, 22)},
            1e-2, 1e-2);
      }
    }
}

BOOST_AUTO_TEST_CASE(matmul_half) {
  AF_REQUIRE_GPU();
  ExpectNarrowMatchesCpu(
      "MatMul", [](auto& r) { r.Attr("transpose_b", true); },
      {RandomNarrow(DT_HALF, TensorShape{64, 96}, 23),
       RandomNarrow(DT_HALF, TensorShape{48, 96}, 24)},
      2e-3, 2e-3);
}

BOOST_AUTO_TEST_CASE(matmul_empty) {
  AF_REQUIRE_GPU();
  {
    BOOST_TEST_CONTEXT("k == 0: zeros") {
      GpuKernelRunner r("MatMul");
      r.Input(RandomTensor<float>(TensorShape{3, 0}, 1));
      r.Input(RandomTensor<float>(TensorShape{0, 4}, 2));
      r.ExpectSameAsCpu(0, 0);
      auto out = r.RunGpu();
      BOOST_REQUIRE_MESSAGE(out.ok(), out.status().ToString());
      const Tensor& z = out.value()[0];
      BOOST_REQUIRE(z.shape() == (TensorShape{3, 4}));
      for (int64_t i = 0; i < z.NumElements(); ++i) BOOST_CHECK_EQUAL(z.data<float>()[i], 0.0f);
    }
  }
  {
    BOOST_TEST_CONTEXT("m == 0") {
      GpuKernelRunner r("MatMul");
      r.Input(RandomTensor<float>(TensorShape{0, 5}, 3));
      r.Input(RandomTensor<float>(TensorShape{5, 4}, 4));
      r.ExpectSameAsCpu(0, 0);
    }
  }
}

// ---- BatchMatMul -----------------------------------------------------------

BOOST_AUTO_TEST_CASE(batch_matmul_v2_broadcasting) {
  AF_REQUIRE_GPU();
  struct Case {
    const char* name;
    Ints x, y;
    bool adj_x, adj_y;
  };
  const std::vector<Case> cases = {
      {"same_batches", {3, 5, 7}, {3, 7, 4}, false, false},
      {"same_batches_adjoints", {2, 3, 7, 5}, {2, 3, 4, 7}, true, true},
      {"y_2d_stacked", {4, 5, 7}, {7, 6}, false, false},
      {"y_2d_adj_x", {4, 7, 5}, {7, 6}, true, false},
      {"y_batch_of_one_adj_y", {2, 3, 5, 7}, {1, 6, 7}, false, true},
      {"x_2d", {5, 7}, {4, 7, 6}, false, false},
      {"x_batch_of_one_adj_x", {1, 7, 5}, {3, 7, 6}, true, false},
      {"cross_broadcast", {2, 1, 5, 7}, {3, 7, 4}, false, false},
      {"cross_broadcast_adjoints", {1, 3, 7, 5}, {2, 1, 4, 7}, true, true},
      {"rank_5", {2, 1, 2, 5, 3}, {3, 1, 3, 4}, false, false},
  };
  uint32_t seed = 100;
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      GpuKernelRunner r("BatchMatMulV2");
      r.Attr("adj_x", c.adj_x).Attr("adj_y", c.adj_y);
      r.Input(RandomTensor<float>(Shape(c.x), seed++));
      r.Input(RandomTensor<float>(Shape(c.y), seed++));
      r.ExpectSameAsCpu(1e-4, 1e-5);
    }
  }
}

BOOST_AUTO_TEST_CASE(batch_matmul_v1) {
  AF_REQUIRE_GPU();
  GpuKernelRunner r("BatchMatMul");
  r.Attr("adj_y", true);
  r.Input(RandomTensor<float>(TensorShape{2, 3, 9, 17}, 31));
  r.Input(RandomTensor<float>(TensorShape{2, 3, 11, 17}, 32));
  r.ExpectSameAsCpu(1e-4, 1e-5);
}

BOOST_AUTO_TEST_CASE(batch_matmul_v2_double_and_bfloat16) {
  AF_REQUIRE_GPU();
  {
    GpuKernelRunner r("BatchMatMulV2");
    r.Input(RandomTensor<double>(TensorShape{2, 1, 5, 7}, 33));
    r.Input(RandomTensor<double>(TensorShape{3, 7, 4}, 34));
    r.ExpectSameAsCpu(1e-12, 1e-12);
  }
  ExpectNarrowMatchesCpu(
      "BatchMatMulV2", [](auto& r) { r.Attr("adj_x", true); },
      {RandomNarrow(DT_BFLOAT16, TensorShape{4, 33, 9}, 35),
       RandomNarrow(DT_BFLOAT16, TensorShape{4, 33, 10}, 36)},
      1e-2, 1e-2);
}

BOOST_AUTO_TEST_CASE(batch_matmul_empty) {
  AF_REQUIRE_GPU();
  GpuKernelRunner r("BatchMatMulV2");
  r.Input(RandomTensor<float>(TensorShape{2, 3, 0}, 1));
  r.Input(RandomTensor<float>(TensorShape{2, 0, 4}, 2));
  r.ExpectSameAsCpu(0, 0);
}

// ---- Conv2D and its gradients ----------------------------------------------

BOOST_AUTO_TEST_CASE(conv2d_forward) {
  AF_REQUIRE_GPU();
  uint32_t seed = 200;
  for (const ConvCase& c : ConvCases()) {
    BOOST_TEST_CONTEXT("Conv2D " << c.name) {
      GpuKernelRunner r("Conv2D");
      ConvAttrs(r, c);
      r.Input(RandomTensor<float>(Shape(c.input), seed++));
      r.Input(RandomTensor<float>(Shape(c.filter), seed++));
      r.ExpectSameAsCpu(c.rtol, c.atol);
    }
  }
}

BOOST_AUTO_TEST_CASE(conv2d_backprop_input) {
  AF_REQUIRE_GPU();
  uint32_t seed = 300;
  for (const ConvCase& c : ConvCases()) {
    BOOST_TEST_CONTEXT("Conv2DBackpropInput " << c.name) {
      const Tensor x = RandomTensor<float>(Shape(c.input), seed++);
      const Tensor w = RandomTensor<float>(Shape(c.filter), seed++);
      const TensorShape y_shape = ConvOutputShape(c, x, w);
      GpuKernelRunner r("Conv2DBackpropInput");
      ConvAttrs(r, c);
      r.Input(Int32Vector(c.input));
      r.Input(w);
      r.Input(RandomTensor<float>(y_shape, seed++));
      r.ExpectSameAsCpu(c.rtol, c.atol);
    }
  }
}

BOOST_AUTO_TEST_CASE(conv2d_backprop_filter) {
  AF_REQUIRE_GPU();
  uint32_t seed = 400;
  for (const ConvCase& c : ConvCases()) {
    BOOST_TEST_CONTEXT("Conv2DBackpropFilter " << c.name) {
      const Tensor x = RandomTensor<float>(Shape(c.input), seed++);
      const Tensor w = RandomTensor<float>(Shape(c.filter), seed++);
      const TensorShape y_shape = ConvOutputShape(c, x, w);
      GpuKernelRunner r("Conv2DBackpropFilter");
      ConvAttrs(r, c);
      r.Input(x);
      r.Input(Int32Vector(c.filter));
      r.Input(RandomTensor<float>(y_shape, seed++));
      r.ExpectSameAsCpu(c.rtol, 2 * c.atol);
    }
  }
}

BOOST_AUTO_TEST_CASE(conv2d_repeated_calls_reuse_the_algorithm) {
  AF_REQUIRE_GPU();
  // The second run of a node finds its algorithm in the device's cache.
  const ConvCase c = ConvCases()[1];
  for (int run = 0; run < 2; ++run) {
    GpuKernelRunner r("Conv2D");
    ConvAttrs(r, c);
    r.Input(RandomTensor<float>(Shape(c.input), 500 + run));
    r.Input(RandomTensor<float>(Shape(c.filter), 510 + run));
    r.ExpectSameAsCpu(c.rtol, c.atol);
  }
}

BOOST_AUTO_TEST_CASE(conv2d_half) {
  AF_REQUIRE_GPU();
  ConvCase c{"half_same_s2", {2, 10, 11, 8}, {3, 3, 8, 16}, {1, 2, 2, 1}, "SAME"};
  const Tensor x = RandomNarrow(DT_HALF, Shape(c.input), 600);
  const Tensor w = RandomNarrow(DT_HALF, Shape(c.filter), 601);
  auto attrs = [&](auto& r) { ConvAttrs(r, c); };
  ExpectNarrowMatchesCpu("Conv2D", attrs, {x, w}, 1e-2, 1e-2);
  const TensorShape y_shape = ConvOutputShape(c, Widen(x), Widen(w));
  const Tensor dy = RandomNarrow(DT_HALF, y_shape, 602);
  ExpectNarrowMatchesCpu("Conv2DBackpropInput", attrs, {Int32Vector(c.input), w, dy}, 1e-2, 1e-2);
  ExpectNarrowMatchesCpu("Conv2DBackpropFilter", attrs, {x, Int32Vector(c.filter), dy}, 1e-2,
                         2e-2);
}

BOOST_AUTO_TEST_CASE(conv2d_empty_batch) {
  AF_REQUIRE_GPU();
  GpuKernelRunner r("Conv2D");
  r.Attr("strides", Ints{1, 1, 1, 1}).Attr("padding", std::string("SAME"));
  r.Input(RandomTensor<float>(TensorShape{0, 5, 5, 2}, 1));
  r.Input(RandomTensor<float>(TensorShape{3, 3, 2, 4}, 2));
  r.ExpectSameAsCpu(0, 0);
}

// ---- pooling ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(max_pool) {
  AF_REQUIRE_GPU();
  uint32_t seed = 700;
  for (const PoolCase& p : PoolCases()) {
    BOOST_TEST_CONTEXT("MaxPool " << p.name) {
      GpuKernelRunner r("MaxPool");
      PoolAttrs(r, p);
      r.Input(RandomTensor<float>(Shape(p.input), seed++, -100, 100));
      r.ExpectSameAsCpu(0, 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(max_pool_grad) {
  AF_REQUIRE_GPU();
  uint32_t seed = 800;
  for (const PoolCase& p : PoolCases()) {
    BOOST_TEST_CONTEXT("MaxPoolGrad " << p.name) {
      const Tensor x = RandomTensor<float>(Shape(p.input), seed++, -100, 100);
      const Tensor y = CpuMaxPool(p, x);
      GpuKernelRunner r("MaxPoolGrad");
      PoolAttrs(r, p);
      r.Input(x).Input(y).Input(RandomTensor<float>(y.shape(), seed++));
      r.ExpectSameAsCpu(1e-6, 1e-6);
    }
  }
}

BOOST_AUTO_TEST_CASE(avg_pool) {
  AF_REQUIRE_GPU();
  uint32_t seed = 900;
  for (const PoolCase& p : PoolCases()) {
    BOOST_TEST_CONTEXT("AvgPool " << p.name) {
      GpuKernelRunner r("AvgPool");
      PoolAttrs(r, p);
      r.Input(RandomTensor<float>(Shape(p.input), seed++));
      r.ExpectSameAsCpu(1e-6, 1e-6);
    }
  }
}

BOOST_AUTO_TEST_CASE(avg_pool_grad) {
  AF_REQUIRE_GPU();
  uint32_t seed = 1000;
  for (const PoolCase& p : PoolCases()) {
    BOOST_TEST_CONTEXT("AvgPoolGrad " << p.name) {
      const Tensor y = [&] {
        KernelRunner cpu("AvgPool");
        PoolAttrs(cpu, p);
        auto out = cpu.Input(RandomTensor<float>(Shape(p.input), seed)).Run();
        BOOST_REQUIRE_MESSAGE(out.ok(), out.status().ToString());
        return out.value()[0];
      }();
      GpuKernelRunner r("AvgPoolGrad");
      PoolAttrs(r, p);
      r.Input(Int32Vector(p.input)).Input(RandomTensor<float>(y.shape(), seed++));
      r.ExpectSameAsCpu(1e-6, 1e-6);
    }
  }
}

BOOST_AUTO_TEST_CASE(pooling_double_and_narrow) {
  AF_REQUIRE_GPU();
  const PoolCase p = PoolCases()[1];  // 3x3 stride 2 SAME
  {
    GpuKernelRunner r("MaxPool");
    PoolAttrs(r, p);
    r.Input(RandomTensor<double>(Shape(p.input), 1100));
    r.ExpectSameAsCpu(0, 0);
  }
  {
    GpuKernelRunner r("AvgPool");
    PoolAttrs(r, p);
    r.Input(RandomTensor<double>(Shape(p.input), 1101));
    r.ExpectSameAsCpu(1e-12, 1e-12);
  }
  auto attrs = [&](auto& r) { PoolAttrs(r, p); };
  for (DataType dt : {DT_HALF, DT_BFLOAT16}) {
    BOOST_TEST_CONTEXT(DataTypeString(dt)) {
      const Tensor x = RandomNarrow(dt, Shape(p.input), 1102);
      ExpectNarrowMatchesCpu("MaxPool", attrs, {x}, 0, 0);
      const double tol = dt == DT_HALF ? 2e-3 : 1e-2;
      ExpectNarrowMatchesCpu("AvgPool", attrs, {x}, tol, tol);
      const Tensor y = Narrow(CpuMaxPool(p, Widen(x)), dt);
      const Tensor g = RandomNarrow(dt, y.shape(), 1103);
      ExpectNarrowMatchesCpu("MaxPoolGrad", attrs, {x, y, g}, tol, tol);
      ExpectNarrowMatchesCpu("AvgPoolGrad", attrs, {Int32Vector(p.input), g}, tol, tol);
    }
  }
}

// ---- softmax ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(softmax_and_log_softmax) {
  AF_REQUIRE_GPU();
  const std::vector<Ints> shapes = {{64, 10}, {3, 5, 1000}, {7}, {2, 1}};
  uint32_t seed = 1200;
  for (const char* op : {"Softmax", "LogSoftmax"})
    for (const Ints& s : shapes) {
      BOOST_TEST_CONTEXT(op << " " << Shape(s).DebugString()) {
        GpuKernelRunner r(op);
        r.Input(RandomTensor<float>(Shape(s), seed++, -10, 10));
        r.ExpectSameAsCpu(1e-5, 1e-6);
      }
      BOOST_TEST_CONTEXT(op << " double " << Shape(s).DebugString()) {
        GpuKernelRunner r(op);
        r.Input(RandomTensor<double>(Shape(s), seed++, -10, 10));
        r.ExpectSameAsCpu(1e-10, 1e-13);
      }
    }
}

BOOST_AUTO_TEST_CASE(softmax_half) {
  AF_REQUIRE_GPU();
  auto none = [](auto&) {};
  ExpectNarrowMatchesCpu("Softmax", none, {RandomNarrow(DT_HALF, TensorShape{16, 100}, 1300, -5, 5)},
                         1e-2, 1e-4);
  ExpectNarrowMatchesCpu("LogSoftmax", none,
                         {RandomNarrow(DT_HALF, TensorShape{16, 100}, 1301, -5, 5)}, 1e-2, 1e-2);
}

BOOST_AUTO_TEST_CASE(softmax_empty) {
  AF_REQUIRE_GPU();
  GpuKernelRunner r("Softmax");
  r.Input(RandomTensor<float>(TensorShape{0, 10}, 1));
  r.ExpectSameAsCpu(0, 0);
}

// ---- errors ----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(matmul_inner_dims_mismatch) {
  AF_REQUIRE_GPU();
  GpuKernelRunner r("MatMul");
  r.Input(RandomTensor<float>(TensorShape{3, 4}, 1));
  r.Input(RandomTensor<float>(TensorShape{5, 6}, 2));
  ExpectGpuInvalidArgument(r, "MatMul", "Matrix size-incompatible");
}

BOOST_AUTO_TEST_CASE(matmul_not_a_matrix) {
  AF_REQUIRE_GPU();
  GpuKernelRunner r("MatMul");
  r.Input(RandomTensor<float>(TensorShape{2, 3, 4}, 1));
  r.Input(RandomTensor<float>(TensorShape{4, 6}, 2));
  ExpectGpuInvalidArgument(r, "MatMul", "is not a matrix");
}

BOOST_AUTO_TEST_CASE(batch_matmul_errors) {
  AF_REQUIRE_GPU();
  {
    GpuKernelRunner r("BatchMatMulV2");
    r.Input(RandomTensor<float>(TensorShape{2, 3, 4}, 1));
    r.Input(RandomTensor<float>(TensorShape{3, 4, 5}, 2));
    ExpectGpuInvalidArgument(r, "BatchMatMulV2", "compatible batch dimensions");
  }
  {
    GpuKernelRunner r("BatchMatMulV2");
    r.Input(RandomTensor<float>(TensorShape{2, 3, 4}, 1));
    r.Input(RandomTensor<float>(TensorShape{2, 5, 6}, 2));
    ExpectGpuInvalidArgument(r, "BatchMatMulV2", "Matrix size-incompatible");
  }
}

BOOST_AUTO_TEST_CASE(conv_errors) {
  AF_REQUIRE_GPU();
  {
    GpuKernelRunner r("Conv2D");
    r.Attr("strides", Ints{1, 1, 1, 1}).Attr("padding", std::string("SAME"));
    r.Input(RandomTensor<float>(TensorShape{1, 5, 5, 3}, 1));
    r.Input(RandomTensor<float>(TensorShape{3, 3, 2, 4}, 2));
    ExpectGpuInvalidArgument(r, "Conv2D", "same depth");
  }
  {
    GpuKernelRunner r("Conv2DBackpropInput");
    r.Attr("strides", Ints{1, 1, 1, 1}).Attr("padding", std::string("SAME"));
    r.Input(Int32Vector({1, 5, 5, 2}));
    r.Input(RandomTensor<float>(TensorShape{3, 3, 2, 4}, 2));
    r.Input(RandomTensor<float>(TensorShape{1, 4, 4, 4}, 3));
    ExpectGpuInvalidArgument(r, "Conv2DBackpropInput", "out_backprop");
  }
  {
    GpuKernelRunner r("Conv2DBackpropFilter");
    r.Attr("strides", Ints{1, 1, 1, 1}).Attr("padding", std::string("VALID"));
    r.Input(RandomTensor<float>(TensorShape{1, 5, 5, 2}, 1));
    r.Input(Int32Vector({3, 3, 2, 4}));
    r.Input(RandomTensor<float>(TensorShape{1, 5, 5, 4}, 3));
    ExpectGpuInvalidArgument(r, "Conv2DBackpropFilter", "out_backprop");
  }
}

BOOST_AUTO_TEST_CASE(pool_errors) {
  AF_REQUIRE_GPU();
  const PoolCase p = PoolCases()[0];
  GpuKernelRunner r("MaxPoolGrad");
  PoolAttrs(r, p);
  r.Input(RandomTensor<float>(TensorShape{1, 4, 4, 2}, 1));
  r.Input(RandomTensor<float>(TensorShape{1, 2, 2, 2}, 2));
  r.Input(RandomTensor<float>(TensorShape{1, 3, 2, 2}, 3));
  ExpectGpuInvalidArgument(r, "MaxPoolGrad", "grad has shape");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace af::test
