// Cast from a type that lives in host memory on a GPU (int32, int64, bool)
// to a floating type, which lives in device memory: converted on the host
// into pinned memory and copied in on the compute stream, through the GPU
// seam alone (so CUDA and emulated devices run the same code). Gradients
// need it every step (Mean's gradient casts an element count to float);
// without it that Cast would run on the CPU and cost a round trip.
#include <cstring>

#include "core/gpu/gpu_device_context.h"
#include "core/kernel_registry.h"

namespace af::gpu {
namespace {

template <typename To>
To FromDouble(double v) {
  if constexpr (std::is_same_v<To, half>) {
    return FloatToHalf(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bfloat16>) {
    return FloatToBFloat16(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

template <typename To>
void Convert(const Tensor& in, Tensor* out) {
  To* dst = out->data<To>();
  const int64_t n = in.NumElements();
  switch (BaseType(in.dtype())) {
    case DT_INT32:
      for (int64_t i = 0; i < n; ++i) dst[i] = FromDouble<To>(in.data<int32_t>()[i]);
      break;
    case DT_INT64:
      for (int64_t i = 0; i < n; ++i)
        dst[i] = FromDouble<To>(static_cast<double>(in.data<int64_t>()[i]));
      break;
    default:  // DT_BOOL
      for (int64_t i = 0; i < n; ++i) dst[i] = FromDouble<To>(in.data<bool>()[i] ? 1.0 : 0.0);
      break;
  }
}

class HostToDeviceCastOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    GpuDeviceContext* gpu = ctx->device()->gpu_context();
    OP_REQUIRES(ctx, gpu != nullptr,
                ctx->NodeError(errors::Internal("a GPU Cast runs on a device without a GPU")));
    const Tensor& in = ctx->input(0);
    const DataType to = output_type(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    Tensor staged;
    OP_REQUIRES_OK(ctx, Tensor::Allocate(gpu->pinned_host_allocator(), to, in.shape(), &staged));
    switch (to) {
      case DT_FLOAT: Convert<float>(in, &staged); break;
      case DT_DOUBLE: Convert<double>(in, &staged); break;
      case DT_HALF: Convert<half>(in, &staged); break;
      default: Convert<bfloat16>(in, &staged); break;
    }
    Stream* stream = gpu->compute_stream();
    OP_REQUIRES_OK(ctx, stream->CopyHostToDevice(out->raw_data(), staged.raw_data(),
                                                 staged.TotalBytes()));
    // The staging buffer stays alive until the stream has copied it.
    OP_REQUIRES_OK(ctx, stream->AddCallback([staged] {}));
  }
};

const DataTypeVector kHostSources = {DT_INT32, DT_INT64, DT_BOOL};
const DataTypeVector kFloatTargets = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Cast")
                            .Device(DEVICE_GPU)
                            .TypeConstraint("SrcT", kHostSources)
                            .TypeConstraint("DstT", kFloatTargets),
                        HostToDeviceCastOp);

}  // namespace af::gpu
