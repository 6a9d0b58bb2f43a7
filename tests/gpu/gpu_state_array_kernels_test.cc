// The CUDA optimizer, data-movement and random kernels (training_ops.cu,
// fill_transpose_ops.cu, concat_slice_pad_ops.cu, random_ops.cu) against
// the CPU kernels: every Apply* op through its reference inputs,
// Fill/Transpose/Concat/Slice/Pad/Tile/BroadcastTo, and the random ops by
// their statistics.
#include <boost/test/unit_test.hpp>

#include "tests/gpu/gpu_math_test_util.h"

namespace af::test {
namespace {

BOOST_AUTO_TEST_SUITE(gpu_math_kernels)

// ---- optimizers ---------------------------------------------------------

struct ApplyCase {
  int64_t n;
  DataType dt;
};

// T is set explicitly: the runner would infer it from the first input,
// which is a reference here.
BOOST_AUTO_TEST_CASE(apply_ops) {
  AF_REQUIRE_GPU();
  SeedSequence seed{210};
  for (ApplyCase c : {ApplyCase{1000, DT_FLOAT}, ApplyCase{(1 << 20) + 1, DT_FLOAT},
                      ApplyCase{7, DT_FLOAT}, ApplyCase{999, DT_DOUBLE}}) {
    const DataType dt = c.dt;
    const Ints dims = {c.n};
    const double rtol = dt == DT_FLOAT ? 1e-5 : 1e-12, atol = dt == DT_FLOAT ? 1e-6 : 1e-14;
    BOOST_TEST_CONTEXT("n=" << c.n << " " << DataTypeString(dt)) {
      {
        GpuKernelRunner r("ApplyGradientDescent");
        r.Attr("T", dt).RefInput(RandomOf(dt, dims, seed())).Input(ScalarOf(dt, 0.1)).Input(RandomOf(dt, dims, seed()));
        r.ExpectSameAsCpu(rtol, atol);
      }
      for (bool nesterov : {false, true}) {
        GpuKernelRunner r("ApplyMomentum");
        r.Attr("T", dt).Attr("use_nesterov", nesterov)
            .RefInput(RandomOf(dt, dims, seed()))
            .RefInput(RandomOf(dt, dims, seed()))
            .Input(ScalarOf(dt, 0.05))
            .Input(RandomOf(dt, dims, seed()))
            .Input(ScalarOf(dt, 0.9));
        r.ExpectSameAsCpu(rtol, atol);
      }
      for (bool nesterov : {false, true}) {
        GpuKernelRunner r("ApplyAdam");
        r.Attr("T", dt).Attr("use_nesterov", nesterov)
            .RefInput(RandomOf(dt, dims, seed()))
            .RefInput(RandomOf(dt, dims, seed()))
            .RefInput(RandomOf(dt, dims, seed(), 0.0, 1.0))
            .Input(ScalarOf(dt, 0.9 * 0.9 * 0.9))
            .Input(ScalarOf(dt, 0.999 * 0.999 * 0.999))
            .Input(ScalarOf(dt, 0.001))
            .Input(ScalarOf(dt, 0.9))
            .Input(ScalarOf(dt, 0.999))
            .Input(ScalarOf(dt, 1e-7))
            .Input(RandomOf(dt, dims, seed()));
        r.ExpectSameAsCpu(rtol, atol);
      }
      for (bool update_slots : {true, false}) {
        GpuKernelRunner r("ApplyAdagrad");
        r.Attr("T", dt).Attr("update_slots", update_slots)
            .RefInput(RandomOf(dt, dims, seed()))
            .RefInput(RandomOf(dt, dims, seed(), 0.1, 1.0))
            .Input(ScalarOf(dt, 0.01))
            .Input(RandomOf(dt, dims, seed()));
        r.ExpectSameAsCpu(rtol, atol);
      }
      {
        GpuKernelRunner r("ApplyRMSProp");
        r.Attr("T", dt).RefInput(RandomOf(dt, dims, seed()))
            .RefInput(RandomOf(dt, dims, seed(), 0.0, 1.0))
            .RefInput(RandomOf(dt, dims, seed()))
            .Input(ScalarOf(dt, 0.001))
            .Input(ScalarOf(dt, 0.9))
            .Input(ScalarOf(dt, 0.5))
            .Input(ScalarOf(dt, 1e-7))
            .Input(RandomOf(dt, dims, seed()));
        r.ExpectSameAsCpu(rtol, atol);
      }
    }
  }
  // A 2-D variable and a shape mismatch.
  GpuKernelRunner m("ApplyMomentum");
  m.Attr("T", DT_FLOAT).RefInput(Random<float>({30, 40}, 1))
      .RefInput(Random<float>({30, 40}, 2))
      .Input(Scalar<float>(0.1))
      .Input(Random<float>({30, 40}, 3))
      .Input(Scalar<float>(0.9));
  m.ExpectSameAsCpu(1e-6, 1e-7);
  GpuKernelRunner bad("ApplyGradientDescent");
  bad.Attr("T", DT_FLOAT).RefInput(Random<float>({4, 5}, 1)).Input(Scalar<float>(0.1)).Input(Random<float>({5, 4}, 2));
  ExpectGpuInvalidArgument(bad, "do not have the same shape");
}

// ---- data movement ------------------------------------------------------

BOOST_AUTO_TEST_CASE(fill_zeros_ones) {
  AF_REQUIRE_GPU();
  for (const Ints& dims : {Ints{}, Ints{3, 4}, Ints{0, 5}, Ints{(1 << 20) + 3}}) {
    GpuKernelRunner f("Fill");
    f.Input(Int32Vector(dims)).Input(Scalar<float>(2.5f));
    f.ExpectSameAsCpu(0, 0);
    GpuKernelRunner f64("Fill");
    f64.Input(Int64Vector(dims)).Input(Scalar<double>(-1.25));
    f64.ExpectSameAsCpu(0, 0);
  }
  GpuKernelRunner f8("Fill");
  f8.Input(Int32Vector({5, 3})).Input(Tensor::Scalar<uint8_t>(200));
  f8.ExpectSameAsCpu(0, 0);
  auto scalar_half = Tensor(DT_HALF, TensorShape{});
  scalar_half.data<half>()[0] = FloatToHalf(-3.0f);
  GpuKernelRunner fh2("Fill");
  fh2.Input(Int32Vector({4, 4})).Input(scalar_half);
  fh2.ExpectSameAsCpu(0, 0);
  for (DataType dt : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_UINT8, DT_INT8, DT_INT16}) {
    BOOST_TEST_CONTEXT(DataTypeString(dt)) {
      const Tensor x = CastSource(dt);
      GpuKernelRunner z("ZerosLike");
      z.Input(x);
      ExpectRunsMatch(z, 0, 0, "ZerosLike");
      GpuKernelRunner o("OnesLike");
      o.Input(x);
      ExpectRunsMatch(o, 0, 0, "OnesLike");
    }
  }
}

BOOST_AUTO_TEST_CASE(transpose) {
  AF_REQUIRE_GPU();
  struct Case {
    Ints shape, perm;
  };
  const Case cases[] = {
      {{37, 45}, {1, 0}},         {{1000, 1025}, {1, 0}},      {{3, 33, 65}, {0, 2, 1}},
      {{2, 3, 4, 5}, {0, 2, 3, 1}}, {{2, 3, 4, 5}, {3, 1, 2, 0}}, {{4, 5, 6}, {1, 0, 2}},
      {{4, 5, 6}, {2, 1, 0}},     {{4, 1, 6}, {2, 1, 0}},      {{5, 6}, {0, 1}},
      {{1, 7}, {1, 0}},           {{64, 28, 28, 32}, {0, 3, 1, 2}},
      {{2, 3, 2, 3, 2, 3}, {5, 4, 3, 2, 1, 0}}, {{0, 3}, {1, 0}},
  };
  SeedSequence seed{230};
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(Shape(c.shape).DebugString()) {
      GpuKernelRunner r("Transpose");
      r.Input(Random<float>(c.shape, seed())).Input(Int32Vector(c.perm));
      r.ExpectSameAsCpu(0, 0);
    }
  }
  for (DataType dt : {DT_DOUBLE, DT_HALF, DT_UINT8, DT_INT16}) {
    Tensor x = dt == DT_DOUBLE ? Random<double>({17, 40}, 1) : CastSource(dt);
    if (x.dims() == 1) {
      Tensor y;
      BOOST_REQUIRE(x.Reshaped(TensorShape{6, x.NumElements() / 6}, &y).ok());
      x = y;
    }
    GpuKernelRunner r("Transpose");
    r.Input(x).Input(Int64Vector({1, 0}));
    ExpectRunsMatch(r, 0, 0, "Transpose " + DataTypeString(dt));
  }
  GpuKernelRunner bad("Transpose");
  bad.Input(Random<float>({2, 3}, 1)).Input(Int32Vector({0, 0}));
  ExpectGpuInvalidArgument(bad, "perm");
}

BOOST_AUTO_TEST_CASE(concat) {
  AF_REQUIRE_GPU();
  SeedSequence seed{250};
  struct Case {
    std::vector<Ints> shapes;
    int axis;
  };
  const Case cases[] = {
      {{{2, 3}, {4, 3}}, 0},
      {{{2, 3}, {2, 5}, {2, 1}}, 1},
      {{{2, 3, 4}, {2, 3, 1}, {2, 3, 0}, {2, 3, 7}, {2, 3, 2}}, -1},
      {{{3, 2, 4}, {3, 5, 4}}, 1},
      {{{128, 512}, {128, 512}}, 1},
      {{{1000, 300}, {1000, 724}}, 1},
  };
  for (const Case& c : cases) {
    GpuKernelRunner r("ConcatV2");
    for (const Ints& s : c.shapes) r.Input(Random<float>(s, seed()));
    r.Input(Tensor::Scalar<int32_t>(c.axis));
    r.ExpectSameAsCpu(0, 0);
  }
  GpuKernelRunner v1("Concat");
  v1.Input(Tensor::Scalar<int32_t>(0)).Input(Random<float>({2, 2}, 1)).Input(Random<float>({3, 2}, 2));
  v1.ExpectSameAsCpu(0, 0);
  GpuKernelRunner h("ConcatV2");
  h.Input(CastSource(DT_HALF)).Input(CastSource(DT_HALF)).Input(Tensor::Scalar<int64_t>(0));
  ExpectRunsMatch(h, 0, 0, "ConcatV2 half");
  GpuKernelRunner bad("ConcatV2");
  bad.Input(Random<float>({2, 3}, 1)).Input(Random<float>({3, 3}, 2)).Input(Tensor::Scalar<int32_t>(1));
  ExpectGpuInvalidArgument(bad, "Dimensions of inputs should match");
}

BOOST_AUTO_TEST_CASE(slice) {
  AF_REQUIRE_GPU();
  struct Case {
    Ints shape, begin, size;
  };
  const Case cases[] = {
      {{5, 6}, {1, 0}, {3, 6}},          // contiguous rows: shares the buffer
      {{5, 6}, {1, 2}, {3, 3}},          // strided
      {{5, 6}, {0, 0}, {-1, -1}},        // everything
      {{4, 5, 6}, {1, 1, 1}, {2, 3, 4}},
      {{4, 5, 6}, {2, 0, 3}, {1, -1, 3}},
      {{1024, 1024}, {3, 5}, {1000, 1000}},
      {{8, 16}, {0, 4}, {8, 8}},         // 16-byte runs
      {{3, 4}, {1, 1}, {0, 2}},          // empty
  };
  SeedSequence seed{270};
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(Shape(c.shape).DebugString()) {
      GpuKernelRunner r("Slice");
      r.Input(Random<float>(c.shape, seed())).Input(Int32Vector(c.begin)).Input(Int32Vector(c.size));
      r.ExpectSameAsCpu(0, 0);
      GpuKernelRunner r64("Slice");
      r64.Input(Random<double>(c.shape, seed())).Input(Int64Vector(c.begin)).Input(Int64Vector(c.size));
      r64.ExpectSameAsCpu(0, 0);
    }
  }
  GpuKernelRunner bad("Slice");
  bad.Input(Random<float>({3, 4}, 1)).Input(Int32Vector({1, 1})).Input(Int32Vector({3, 1}));
  ExpectGpuInvalidArgument(bad, "Expected size[0]");
}

BOOST_AUTO_TEST_CASE(pad) {
  AF_REQUIRE_GPU();
  struct Case {
    Ints shape;
    std::vector<int32_t> paddings;
  };
  const Case cases[] = {
      {{3, 4}, {1, 2, 0, 3}},
      {{2, 5, 5, 3}, {0, 0, 2, 2, 2, 2, 0, 0}},
      {{7}, {0, 0}},
      {{0, 2}, {1, 1, 0, 0}},
      {{64, 28, 28, 8}, {0, 0, 1, 1, 1, 1, 0, 0}},
  };
  SeedSequence seed{290};
  for (const Case& c : cases) {
    Tensor p(DT_INT32, TensorShape{static_cast<int64_t>(c.shape.size()), 2});
    for (size_t i = 0; i < c.paddings.size(); ++i) p.data<int32_t>()[i] = c.paddings[i];
    GpuKernelRunner r("Pad");
    r.Input(Random<float>(c.shape, seed())).Input(p);
    r.ExpectSameAsCpu(0, 0);
    GpuKernelRunner v2("PadV2");
    v2.Input(Random<float>(c.shape, seed())).Input(p).Input(Scalar<float>(7.5f));
    v2.ExpectSameAsCpu(0, 0);
  }
  Tensor p(DT_INT32, TensorShape{1, 2});
  p.data<int32_t>()[0] = -1;
  p.data<int32_t>()[1] = 0;
  GpuKernelRunner bad("Pad");
  bad.Input(Random<float>({3}, 1)).Input(p);
  ExpectGpuInvalidArgument(bad, "Paddings must be non-negative");
}

BOOST_AUTO_TEST_CASE(tile_and_broadcast_to) {
  AF_REQUIRE_GPU();
  struct TileCase {
    Ints shape, multiples;
  };
  const TileCase tiles[] = {
      {{2, 3}, {2, 3}}, {{1, 4, 1}, {3, 1, 5}}, {{5}, {1}}, {{2, 3}, {0, 2}},
      {{128, 1}, {1, 1000}}, {{3, 4, 5}, {2, 1, 2}},
  };
  SeedSequence seed{310};
  for (const TileCase& c : tiles) {
    GpuKernelRunner r("Tile");
    r.Input(Random<float>(c.shape, seed())).Input(Int32Vector(c.multiples));
    r.ExpectSameAsCpu(0, 0);
  }
  struct BroadcastCase {
    Ints shape, target;
  };
  const BroadcastCase bcs[] = {
      {{3, 1}, {2, 3, 4}}, {{4}, {3, 4}}, {{}, {5, 5}}, {{2, 1, 3}, {2, 4, 3}},
      {{1}, {(1 << 20) + 1}}, {{1, 512}, {2048, 512}}, {{3}, {3}},
  };
  for (const BroadcastCase& c : bcs) {
    GpuKernelRunner r("BroadcastTo");
    r.Input(Random<float>(c.shape, seed())).Input(Int32Vector(c.target));
    r.ExpectSameAsCpu(0, 0);
  }
  GpuKernelRunner bad("BroadcastTo");
  bad.Input(Random<float>({3, 2}, 1)).Input(Int32Vector({3, 4}));
  ExpectGpuInvalidArgument(bad, "Unable to broadcast");
}

// ---- random ---------------------------------------------------------------

struct Stats {
  double mean = 0, stddev = 0, min = 0, max = 0;
};

Stats StatsOf(const Tensor& t) {
  Stats s;
  const int64_t n = t.NumElements();
  double sum = 0, sq = 0;
  s.min = std::numeric_limits<double>::infinity();
  s.max = -s.min;
  for (int64_t i = 0; i < n; ++i) {
    const double v = Elem(t, i);
    sum += v;
    sq += v * v;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  s.mean = sum / n;
  s.stddev = std::sqrt(std::max(0.0, sq / n - s.mean * s.mean));
  return s;
}

Tensor RunRandom(const std::string& op, DataType dt, const Ints& shape, int64_t seed,
                 int64_t seed2) {
  GpuKernelRunner r(op);
  r.Attr("dtype", dt).Attr("seed", seed).Attr("seed2", seed2).Input(Int32Vector(shape));
  auto out = r.RunGpu();
  BOOST_REQUIRE_MESSAGE(out.ok(), op << ": " << out.status().ToString());
  BOOST_REQUIRE_EQUAL(out.value().size(), 1u);
  BOOST_REQUIRE(BaseType(out.value()[0].dtype()) == dt);
  BOOST_REQUIRE(out.value()[0].shape() == Shape(shape));
  return out.value()[0];
}

BOOST_AUTO_TEST_CASE(random_statistics) {
  AF_REQUIRE_GPU();
  const Ints shape = {1000, 1001};
  for (DataType dt : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    BOOST_TEST_CONTEXT(DataTypeString(dt)) {
      const double slack = dt == DT_BFLOAT16 ? 0.02 : 0.01;
      const Stats u = StatsOf(RunRandom("RandomUniform", dt, shape, 1, 2));
      BOOST_CHECK_SMALL(u.mean - 0.5, slack);
      BOOST_CHECK_SMALL(u.stddev - std::sqrt(1.0 / 12), slack);
      BOOST_CHECK_GE(u.min, 0.0);
      BOOST_CHECK_LT(u.max, 1.0);
      const Stats n = StatsOf(RunRandom("RandomStandardNormal", dt, shape, 3, 4));
      BOOST_CHECK_SMALL(n.mean, slack);
      BOOST_CHECK_SMALL(n.stddev - 1.0, slack);
      BOOST_CHECK_LT(n.min, -4.0);
      BOOST_CHECK_GT(n.max, 4.0);
      const Stats t = StatsOf(RunRandom("TruncatedNormal", dt, shape, 5, 6));
      BOOST_CHECK_SMALL(t.mean, slack);
      BOOST_CHECK_SMALL(t.stddev - 0.87962566, slack);  // the 2-sigma truncated normal's
      BOOST_CHECK_GE(t.min, -2.0);
      BOOST_CHECK_LE(t.max, 2.0);
    }
  }
}

BOOST_AUTO_TEST_CASE(random_seeds) {
  AF_REQUIRE_GPU();
  // A fresh kernel with the same seeds repeats its numbers; other seeds and
  // the nondeterministic seed (0, 0) give others. Odd sizes end mid-group.
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    BOOST_TEST_CONTEXT(op) {
      const Tensor a = RunRandom(op, DT_FLOAT, {1001}, 7, 8);
      const Tensor b = RunRandom(op, DT_FLOAT, {1001}, 7, 8);
      const Tensor c = RunRandom(op, DT_FLOAT, {1001}, 7, 9);
      const Tensor d = RunRandom(op, DT_FLOAT, {1001}, 0, 0);
      const Tensor e = RunRandom(op, DT_FLOAT, {1001}, 0, 0);
      BOOST_CHECK(std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0);
      BOOST_CHECK(std::memcmp(a.raw_data(), c.raw_data(), a.TotalBytes()) != 0);
      BOOST_CHECK(std::memcmp(d.raw_data(), e.raw_data(), d.TotalBytes()) != 0);
      const Tensor empty = RunRandom(op, DT_FLOAT, {0, 3}, 1, 1);
      BOOST_CHECK_EQUAL(empty.NumElements(), 0);
    }
  }
  // Successive steps of one kernel draw different numbers.
  std::string why;
  DeviceBase* device = TestGpu(&why);
  BOOST_REQUIRE(device != nullptr);
  KernelRunner spec("RandomUniform");
  spec.Attr("dtype", DT_FLOAT).Attr("seed", int64_t{11}).Attr("seed2", int64_t{12}).Input(Int32Vector({64}));
  AF_REQUIRE_OK(spec.Build());
  std::unique_ptr<OpKernel> kernel;
  AF_REQUIRE_OK(KernelRegistry::Global()->CreateKernel(DEVICE_GPU, device, spec.node_def(), &kernel));
  std::vector<Tensor> steps;
  for (int step = 0; step < 2; ++step) {
    std::vector<TensorValue> in(1);
    in[0].tensor = Int32Vector({64});
    in[0].has_value = true;
    std::vector<TensorValue> out(1);
    OpKernelContext::Params params;
    params.device = device;
    params.op_kernel = kernel.get();
    params.inputs = in.data();
    params.outputs = out.data();
    OpKernelContext ctx(&params);
    kernel->Compute(&ctx);
    AF_REQUIRE_OK(ctx.status());
    AF_REQUIRE_OK(device->gpu_context()->compute_stream()->Synchronize());
    auto host = GpuToHost(device, out[0].get());
    AF_REQUIRE_OK(host.status());
    steps.push_back(host.value());
  }
  BOOST_CHECK(std::memcmp(steps[0].raw_data(), steps[1].raw_data(), steps[0].TotalBytes()) != 0);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
