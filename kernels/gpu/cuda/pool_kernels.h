// CUDA kernels of MaxPool, MaxPoolGrad, AvgPool and AvgPoolGrad, with the
// CPU kernels' exact rules: windows clipped to the input (padding never
// takes part, in any amount before or after, so asymmetric SAME padding
// needs nothing special), a max routed to the first maximum of its window
// in row-major window order, a mean divided by the number of input
// elements under the window. Every output element is written by one thread
// and gradients are gathered, not scattered, so results are deterministic.
// The header is safe for host-only translation units.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace af::gpu {

enum class PoolElem { kFloat, kDouble, kHalf, kBFloat16 };

struct PoolGeometry {
  int64_t batch = 0, in_h = 0, in_w = 0, depth = 0;
  int64_t out_h = 0, out_w = 0;
  int64_t ksize_h = 1, ksize_w = 1, stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  bool nhwc = true;  // false: NCHW
};

// out: [batch, out_h, out_w, depth] (or NCHW).
cudaError_t LaunchMaxPool(cudaStream_t stream, PoolElem elem, const PoolGeometry& g,
                          const void* in, void* out);
// `argmax` is device scratch of one int64 per pooled element.
cudaError_t LaunchMaxPoolGrad(cudaStream_t stream, PoolElem elem, const PoolGeometry& g,
                              const void* orig_input, const void* grad, int64_t* argmax,
                              void* out);
cudaError_t LaunchAvgPool(cudaStream_t stream, PoolElem elem, const PoolGeometry& g,
                          const void* in, void* out);
cudaError_t LaunchAvgPoolGrad(cudaStream_t stream, PoolElem elem, const PoolGeometry& g,
                              const void* grad, void* out);

}  // namespace af::gpu
