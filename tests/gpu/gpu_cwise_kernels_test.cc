// The CUDA element-wise kernels (kernels/gpu/cuda/cwise_*_ops.cu) against
// the CPU kernels on random data: broadcasting over several ranks, the
// special values the CPU kernels define, gradients, AddN, casts among the
// device types, and cases past a million elements (grid-stride loops).
// half and bfloat16 cases need a real CUDA GPU (the emulated GPU runs the
// CPU kernels, which lack most of those types).
#include <boost/test/unit_test.hpp>

#include "tests/gpu/gpu_math_test_util.h"

namespace af::test {
namespace {

BOOST_AUTO_TEST_SUITE(gpu_math_kernels)

// ---- element-wise ----------------------------------------------------------

BOOST_AUTO_TEST_CASE(binary_broadcasting) {
  AF_REQUIRE_GPU();
  const char* ops[] = {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "Maximum", "Minimum",
                       "SquaredDifference"};
  SeedSequence seed{1};
  for (DataType dt : {DT_FLOAT, DT_DOUBLE}) {
    for (const char* op : ops) {
      for (const ShapePair& c : BroadcastCases()) {
        BOOST_TEST_CONTEXT(op << " " << DataTypeString(dt) << " " << Shape(c.x).DebugString()
                              << " vs " << Shape(c.y).DebugString()) {
          const bool div = std::string(op).find("Div") != std::string::npos;
          GpuKernelRunner r(op);
          r.Input(RandomOf(dt, c.x, seed()))
              .Input(div ? RandomOf(dt, c.y, seed(), 0.5, 2.0) : RandomOf(dt, c.y, seed()));
          r.ExpectSameAsCpu(dt == DT_FLOAT ? 1e-6 : 1e-14, dt == DT_FLOAT ? 1e-6 : 1e-14);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(binary_pow) {
  AF_REQUIRE_GPU();
  SeedSequence seed{100};
  for (const ShapePair& c : BroadcastCases()) {
    GpuKernelRunner r("Pow");
    r.Input(Random<float>(c.x, seed(), 0.5, 2.0)).Input(Random<float>(c.y, seed(), -3.0, 3.0));
    r.ExpectSameAsCpu(1e-5, 1e-6);
  }
}

BOOST_AUTO_TEST_CASE(binary_special_values) {
  AF_REQUIRE_GPU();
  // Maximum and Minimum propagate NaN from either side.
  const Tensor a = SpecialValues();
  Tensor b = SpecialValues();
  std::vector<float> rev(b.data<float>(), b.data<float>() + b.NumElements());
  std::reverse(rev.begin(), rev.end());
  b = FloatTensor(rev);
  for (const char* op : {"Maximum", "Minimum", "Add", "Sub", "Mul", "RealDiv", "SquaredDifference"}) {
    BOOST_TEST_CONTEXT(op) {
      GpuKernelRunner r(op);
      r.Input(a).Input(b);
      ExpectRunsMatch(r, 1e-6, 1e-37, op);
    }
  }
}

BOOST_AUTO_TEST_CASE(binary_incompatible_shapes) {
  AF_REQUIRE_GPU();
  GpuKernelRunner r("AddV2");
  r.Input(Random<float>({2, 3}, 1)).Input(Random<float>({4}, 2));
  ExpectGpuInvalidArgument(r, "Incompatible shapes");
}

BOOST_AUTO_TEST_CASE(binary_large) {
  AF_REQUIRE_GPU();
  const std::vector<ShapePair> cases = {
      {{(1 << 20) + 3}, {(1 << 20) + 3}},  // same shape, a tail past the vectors
      {{1024, 1025}, {1025}},               // row, not vectorizable
      {{1 << 20}, {1}},                     // scalar
      {{2048, 512}, {2048, 1}},             // column
      {{64, 1, 4097}, {1, 33, 1}},          // general
  };
  SeedSequence seed{7};
  for (const ShapePair& c : cases) {
    for (const char* op : {"AddV2", "Mul", "RealDiv"}) {
      GpuKernelRunner r(op);
      r.Input(Random<float>(c.x, seed())).Input(Random<float>(c.y, seed(), 0.5, 2.0));
      r.ExpectSameAsCpu(1e-6, 1e-6);
    }
  }
  GpuKernelRunner r("BiasAdd");  // the conv layer's pattern through BiasAdd below too
  r.Input(Random<float>({128, 28, 28, 32}, 9)).Input(Random<float>({32}, 10));
  r.ExpectSameAsCpu(1e-6, 1e-6);
}

BOOST_AUTO_TEST_CASE(binary_half_and_bfloat16) {
  AF_REQUIRE_GPU();
  SeedSequence seed{300};
  for (DataType dt : {DT_HALF, DT_BFLOAT16}) {
    const double tol = dt == DT_HALF ? 2e-3 : 1.6e-2;
    for (const char* op : {"AddV2", "Sub", "Mul", "RealDiv", "Maximum", "SquaredDifference"}) {
      for (const ShapePair& c : {ShapePair{{8, 16}, {16}}, ShapePair{{4, 1, 5}, {3, 1}},
                                 ShapePair{{1000}, {1000}}, ShapePair{{}, {9, 7}}}) {
        BOOST_TEST_CONTEXT(op << " " << DataTypeString(dt)) {
          ExpectNarrowMatchesCpu(
              op, dt, NoAttrs(),
              {RandomNarrow(dt, Shape(c.x), seed()), RandomNarrow(dt, Shape(c.y), seed(), 0.5, 2)},
              tol, tol);
        }
      }
    }
  }
}

struct UnaryCase {
  const char* op;
  double lo, hi;
};

BOOST_AUTO_TEST_CASE(unary_ops) {
  AF_REQUIRE_GPU();
  const UnaryCase cases[] = {
      {"Neg", -3, 3},   {"Square", -3, 3},  {"Abs", -3, 3},        {"Sign", -3, 3},
      {"Sqrt", 0.1, 4}, {"Rsqrt", 0.1, 4},  {"Exp", -5, 5},        {"Log", 0.1, 4},
      {"Log1p", -0.5, 3}, {"Tanh", -4, 4},  {"Sigmoid", -8, 8},    {"Reciprocal", 0.5, 3},
      {"Inv", -3, -0.5}, {"Relu", -3, 3},   {"Relu6", -3, 9},      {"Elu", -3, 3},
      {"Selu", -3, 3},  {"Softplus", -10, 10},
  };
  SeedSequence seed{20};
  for (DataType dt : {DT_FLOAT, DT_DOUBLE}) {
    for (const UnaryCase& c : cases) {
      for (const Ints& dims : {Ints{}, Ints{7}, Ints{3, 5, 4}, Ints{1000, 37}}) {
        BOOST_TEST_CONTEXT(c.op << " " << DataTypeString(dt) << " " << Shape(dims).DebugString()) {
          GpuKernelRunner r(c.op);
          r.Input(RandomOf(dt, dims, seed(), c.lo, c.hi));
          r.ExpectSameAsCpu(dt == DT_FLOAT ? 1e-5 : 1e-13, dt == DT_FLOAT ? 1e-6 : 1e-14);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(unary_special_values) {
  AF_REQUIRE_GPU();
  // NaN stays NaN through Relu/Relu6/Sign; infinities, zeros, denormals and
  // the exp clamps match the CPU's definitions.
  for (const char* op : {"Neg", "Square", "Abs", "Sign", "Sqrt", "Rsqrt", "Exp", "Log", "Log1p",
                         "Tanh", "Sigmoid", "Reciprocal", "Relu", "Relu6", "Elu", "Selu",
                         "Softplus"}) {
    BOOST_TEST_CONTEXT(op) {
      GpuKernelRunner r(op);
      r.Input(SpecialValues());
      // Eigen's vectorized logistic (the CPU's Sigmoid) is good to ~1e-5.
      ExpectRunsMatch(r, 1e-5, 1e-37, op);
    }
  }
}

BOOST_AUTO_TEST_CASE(unary_large_and_narrow) {
  AF_REQUIRE_GPU();
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "Exp"}) {
    GpuKernelRunner r(op);
    r.Input(Random<float>({(1 << 20) + 5}, 31, -4, 4));
    r.ExpectSameAsCpu(1e-5, 1e-6);
  }
  SeedSequence seed{40};
  for (DataType dt : {DT_HALF, DT_BFLOAT16}) {
    const double tol = dt == DT_HALF ? 2e-3 : 1.6e-2;
    for (const char* op : {"Relu", "Sigmoid", "Tanh", "Exp", "Neg", "Square", "Elu", "Softplus"}) {
      BOOST_TEST_CONTEXT(op << " " << DataTypeString(dt)) {
        ExpectNarrowMatchesCpu(op, dt, NoAttrs(), {RandomNarrow(dt, {1001}, seed(), -3, 3)}, tol,
                               tol);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(gradient_ops) {
  AF_REQUIRE_GPU();
  // (gradient op, range of the saved value)
  const UnaryCase cases[] = {
      {"ReluGrad", -3, 3},   {"Relu6Grad", -3, 9},  {"EluGrad", -1, 3},
      {"SeluGrad", -1.7, 3}, {"SoftplusGrad", -8, 8},
  };
  SeedSequence seed{50};
  for (DataType dt : {DT_FLOAT, DT_DOUBLE}) {
    for (const UnaryCase& c : cases) {
      for (const Ints& dims : {Ints{5}, Ints{4, 9, 3}, Ints{(1 << 20) + 1}}) {
        GpuKernelRunner r(c.op);
        r.Input(RandomOf(dt, dims, seed())).Input(RandomOf(dt, dims, seed(), c.lo, c.hi));
        r.ExpectSameAsCpu(dt == DT_FLOAT ? 1e-6 : 1e-14, dt == DT_FLOAT ? 1e-7 : 1e-15);
      }
    }
    // The gradient helpers take (y, dy).
    const UnaryCase helpers[] = {{"SigmoidGrad", 0.01, 0.99}, {"TanhGrad", -0.99, 0.99},
                                 {"SqrtGrad", 0.1, 3},        {"RsqrtGrad", 0.1, 3},
                                 {"ReciprocalGrad", 0.3, 3},  {"InvGrad", -3, -0.3}};
    for (const UnaryCase& c : helpers) {
      for (const Ints& dims : {Ints{5}, Ints{4, 9, 3}, Ints{(1 << 20) + 1}}) {
        GpuKernelRunner r(c.op);
        r.Input(RandomOf(dt, dims, seed(), c.lo, c.hi)).Input(RandomOf(dt, dims, seed()));
        r.ExpectSameAsCpu(dt == DT_FLOAT ? 1e-6 : 1e-14, dt == DT_FLOAT ? 1e-7 : 1e-15);
      }
    }
  }
  // ReluGrad passes the gradient where features > 0 (not at 0); Relu6Grad
  // also stops at 6.
  const Tensor features = FloatTensor({-1, 0, -0.0f, 1e-30f, 3, 6, 6.5f, kNaN});
  for (const char* op : {"ReluGrad", "Relu6Grad"}) {
    GpuKernelRunner r(op);
    r.Input(Random<float>({8}, 77)).Input(features);
    r.ExpectSameAsCpu(0, 0);
  }
}

BOOST_AUTO_TEST_CASE(gradient_shape_checks) {
  AF_REQUIRE_GPU();
  {
    GpuKernelRunner r("ReluGrad");  // activation gradients: identical shapes
    r.Input(Random<float>({2, 3}, 1)).Input(Random<float>({3, 2}, 2));
    ExpectGpuInvalidArgument(r, "must have the same size and shape");
  }
  {
    GpuKernelRunner r("SigmoidGrad");  // helpers: the same element count suffices
    r.Input(Random<float>({2, 3}, 1)).Input(Random<float>({3, 2}, 2));
    r.ExpectSameAsCpu(1e-6, 1e-7);
  }
  {
    GpuKernelRunner r("TanhGrad");
    r.Input(Random<float>({2, 3}, 1)).Input(Random<float>({5}, 2));
    ExpectGpuInvalidArgument(r, "same number of elements");
  }
}

BOOST_AUTO_TEST_CASE(add_n) {
  AF_REQUIRE_GPU();
  SeedSequence seed{60};
  for (int n : {1, 2, 3, 8, 9, 17}) {
    for (const Ints& dims : {Ints{}, Ints{5, 7}, Ints{(1 << 20) + 3}}) {
      BOOST_TEST_CONTEXT("N=" << n << " " << Shape(dims).DebugString()) {
        GpuKernelRunner r("AddN");
        for (int i = 0; i < n; ++i) r.Input(Random<float>(dims, seed()));
        r.ExpectSameAsCpu(1e-6, 1e-6);
      }
    }
  }
  GpuKernelRunner d("AddN");
  d.Input(Random<double>({100}, 1)).Input(Random<double>({100}, 2)).Input(Random<double>({100}, 3));
  d.ExpectSameAsCpu(1e-15, 1e-15);
  GpuKernelRunner bad("AddN");
  bad.Input(Random<float>({2, 3}, 1)).Input(Random<float>({3, 2}, 2));
  ExpectGpuInvalidArgument(bad, "must have the same size and shape");
}

BOOST_AUTO_TEST_CASE(cast_among_device_types) {
  AF_REQUIRE_GPU();
  const DataType types[] = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_UINT8, DT_INT8, DT_INT16};
  for (DataType src : types) {
    for (DataType dst : types) {
      for (bool truncate : {false, true}) {
        BOOST_TEST_CONTEXT(DataTypeString(src) << " -> " << DataTypeString(dst)
                                               << (truncate ? " truncating" : "")) {
          GpuKernelRunner r("Cast");
          r.Attr("DstT", dst).Attr("Truncate", truncate).Input(CastSource(src));
          ExpectRunsMatch(r, 0, 0, "Cast");
        }
      }
    }
  }
  GpuKernelRunner big("Cast");
  big.Attr("DstT", DT_HALF).Input(Random<float>({(1 << 20) + 7}, 3, -70000, 70000));
  ExpectRunsMatch(big, 0, 0, "Cast float -> half (large)");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
