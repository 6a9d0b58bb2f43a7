// The CUDA bias, reduction and cross-entropy kernels (bias_ops.cu,
// reduction_ops.cu, xent_ops.cu) against the CPU kernels: many axis sets,
// split reductions past a million elements, empty reductions, labels out
// of range.
#include <boost/test/unit_test.hpp>

#include "tests/gpu/gpu_math_test_util.h"

namespace af::test {
namespace {

BOOST_AUTO_TEST_SUITE(gpu_math_kernels)

// ---- bias --------------------------------------------------------------

BOOST_AUTO_TEST_CASE(bias_add) {
  AF_REQUIRE_GPU();
  struct Case {
    Ints value;
    std::string format;
  };
  const Case cases[] = {{{2, 3, 4, 5}, "NHWC"}, {{7, 12}, "NHWC"},      {{3, 5}, "NHWC"},
                        {{2, 5, 3, 4}, "NCHW"}, {{2, 4, 3, 3}, "NCHW"}, {{3, 6}, "NCHW"},
                        {{4096, 256}, "NHWC"},  {{16, 64, 32, 32}, "NCHW"}};
  SeedSequence seed{80};
  for (DataType dt : {DT_FLOAT, DT_DOUBLE}) {
    for (const Case& c : cases) {
      const int64_t channels = c.format == "NHWC" ? c.value.back() : c.value[1];
      BOOST_TEST_CONTEXT(Shape(c.value).DebugString() << " " << c.format) {
        GpuKernelRunner r("BiasAdd");
        r.Attr("data_format", c.format)
            .Input(RandomOf(dt, c.value, seed()))
            .Input(RandomOf(dt, {channels}, seed()));
        r.ExpectSameAsCpu(1e-6, 1e-6);
      }
    }
  }
  GpuKernelRunner bad("BiasAdd");
  bad.Input(Random<float>({3, 4}, 1)).Input(Random<float>({5}, 2));
  ExpectGpuInvalidArgument(bad, "Must provide as many biases");
  for (DataType dt : {DT_HALF, DT_BFLOAT16}) {
    ExpectNarrowMatchesCpu("BiasAdd", dt, NoAttrs(),
                           {RandomNarrow(dt, {6, 16}, 1), RandomNarrow(dt, {16}, 2)},
                           dt == DT_HALF ? 2e-3 : 1.6e-2, dt == DT_HALF ? 2e-3 : 1.6e-2);
  }
}

BOOST_AUTO_TEST_CASE(bias_add_grad) {
  AF_REQUIRE_GPU();
  struct Case {
    Ints grad;
    std::string format;
  };
  const Case cases[] = {
      {{2, 3, 4, 5}, "NHWC"},     {{7, 12}, "NHWC"},         {{1, 3}, "NHWC"},
      {{100000, 10}, "NHWC"},     {{128, 28, 28, 32}, "NHWC"}, {{300, 1000}, "NHWC"},
      {{2, 5, 3, 4}, "NCHW"},     {{16, 32, 28, 28}, "NCHW"}, {{1, 3, 512, 512}, "NCHW"},
      {{5, 7}, "NCHW"},           {{0, 4}, "NHWC"},
  };
  SeedSequence seed{90};
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(Shape(c.grad).DebugString() << " " << c.format) {
      GpuKernelRunner r("BiasAddGrad");
      r.Attr("data_format", c.format).Input(Random<float>(c.grad, seed()));
      r.ExpectSameAsCpu(1e-5, 1e-5);
    }
  }
  GpuKernelRunner d("BiasAddGrad");
  d.Input(Random<double>({1000, 33}, 3));
  d.ExpectSameAsCpu(1e-12, 1e-12);
}

// ---- reductions ----------------------------------------------------------

BOOST_AUTO_TEST_CASE(reductions_over_axis_sets) {
  AF_REQUIRE_GPU();
  const std::vector<Ints> axis_sets = {{},     {0},    {1},       {3},    {-1},   {0, 1},
                                       {1, 2}, {0, 2}, {1, 3},    {0, 3}, {2, 3}, {0, 2, 3},
                                       {0, 1, 3}, {0, 1, 2, 3}, {3, 1}};
  SeedSequence seed{110};
  for (const char* op : {"Sum", "Mean", "Max", "Min", "Prod"}) {
    const bool prod = std::string(op) == "Prod";
    for (DataType dt : {DT_FLOAT, DT_DOUBLE}) {
      const Tensor x = prod ? RandomOf(dt, {4, 5, 6, 7}, seed(), 0.95, 1.05)
                            : RandomOf(dt, {4, 5, 6, 7}, seed());
      for (const Ints& axes : axis_sets) {
        for (bool keep_dims : {false, true}) {
          BOOST_TEST_CONTEXT(op << " " << DataTypeString(dt) << " axes " << axes.size()
                                << (axes.empty() ? -1 : axes[0]) << " keep " << keep_dims) {
            GpuKernelRunner r(op);
            r.Attr("keep_dims", keep_dims).Input(x).Input(
                (seed() % 2) ? Int32Vector(axes) : Int64Vector(axes));
            r.ExpectSameAsCpu(dt == DT_FLOAT ? 2e-6 : 1e-13, dt == DT_FLOAT ? 2e-6 : 1e-13);
          }
        }
      }
      // A scalar axis, and shapes with size-1 dims.
      GpuKernelRunner s(op);
      s.Input(RandomOf(dt, {3, 1, 4, 1}, seed())).Input(Tensor::Scalar<int32_t>(2));
      s.ExpectSameAsCpu(2e-6, 2e-6);
      GpuKernelRunner ones(op);
      ones.Input(RandomOf(dt, {3, 1, 4, 1}, seed())).Input(Int32Vector({1, 3}));
      ones.ExpectSameAsCpu(0, 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(reductions_large) {
  AF_REQUIRE_GPU();
  struct Case {
    Ints shape, axes;
  };
  const Case cases[] = {
      {{(1 << 22) + 9}, {0}},        // one output, split over many blocks
      {{1000, 2000}, {1}},           // rows of a warp each
      {{4, 300000}, {1}},            // few long rows: split rows
      {{100000, 3}, {1}},            // many short rows: a thread each
      {{200000, 33}, {0}},           // columns, split rows
      {{4, 1000000}, {0}},           // few rows of wide columns
      {{64, 5000, 16}, {1}},         // (outer, rows, inner)
      {{128, 10}, {0}},              // the demo's batch mean
      {{50, 60, 70}, {0, 2}},        // two passes
      {{30, 40, 50, 6}, {0, 2}},     // two passes, inner kept
      {{2048, 2048}, {0, 1}},
  };
  SeedSequence seed{140};
  for (const Case& c : cases) {
    for (const char* op : {"Sum", "Mean", "Max"}) {
      BOOST_TEST_CONTEXT(op << " " << Shape(c.shape).DebugString()) {
        GpuKernelRunner r(op);
        r.Input(Random<float>(c.shape, seed())).Input(Int32Vector(c.axes));
        r.ExpectSameAsCpu(1e-5, 2e-3);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(reductions_special_cases) {
  AF_REQUIRE_GPU();
  // Empty inputs: identities (Mean NaN), and nothing to output.
  for (const char* op : {"Sum", "Mean", "Max", "Min", "Prod"}) {
    for (const Ints& axes : {Ints{0}, Ints{1}, Ints{0, 1}}) {
      GpuKernelRunner r(op);
      r.Input(Random<float>({0, 3}, 1)).Input(Int32Vector(axes));
      ExpectRunsMatch(r, 0, 0, op);
    }
  }
  // NaN propagates through Max and Min, infinities through all.
  Tensor x = Random<float>({6, 50}, 3);
  x.data<float>()[7] = kNaN;
  x.data<float>()[60] = kInf;
  x.data<float>()[111] = -kInf;
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
    for (const Ints& axes : {Ints{0}, Ints{1}, Ints{0, 1}}) {
      GpuKernelRunner r(op);
      r.Input(x).Input(Int32Vector(axes));
      ExpectRunsMatch(r, 1e-6, 1e-6, op);
    }
  }
  GpuKernelRunner bad("Sum");
  bad.Input(Random<float>({2, 3}, 1)).Input(Int32Vector({2}));
  ExpectGpuInvalidArgument(bad, "Invalid reduction dimension");
  GpuKernelRunner dup("Sum");
  dup.Input(Random<float>({2, 3}, 1)).Input(Int32Vector({1, -1}));
  ExpectGpuInvalidArgument(dup, "duplicate");
  for (DataType dt : {DT_HALF, DT_BFLOAT16}) {
    for (const char* op : {"Sum", "Mean", "Max"}) {
      ExpectNarrowMatchesCpu(
          op, dt, [](auto& a) -> auto& { return a.Attr("keep_dims", false); },
          {RandomNarrow(dt, {64, 30}, 5), Int32Vector({0})}, 1e-2, 2e-2);
    }
  }
}

// ---- cross-entropy -------------------------------------------------------

BOOST_AUTO_TEST_CASE(softmax_cross_entropy) {
  AF_REQUIRE_GPU();
  const std::vector<ShapePair> cases = {
      {{8, 10}, {8, 10}},     {{1, 10}, {8, 10}},   {{8, 10}, {10}},   {{8, 1}, {8, 5}},
      {{3, 3000}, {3, 3000}}, {{64, 1024}, {64, 1024}}, {{4096, 1000}, {4096, 1000}},
      {{2, 1}, {2, 1}},       {{0, 4}, {0, 4}},
  };
  SeedSequence seed{170};
  for (DataType dt : {DT_FLOAT, DT_DOUBLE}) {
    for (const ShapePair& c : cases) {
      BOOST_TEST_CONTEXT(DataTypeString(dt) << " " << Shape(c.x).DebugString() << " "
                                            << Shape(c.y).DebugString()) {
        GpuKernelRunner r("SoftmaxCrossEntropyWithLogits");
        r.Input(RandomOf(dt, c.x, seed(), -5, 5)).Input(RandomOf(dt, c.y, seed(), 0, 1));
        r.ExpectSameAsCpu(dt == DT_FLOAT ? 1e-5 : 1e-12, dt == DT_FLOAT ? 1e-6 : 1e-14);
      }
    }
  }
  // Large logits: the max shift keeps exp finite.
  GpuKernelRunner big("SoftmaxCrossEntropyWithLogits");
  big.Input(Random<float>({16, 20}, 1, -500, 500)).Input(Random<float>({16, 20}, 2, 0, 1));
  big.ExpectSameAsCpu(1e-5, 1e-4);
  for (DataType dt : {DT_HALF, DT_BFLOAT16}) {
    ExpectNarrowMatchesCpu("SoftmaxCrossEntropyWithLogits", dt, NoAttrs(),
                           {RandomNarrow(dt, {8, 10}, 1, -3, 3), RandomNarrow(dt, {8, 10}, 2, 0, 1)},
                           2e-2, 2e-2);
  }
}

Tensor Labels(DataType dt, int64_t batch, int64_t classes, uint32_t seed) {
  Tensor t = RandomTensor<int64_t>(TensorShape{batch}, seed, 0, classes - 1);
  if (dt == DT_INT64) return t;
  Tensor l(DT_INT32, t.shape());
  for (int64_t i = 0; i < batch; ++i) l.data<int32_t>()[i] = static_cast<int32_t>(t.data<int64_t>()[i]);
  return l;
}

BOOST_AUTO_TEST_CASE(sparse_softmax_cross_entropy) {
  AF_REQUIRE_GPU();
  struct Case {
    int64_t batch, classes;
  };
  const Case cases[] = {{8, 10}, {128, 10}, {3, 3000}, {4096, 1000}, {5, 1}, {0, 10}};
  SeedSequence seed{190};
  for (DataType label_type : {DT_INT32, DT_INT64}) {
    for (DataType dt : {DT_FLOAT, DT_DOUBLE}) {
      for (const Case& c : cases) {
        BOOST_TEST_CONTEXT(DataTypeString(dt) << " labels " << DataTypeString(label_type) << " "
                                              << c.batch << "x" << c.classes) {
          GpuKernelRunner r("SparseSoftmaxCrossEntropyWithLogits");
          r.Input(RandomOf(dt, {c.batch, c.classes}, seed(), -5, 5))
              .Input(Labels(label_type, c.batch, std::max<int64_t>(c.classes, 1), seed()));
          r.ExpectSameAsCpu(dt == DT_FLOAT ? 1e-5 : 1e-12, dt == DT_FLOAT ? 1e-6 : 1e-14);
        }
      }
    }
  }
  // Out-of-range labels are the CPU kernel's error, raised before any launch.
  for (int64_t bad_label : {10, -1}) {
    GpuKernelRunner r("SparseSoftmaxCrossEntropyWithLogits");
    Tensor labels = Labels(DT_INT64, 4, 10, 3);
    labels.data<int64_t>()[2] = bad_label;
    r.Input(Random<float>({4, 10}, 4)).Input(labels);
    ExpectGpuInvalidArgument(r, "outside the valid range of [0, 10)");
  }
  GpuKernelRunner r32("SparseSoftmaxCrossEntropyWithLogits");
  r32.Input(Random<float>({3, 5}, 4)).Input(Int32Vector({0, 5, 1}));
  ExpectGpuInvalidArgument(r32, "Received a label value of 5");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
