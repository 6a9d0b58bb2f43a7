// One cuDNN convolution pass as the GPU's Conv2D kernels run it
// (kernels/gpu/cuda/conv_pass.cc): the descriptors of a TensorFlow
// convolution as cuDNN sees it, the filter moved into cuDNN's layout, the
// asymmetric part of TensorFlow's padding added to the input, and the
// algorithm chosen once per shape and kept by the device.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "core/op_kernel.h"
#include "core/tensor.h"
#include "core/window_geometry.h"
#include "kernels/gpu/cuda/cublas_handle.h"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/cuda/cudnn_handle.h"
#include "kernels/gpu/cuda/filter_layout.h"
#include "kernels/nn/conv_dims.h"

namespace af::gpu {

// The descriptors of one convolution, as cuDNN sees it: the input possibly
// padded by the asymmetric part of TensorFlow's padding.
struct ConvSetup {
  Conv2DDims d;
  DataType dtype = DT_FLOAT;
  int elem_bytes = 4;
  bool nhwc = true;
  // Rows (cols) of zeros added before / after the input in the padded
  // temporary; cuDNN pads the remaining pad_h (pad_w) on both sides.
  int64_t extra_top = 0, extra_bottom = 0, extra_left = 0, extra_right = 0;
  int64_t pad_h = 0, pad_w = 0;
  int64_t padded_h = 0, padded_w = 0;
  // float without TF32, and double: no tensor-core math at all.
  bool strict_fp32 = false;
  CudnnTensorDescriptor x, y;
  CudnnFilterDescriptor w;
  CudnnConvolutionDescriptor conv;
  std::string key;

  bool explicit_pad() const {
    return extra_top != 0 || extra_bottom != 0 || extra_left != 0 || extra_right != 0;
  }
  // The dims of the (padded) input, the output and cuDNN's filter as laid
  // out in memory.
  void PaddedInputDims(int64_t out[4]) const { Dims(d.batch, padded_h, padded_w, d.in_depth, out); }
  void InputDims(int64_t out[4]) const { Dims(d.batch, d.in_h, d.in_w, d.in_depth, out); }
  void PadOffset(int64_t out[4], int64_t sign) const {
    Dims(0, sign * extra_top, sign * extra_left, 0, out);
  }
  TensorShape PaddedInputShape() const {
    int64_t v[4];
    PaddedInputDims(v);
    return TensorShape{v[0], v[1], v[2], v[3]};
  }
  // cuDNN's filter (KRSC with NHWC data, KCRS with NCHW) and the
  // permutations between it and TensorFlow's HWIO.
  TensorShape CudnnFilterShape() const {
    return nhwc ? TensorShape{d.out_depth, d.filter_h, d.filter_w, d.in_depth}
                : TensorShape{d.out_depth, d.in_depth, d.filter_h, d.filter_w};
  }
  const int* HwioToCudnn() const {
    static constexpr int kToKrsc[4] = {3, 0, 1, 2};  // [R,S,C,K] -> [K,R,S,C]
    static constexpr int kToKcrs[4] = {3, 2, 0, 1};  // [R,S,C,K] -> [K,C,R,S]
    return nhwc ? kToKrsc : kToKcrs;
  }
  const int* CudnnToHwio() const {
    static constexpr int kFromKrsc[4] = {1, 2, 3, 0};  // [K,R,S,C] -> [R,S,C,K]
    static constexpr int kFromKcrs[4] = {2, 3, 1, 0};  // [K,C,R,S] -> [R,S,C,K]
    return nhwc ? kFromKrsc : kFromKcrs;
  }

 private:
  void Dims(int64_t n, int64_t h, int64_t w, int64_t c, int64_t out[4]) const {
    out[0] = n;
    if (nhwc) {
      out[1] = h;
      out[2] = w;
      out[3] = c;
    } else {
      out[1] = c;
      out[2] = h;
      out[3] = w;
    }
  }
};

// Device pointers of one call: x (input, possibly padded), w (filter in
// cuDNN's layout), y (output / out_backprop).
struct ConvBuffers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
};

enum class ConvPass { kForward, kBackwardData, kBackwardFilter };

// The descriptors of `d` for `pass` (a name for errors).
Status SetUpConv(const char* pass, const Conv2DDims& d, DataType dtype, ConvSetup* s);
// Picks (or recalls) the algorithm of `pass` for `s` and runs it on `b`.
Status RunConvPass(ConvPass pass, OpKernelContext* ctx, CudnnScope* cudnn, ConvSetup* s,
                   const ConvBuffers& b);
// The filter in cuDNN's layout, in a temporary.
Status FilterToCudnn(OpKernelContext* ctx, const ConvSetup& s, const Tensor& hwio, Tensor* tmp);
// The input with the asymmetric padding added, in a temporary (or the input
// itself when cuDNN's symmetric padding covers everything).
Status PaddedInput(OpKernelContext* ctx, const ConvSetup& s, const Tensor& input, Tensor* tmp,
                   void** x);
Status ZeroOutput(OpKernelContext* ctx, Tensor* out);
// The convolutions run in float and half; other types are refused
// (UNIMPLEMENTED naming the op and the type) before placement can reach
// them, since kernels/gpu/gpu_ops_nn.cc registers only those two.
Status CheckType(const char* op, DataType dtype);

}  // namespace af::gpu
