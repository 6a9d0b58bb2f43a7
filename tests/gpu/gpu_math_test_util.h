// Inputs and comparisons shared by the GPU math kernel suites
// (gpu_cwise_kernels_test.cc, gpu_reduction_kernels_test.cc,
// gpu_state_array_kernels_test.cc).
#pragma once

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
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

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

template <typename T>
inline Tensor Random(const Ints& dims, uint32_t seed, double lo = -1.0, double hi = 1.0) {
  return RandomTensor<T>(Shape(dims), seed, lo, hi);
}

// Random data of a floating dtype (float or double).
inline Tensor RandomOf(DataType dt, const Ints& dims, uint32_t seed, double lo = -1.0, double hi = 1.0) {
  return dt == DT_DOUBLE ? Random<double>(dims, seed, lo, hi) : Random<float>(dims, seed, lo, hi);
}

inline Tensor FloatTensor(const std::vector<float>& v) { return Tensor::FromVector<float>(v); }

template <typename T>
inline Tensor Scalar(double v) {
  return Tensor::Scalar<T>(static_cast<T>(v));
}

inline Tensor ScalarOf(DataType dt, double v) {
  return dt == DT_DOUBLE ? Scalar<double>(v) : Scalar<float>(static_cast<float>(v));
}

// Special values mixed with ordinary ones.
inline Tensor SpecialValues() {
  return FloatTensor({kNaN, kInf, -kInf, 0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 3.0f, -3.0f, 6.0f,
                      7.0f, -7.0f, 20.0f, -20.0f, 100.0f, -100.0f, 1e-30f, -1e-30f, 1e-40f,
                      88.0f, -88.0f, 90.0f, -104.0f});
}

// The attrs of ops that have none but T.
struct NoAttrs {
  template <typename R>
  R& operator()(R& r) const {
    return r;
  }
};

// Runs on both and compares with ExpectClose (covers int16, which the
// runner's comparison does not read).
inline void ExpectRunsMatch(GpuKernelRunner& r, double rtol, double atol, const std::string& what) {
  auto cpu = r.RunCpu();
  BOOST_REQUIRE_MESSAGE(cpu.ok(), what << " on the CPU: " << cpu.status().ToString());
  auto gpu = r.RunGpu();
  BOOST_REQUIRE_MESSAGE(gpu.ok(), what << " on the GPU: " << gpu.status().ToString());
  BOOST_REQUIRE_EQUAL(cpu.value().size(), gpu.value().size());
  for (size_t k = 0; k < cpu.value().size(); ++k)
    ExpectClose(gpu.value()[k], cpu.value()[k], rtol, atol, what + " output " + std::to_string(k));
}

// Successive seeds for random inputs (a call per tensor, so that chained
// Input() calls stay well sequenced).
struct SeedSequence {
  uint32_t next;
  uint32_t operator()() { return next++; }
};

struct ShapePair {
  Ints x, y;
};

// Broadcasting patterns: same shape, scalars, rows, columns (either side),
// general N-d, sizes that are not multiples of the vector width.
inline std::vector<ShapePair> BroadcastCases() {
  return {
      {{2, 3, 4}, {2, 3, 4}},         {{}, {3, 4}},
      {{5, 6}, {}},                   {{1}, {7}},
      {{8, 16}, {16}},                {{16}, {8, 16}},
      {{8, 1}, {8, 16}},              {{8, 16}, {8, 1}},
      {{33, 17}, {17}},               {{33, 17}, {33, 1}},
      {{4, 1, 5}, {3, 1}},            {{7, 5, 3}, {7, 1, 3}},
      {{2, 1, 3, 1, 5}, {1, 4, 1, 6, 1}}, {{3, 4, 5, 6}, {4, 1, 6}},
      {{2, 3, 1, 4, 1, 2, 3}, {3, 2, 4, 5, 1, 3}},
      {{13}, {13}},                   {{0, 3}, {3}},
  };
}

// Values for casts: ordinary, halfway cases, out of every small integer
// range, special values.
inline Tensor CastSource(DataType dt) {
  std::vector<float> v = {0.0f,    -0.0f,   0.4f,    0.5f,    1.5f,     2.5f,   -1.5f,  -2.5f,
                          100.7f,  -100.7f, 127.9f,  128.3f,  -128.9f,  -129.5f, 255.4f, 256.6f,
                          300.0f,  -300.0f, 32767.5f, 32768.9f, -32769.1f, 65504.f, 70000.f,
                          1e10f,   -1e10f,  3e9f,    kNaN,    kInf,     -kInf,  1e-8f,  -6e-5f,
                          1.00048828125f, 1.0009765625f, 3.14159265f, 0.1f, -0.7f};
  Tensor f = FloatTensor(v);
  switch (dt) {
    case DT_FLOAT: return f;
    case DT_DOUBLE: {
      Tensor d(DT_DOUBLE, f.shape());
      for (int64_t i = 0; i < f.NumElements(); ++i) d.data<double>()[i] = f.data<float>()[i] * (1 + 1e-9);
      return d;
    }
    case DT_HALF:
    case DT_BFLOAT16: return Narrow(f, dt);
    case DT_UINT8: return RandomTensor<uint8_t>(f.shape(), 5, 0, 255);
    case DT_INT8: return RandomTensor<int8_t>(f.shape(), 6, -128, 127);
    case DT_INT16: return RandomTensor<int16_t>(f.shape(), 7, -32768, 32767);
    default: return f;
  }
}

}  // namespace af::test
