// Runs one node on the CPU and on GPU 0 and compares the two: the GPU
// kernels' oracle is the CPU kernel (itself checked against double-precision
// reference loops in tests/kernels).
//
//   GpuKernelRunner r("MatMul");
//   r.Attr("transpose_b", true).Input(a).Input(b);
//   r.ExpectSameAsCpu(1e-5, 1e-6);
//
// Inputs are host tensors; RunGpu copies those that live in device memory
// on a GPU (float types; integers stay in host memory) to the device through
// the host-to-device stream, runs the kernel, waits for the compute stream
// and copies every output back. Reference inputs (variables) are copied to
// the device too, and their values after the run are appended to the
// outputs, after the kernel's own.
//
// GPU 0 is CUDA's when a device is present; with ACTORFLOW_EMULATED_GPUS=N
// it is an emulated one (the CPU kernel on the emulated stream), which
// checks the harness and the copies but not a CUDA kernel.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/device_base.h"
#include "core/status.h"
#include "core/tensor.h"
#include "tests/kernels/op_test_util.h"

namespace af::test {

// GPU 0 of this process, or nullptr with *why_not saying why.
DeviceBase* TestGpu(std::string* why_not);
// True when GPU 0 is a real CUDA device (not emulated).
bool HaveCudaGpu();

class GpuKernelRunner {
 public:
  explicit GpuKernelRunner(std::string op);

  template <typename T>
  GpuKernelRunner& Attr(const std::string& name, const T& value) {
    attrs_.push_back([name, value](KernelRunner* r) { r->Attr(name, value); });
    return *this;
  }
  GpuKernelRunner& Input(Tensor host_value);
  GpuKernelRunner& RefInput(Tensor host_initial_value);

  StatusOr<std::vector<Tensor>> RunCpu();
  StatusOr<std::vector<Tensor>> RunGpu();
  // Runs both and checks every output: same dtype and shape, and
  // |gpu - cpu| <= atol + rtol * |cpu| element by element (NaN == NaN).
  void ExpectSameAsCpu(double rtol, double atol);

 private:
  std::string op_;
  std::vector<std::function<void(KernelRunner*)>> attrs_;
  std::vector<Tensor> inputs_;
  std::vector<bool> is_ref_;
};

}  // namespace af::test

// Ends the test case with a message when no GPU (CUDA or emulated) exists.
#define AF_REQUIRE_GPU()                                                   \
  do {                                                                     \
    std::string af_why_;                                                   \
    if (::af::test::TestGpu(&af_why_) == nullptr) {                         \
      BOOST_TEST_MESSAGE("skipped: no GPU (" << af_why_ << ")");           \
      return;                                                              \
    }                                                                      \
  } while (0)
