// BiasAdd and BiasAddGrad on any device: the data_format attr, the operand
// checks, and the data viewed as [outer, channels, inner] around the
// channel dim (the last in NHWC, dim 1 in NCHW; inner is 1 for NHWC).
// Plain C++: CUDA sources include it.
#pragma once

#include <cstdint>

#include "core/op_kernel.h"
#include "core/status.h"

namespace af {

struct BiasAddDims {
  int64_t total = 0;  // elements of value (BiasAdd) or out_backprop (BiasAddGrad)
  int64_t channels = 0, inner = 1;
  int64_t outer = 0;  // 0 when total is
  Tensor* out = nullptr;
};

// The base of the BiasAdd and BiasAddGrad kernels: reads data_format at
// construction (NHWC when absent; NCHW puts channels first).
class BiasAddKernelBase : public OpKernel {
 public:
  explicit BiasAddKernelBase(OpKernelConstruction* ctx);

 protected:
  // The checks of BiasAdd (inputs value, bias) and BiasAddGrad
  // (out_backprop), their errors naming the node; then output 0 allocated
  // into dims->out: value's shape, or [channels].
  Status PrepareBiasAdd(OpKernelContext* ctx, BiasAddDims* dims) const;
  Status PrepareBiasAddGrad(OpKernelContext* ctx, BiasAddDims* dims) const;

 private:
  bool channels_first_ = false;
};

}  // namespace af
