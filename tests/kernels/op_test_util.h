// Test harness for kernels: builds a NodeDef, fills in what the OpRegistry
// knows (type attrs inferred from the inputs, attr defaults), creates the
// kernel through the KernelRegistry on a trivial CPU device, and runs it.
//
//   KernelRunner r("MatMul");
//   r.Attr("transpose_b", true).Input(a).Input(b);
//   StatusOr<std::vector<Tensor>> out = r.Run();
//
// Plus helpers for random inputs and for comparing against double-precision
// reference results.
#pragma once

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/device_base.h"
#include "core/node_def_util.h"
#include "core/op_kernel.h"
#include "core/status.h"
#include "core/tensor.h"
#include "proto/node_def.pb.h"

namespace af::test {

// A CPU device that only hands out the process CPU allocator.
class TestCpuDevice : public DeviceBase {
 public:
  const std::string& name() const override { return name_; }
  const DeviceType& device_type() const override { return type_; }
  Allocator* GetAllocator() override { return GetCpuAllocator(); }

 private:
  std::string name_ = "/job:localhost/replica:0/task:0/device:CPU:0";
  DeviceType type_ = DEVICE_CPU;
};

class KernelRunner {
 public:
  explicit KernelRunner(std::string op, std::string node_name = "test_node");
  ~KernelRunner();

  template <typename T>
  KernelRunner& Attr(const std::string& name, const T& value) {
    SetAttr(&node_, name, value);
    return *this;
  }
  // Appends a data input. Its dtype fills the input's type attr (T, N,
  // list(type)) unless Attr() set it.
  KernelRunner& Input(Tensor value);
  // Appends a reference input (a variable's storage and its mutex).
  KernelRunner& RefInput(Tensor* storage, std::mutex* mu);
  // Runs on `device` (which must outlive the runner) instead of the plain
  // test CPU device, e.g. one with an intra-op thread pool.
  KernelRunner& OnDevice(DeviceBase* device);

  // Completes the NodeDef and creates the kernel; Run() calls it if needed.
  Status Build();
  // Computes once. The input values are moved into the kernel's input slots
  // and dropped afterwards, so the harness keeps no reference to them
  // (matters for kernels that forward a buffer only they can see); a second
  // step needs Run(inputs).
  StatusOr<std::vector<Tensor>> Run();
  // Runs with new values for the non-reference inputs, in order.
  StatusOr<std::vector<Tensor>> Run(std::vector<Tensor> inputs);

  const tensorflow::NodeDef& node_def() const { return node_; }
  OpKernel* kernel() const { return kernel_.get(); }

 private:
  struct PendingInput {
    Tensor value;
    Tensor* ref = nullptr;
    std::mutex* ref_mu = nullptr;
  };
  Status InferTypeAttrs(const tensorflow::OpDef& op_def);

  tensorflow::NodeDef node_;
  std::vector<PendingInput> inputs_;
  TestCpuDevice device_;
  DeviceBase* active_device_ = &device_;
  std::unique_ptr<OpKernel> kernel_;
};

// One-shot: build and run `op` on `inputs`.
StatusOr<std::vector<Tensor>> RunKernel(const std::string& op, std::vector<Tensor> inputs);

// Uniform random values in [lo, hi) (integers: inclusive), fixed by `seed`.
template <typename T>
Tensor RandomTensor(const TensorShape& shape, uint32_t seed, double lo = -1.0, double hi = 1.0) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  std::mt19937 rng(seed);
  T* p = t.data<T>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      p[i] = (rng() & 1u) != 0;
    } else if constexpr (std::is_integral_v<T>) {
      std::uniform_int_distribution<int64_t> d(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
      p[i] = static_cast<T>(d(rng));
    } else {
      std::uniform_real_distribution<double> d(lo, hi);
      p[i] = static_cast<T>(d(rng));
    }
  }
  return t;
}

// Element i as a double (bool -> 0/1).
double ValueAsDouble(const Tensor& t, int64_t i);

// Checks dtype, shape and every value against `expected` with
// |got - want| <= atol + rtol * |want|; NaN matches NaN. The message names
// the first mismatching element.
Status CheckTensor(const Tensor& got, DataType dtype, const TensorShape& shape,
                   const std::vector<double>& expected, double rtol = 0.0, double atol = 0.0);

// Default tolerances for comparing a kernel's T results against double
// references.
template <typename T>
constexpr double Tolerance() {
  if constexpr (std::is_same_v<T, float>) return 1e-5;
  if constexpr (std::is_same_v<T, double>) return 1e-12;
  return 0.0;
}

}  // namespace af::test

// Status checks that print the status on failure.
#define AF_EXPECT_OK(...)                              \
  do {                                                 \
    const ::af::Status af_s_ = (__VA_ARGS__);          \
    BOOST_CHECK_MESSAGE(af_s_.ok(), af_s_.ToString()); \
  } while (0)
#define AF_REQUIRE_OK(...)                               \
  do {                                                   \
    const ::af::Status af_s_ = (__VA_ARGS__);            \
    BOOST_REQUIRE_MESSAGE(af_s_.ok(), af_s_.ToString()); \
  } while (0)
