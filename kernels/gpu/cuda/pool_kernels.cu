#include "kernels/gpu/cuda/pool_kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cfloat>
#include <cstdint>
#include <type_traits>

#include "kernels/gpu/cuda/cuda_types.cuh"

namespace af::gpu {

namespace {

// Element type traits: the accumulation type, conversions, the lowest
// finite value (what the CPU MaxPool starts every window with).
template <typename T>
struct Elem;
template <>
struct Elem<float> {
  using Acc = float;
  __device__ static float ToAcc(float v) { return v; }
  __device__ static float FromAcc(float v) { return v; }
  __device__ static float Lowest() { return -FLT_MAX; }
};
template <>
struct Elem<double> {
  using Acc = double;
  __device__ static double ToAcc(double v) { return v; }
  __device__ static double FromAcc(double v) { return v; }
  __device__ static double Lowest() { return -DBL_MAX; }
};
template <>
struct Elem<__half> {
  using Acc = float;
  __device__ static float ToAcc(__half v) { return __half2float(v); }
  __device__ static __half FromAcc(float v) { return __float2half_rn(v); }
  __device__ static float Lowest() { return -65504.0f; }
};
template <>
struct Elem<__nv_bfloat16> {
  using Acc = float;
  __device__ static float ToAcc(__nv_bfloat16 v) { return __bfloat162float(v); }
  __device__ static __nv_bfloat16 FromAcc(float v) { return __float2bfloat16_rn(v); }
  __device__ static float Lowest() { return -3.38953138925153547590470800371487866880e+38f; }
};

// Coordinates of element i of a [batch, h, w, depth] (or NCHW) tensor.
__device__ inline void Decode(const PoolGeometry& g, int64_t i, int64_t h, int64_t w, int64_t* n,
                              int64_t* y, int64_t* x, int64_t* c) {
  if (g.nhwc) {
    *c = i % g.depth;
    i /= g.depth;
    *x = i % w;
    i /= w;
    *y = i % h;
    *n = i / h;
  } else {
    *x = i % w;
    i /= w;
    *y = i % h;
    i /= h;
    *c = i % g.depth;
    *n = i / g.depth;
  }
}

__device__ inline int64_t Offset(const PoolGeometry& g, int64_t n, int64_t y, int64_t x, int64_t c,
                                 int64_t h, int64_t w) {
  return g.nhwc ? ((n * h + y) * w + x) * g.depth + c : ((n * g.depth + c) * h + y) * w + x;
}

// The input rows [*begin, *end) under output row oy, clipped to the input.
__device__ inline void Window(int64_t o, int64_t stride, int64_t pad, int64_t ksize, int64_t limit,
                              int64_t* begin, int64_t* end) {
  const int64_t start = o * stride - pad;
  *begin = start < 0 ? 0 : start;
  *end = start + ksize > limit ? limit : start + ksize;
}

// The output rows [*begin, *end] whose windows cover input row y.
__device__ inline void Covering(int64_t y, int64_t stride, int64_t pad, int64_t ksize,
                                int64_t out_size, int64_t* begin, int64_t* last) {
  const int64_t low = y + pad - ksize + 1;
  *begin = low <= 0 ? 0 : (low + stride - 1) / stride;
  const int64_t high = (y + pad) / stride;
  *last = high < out_size - 1 ? high : out_size - 1;
}

#define AF_GRID_LOOP(i, n)                                                                  \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n);   \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

template <typename T>
__global__ void MaxPoolKernel(const T* __restrict__ in, T* __restrict__ out, PoolGeometry g,
                              int64_t total) {
  using E = Elem<T>;
  AF_GRID_LOOP(i, total) {
    int64_t n, oy, ox, c;
    Decode(g, i, g.out_h, g.out_w, &n, &oy, &ox, &c);
    int64_t y0, y1, x0, x1;
    Window(oy, g.stride_h, g.pad_top, g.ksize_h, g.in_h, &y0, &y1);
    Window(ox, g.stride_w, g.pad_left, g.ksize_w, g.in_w, &x0, &x1);
    typename E::Acc best = E::Lowest();
    for (int64_t y = y0; y < y1; ++y)
      for (int64_t x = x0; x < x1; ++x) {
        const typename E::Acc v = E::ToAcc(in[Offset(g, n, y, x, c, g.in_h, g.in_w)]);
        best = v > best ? v : best;  // NaN never wins, as on the CPU
      }
    out[i] = E::FromAcc(best);
  }
}

// Where each window's gradient goes: the input offset of its first maximum.
template <typename T>
__global__ void MaxPoolArgmaxKernel(const T* __restrict__ in, int64_t* __restrict__ argmax,
                                    PoolGeometry g, int64_t total) {
  using E = Elem<T>;
  AF_GRID_LOOP(i, total) {
    int64_t n, oy, ox, c;
    Decode(g, i, g.out_h, g.out_w, &n, &oy, &ox, &c);
    int64_t y0, y1, x0, x1;
    Window(oy, g.stride_h, g.pad_top, g.ksize_h, g.in_h, &y0, &y1);
    Window(ox, g.stride_w, g.pad_left, g.ksize_w, g.in_w, &x0, &x1);
    typename E::Acc best = E::Lowest();
    int64_t where = -1;
    for (int64_t y = y0; y < y1; ++y)
      for (int64_t x = x0; x < x1; ++x) {
        const int64_t off = Offset(g, n, y, x, c, g.in_h, g.in_w);
        const typename E::Acc v = E::ToAcc(in[off]);
        if (v > best || where < 0) {  // strictly greater: the first maximum wins
          best = v;
          where = off;
        }
      }
    argmax[i] = where;
  }
}

// Each input element sums the gradients of the windows that chose it, in
// window order.
template <typename T>
__global__ void MaxPoolGradGatherKernel(const int64_t* __restrict__ argmax,
                                        const T* __restrict__ grad, T* __restrict__ out,
                                        PoolGeometry g, int64_t total) {
  using E = Elem<T>;
  AF_GRID_LOOP(i, total) {
    int64_t n, y, x, c;
    Decode(g, i, g.in_h, g.in_w, &n, &y, &x, &c);
    int64_t oy0, oy1, ox0, ox1;
    Covering(y, g.stride_h, g.pad_top, g.ksize_h, g.out_h, &oy0, &oy1);
    Covering(x, g.stride_w, g.pad_left, g.ksize_w, g.out_w, &ox0, &ox1);
    typename E::Acc sum = 0;
    for (int64_t oy = oy0; oy <= oy1; ++oy)
      for (int64_t ox = ox0; ox <= ox1; ++ox) {
        const int64_t o = Offset(g, n, oy, ox, c, g.out_h, g.out_w);
        if (argmax[o] == i) sum += E::ToAcc(grad[o]);
      }
    out[i] = E::FromAcc(sum);
  }
}

template <typename T>
__global__ void AvgPoolKernel(const T* __restrict__ in, T* __restrict__ out, PoolGeometry g,
                              int64_t total) {
  using E = Elem<T>;
  using Acc = typename E::Acc;
  AF_GRID_LOOP(i, total) {
    int64_t n, oy, ox, c;
    Decode(g, i, g.out_h, g.out_w, &n, &oy, &ox, &c);
    int64_t y0, y1, x0, x1;
    Window(oy, g.stride_h, g.pad_top, g.ksize_h, g.in_h, &y0, &y1);
    Window(ox, g.stride_w, g.pad_left, g.ksize_w, g.in_w, &x0, &x1);
    Acc sum = 0;
    for (int64_t y = y0; y < y1; ++y)
      for (int64_t x = x0; x < x1; ++x) sum += E::ToAcc(in[Offset(g, n, y, x, c, g.in_h, g.in_w)]);
    const Acc inv = Acc(1) / static_cast<Acc>((y1 - y0) * (x1 - x0));
    out[i] = E::FromAcc(sum * inv);
  }
}

template <typename T>
__global__ void AvgPoolGradKernel(const T* __restrict__ grad, T* __restrict__ out, PoolGeometry g,
                                  int64_t total) {
  using E = Elem<T>;
  using Acc = typename E::Acc;
  AF_GRID_LOOP(i, total) {
    int64_t n, y, x, c;
    Decode(g, i, g.in_h, g.in_w, &n, &y, &x, &c);
    int64_t oy0, oy1, ox0, ox1;
    Covering(y, g.stride_h, g.pad_top, g.ksize_h, g.out_h, &oy0, &oy1);
    Covering(x, g.stride_w, g.pad_left, g.ksize_w, g.out_w, &ox0, &ox1);
    Acc sum = 0;
    for (int64_t oy = oy0; oy <= oy1; ++oy) {
      int64_t y0, y1;
      Window(oy, g.stride_h, g.pad_top, g.ksize_h, g.in_h, &y0, &y1);
      for (int64_t ox = ox0; ox <= ox1; ++ox) {
        int64_t x0, x1;
        Window(ox, g.stride_w, g.pad_left, g.ksize_w, g.in_w, &x0, &x1);
        const Acc inv = Acc(1) / static_cast<Acc>((y1 - y0) * (x1 - x0));
        sum += E::ToAcc(grad[Offset(g, n, oy, ox, c, g.out_h, g.out_w)]) * inv;
      }
    }
    out[i] = E::FromAcc(sum);
  }
}

#undef AF_GRID_LOOP

// Runs `launch.template operator()<T>()` for the element type.
template <typename F>
cudaError_t Dispatch(PoolElem elem, F&& launch) {
  switch (elem) {
    case PoolElem::kFloat:
      return launch(static_cast<const float*>(nullptr));
    case PoolElem::kDouble:
      return launch(static_cast<const double*>(nullptr));
    case PoolElem::kHalf:
      return launch(static_cast<const __half*>(nullptr));
    case PoolElem::kBFloat16:
      return launch(static_cast<const __nv_bfloat16*>(nullptr));
  }
  return cudaErrorInvalidValue;
}

int64_t InputElements(const PoolGeometry& g) { return g.batch * g.in_h * g.in_w * g.depth; }
int64_t OutputElements(const PoolGeometry& g) { return g.batch * g.out_h * g.out_w * g.depth; }

}  // namespace

cudaError_t LaunchMaxPool(cudaStream_t stream, PoolElem elem, const PoolGeometry& g,
                          const void* in, void* out) {
  const int64_t total = OutputElements(g);
  if (total == 0) return cudaSuccess;
  return Dispatch(elem, [&](auto tag) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    MaxPoolKernel<T><<<GridFor(total, kThreads), kThreads, 0, stream>>>(
        static_cast<const T*>(in), static_cast<T*>(out), g, total);
    return cudaGetLastError();
  });
}

cudaError_t LaunchMaxPoolGrad(cudaStream_t stream, PoolElem elem, const PoolGeometry& g,
                              const void* orig_input, const void* grad, int64_t* argmax,
                              void* out) {
  const int64_t pooled = OutputElements(g), total = InputElements(g);
  if (total == 0) return cudaSuccess;
  return Dispatch(elem, [&](auto tag) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    if (pooled > 0) {
      MaxPoolArgmaxKernel<T><<<GridFor(pooled, kThreads), kThreads, 0, stream>>>(
          static_cast<const T*>(orig_input), argmax, g, pooled);
      const cudaError_t err = cudaGetLastError();
      if (err != cudaSuccess) return err;
    }
    MaxPoolGradGatherKernel<T><<<GridFor(total, kThreads), kThreads, 0, stream>>>(
        argmax, static_cast<const T*>(grad), static_cast<T*>(out), g, total);
    return cudaGetLastError();
  });
}

cudaError_t LaunchAvgPool(cudaStream_t stream, PoolElem elem, const PoolGeometry& g,
                          const void* in, void* out) {
  const int64_t total = OutputElements(g);
  if (total == 0) return cudaSuccess;
  return Dispatch(elem, [&](auto tag) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    AvgPoolKernel<T><<<GridFor(total, kThreads), kThreads, 0, stream>>>(
        static_cast<const T*>(in), static_cast<T*>(out), g, total);
    return cudaGetLastError();
  });
}

cudaError_t LaunchAvgPoolGrad(cudaStream_t stream, PoolElem elem, const PoolGeometry& g,
                              const void* grad, void* out) {
  const int64_t total = InputElements(g);
  if (total == 0) return cudaSuccess;
  return Dispatch(elem, [&](auto tag) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    AvgPoolGradKernel<T><<<GridFor(total, kThreads), kThreads, 0, stream>>>(
        static_cast<const T*>(grad), static_cast<T*>(out), g, total);
    return cudaGetLastError();
  });
}

}  // namespace af::gpu
