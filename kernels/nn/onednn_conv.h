// float Conv2D and its gradients through oneDNN, one cached plan per shape.
//
// Activations stay in the tensor's own layout (nhwc or nchw) and the user's
// filter stays HWIO. The primitive picks its own weights layout (format_tag
// any): with plain activations that selects oneDNN's JIT kernels (brgconv /
// jit:avx512_core), which need blocked weights, and a per-call weights
// reorder (filters are small) beats both the plain-layout GEMM kernels and
// fully blocked activations with reorders in and out (measured on the Deep
// MNIST layers; bench/ops compares against oneDNN on blocked layouts). The
// exception is backward data with fewer than 16 input channels, where the
// GEMM kernel on plain HWIO weights wins (2.4x on conv1).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/status.h"
#include "kernels/nn/conv_dims.h"

namespace af {

enum class ConvPass { kForward, kBackwardData, kBackwardWeights };

class OneDnnConv2D {
 public:
  explicit OneDnnConv2D(ConvPass pass);
  ~OneDnnConv2D();
  OneDnnConv2D(const OneDnnConv2D&) = delete;
  OneDnnConv2D& operator=(const OneDnnConv2D&) = delete;

  // kForward: a = input, b = out (output)
  // kBackwardData: a = in_backprop (output), b = out_backprop
  // kBackwardWeights: a = input, b = out_backprop
  // `filter` is the HWIO filter (read for forward and backward data,
  // written for backward weights). Safe to call from several threads.
  Status Run(const Conv2DDims& dims, float* a, float* b, float* filter);

  // The oneDNN implementation chosen for `dims` (for benchmarks and logs).
  std::string ImplementationName(const Conv2DDims& dims);

 private:
  struct Plan;
  StatusOr<std::shared_ptr<Plan>> GetPlan(const Conv2DDims& dims);
  StatusOr<std::shared_ptr<Plan>> CreatePlan(const Conv2DDims& dims) const;

  const ConvPass pass_;
  std::mutex mu_;  // guards plans_
  std::map<std::array<int64_t, 7>, std::shared_ptr<Plan>> plans_;
};

}  // namespace af
