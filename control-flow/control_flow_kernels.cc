// CPU kernels of the loop and conditional primitives. The interesting
// semantics (frames, iterations, deadness) live in the executor; the
// kernels only route values.
#include <string>
#include <string_view>

#include "core/kernel_registry.h"

namespace af {
namespace {

// Output 0 takes input 0 as it is, a reference staying a reference.
void ForwardInput(OpKernelContext* ctx, int in, int out) {
  if (ctx->input_is_ref(in))
    ctx->set_output_ref(out, ctx->input_ref_mutex(in), ctx->mutable_input(in));
  else
    ctx->set_output(out, ctx->input(in));
}

class SwitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(1);
    OP_REQUIRES(ctx, pred.dims() == 0 && pred.dtype() == DT_BOOL && pred.IsInitialized(),
                ctx->NodeError(errors::InvalidArgument(
                    "the predicate must be a bool scalar, got a ",
                    DataTypeString(pred.dtype()), " tensor of shape ",
                    pred.shape().DebugString())));
    // The untaken output stays unset: the executor treats it as dead.
    ForwardInput(ctx, 0, pred.scalar<bool>() ? 1 : 0);
  }
};

// Switch to one of N outputs (Case's lowering). TensorFlow runs the last
// branch for an index out of range, so the data goes to the last output.
class SwitchNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& index = ctx->input(1);
    OP_REQUIRES(ctx, index.dims() == 0 && index.dtype() == DT_INT32 && index.IsInitialized(),
                ctx->NodeError(errors::InvalidArgument(
                    "the output index must be an int32 scalar, got a ",
                    DataTypeString(index.dtype()), " tensor of shape ",
                    index.shape().DebugString())));
    const int32_t i = index.scalar<int32_t>();
    const int n = ctx->num_outputs();
    ForwardInput(ctx, 0, i >= 0 && i < n ? i : n - 1);
  }
};

// If's reading of a condition that is not a bool.
class ToBoolOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    bool truth = x.NumElements() > 0;
    if (x.dims() == 0) truth = ScalarIsTrue(x);
    ctx->set_output(0, Tensor::Scalar<bool>(truth));
  }

 private:
  static bool ScalarIsTrue(const Tensor& x) {
    switch (BaseType(x.dtype())) {
      case DT_BOOL: return x.scalar<bool>();
      case DT_FLOAT: return x.scalar<float>() != 0.0f;
      case DT_DOUBLE: return x.scalar<double>() != 0.0;
      case DT_INT8: return x.scalar<int8_t>() != 0;
      case DT_UINT8: return x.scalar<uint8_t>() != 0;
      case DT_INT16: return x.scalar<int16_t>() != 0;
      case DT_UINT16: return x.scalar<uint16_t>() != 0;
      case DT_INT32: return x.scalar<int32_t>() != 0;
      case DT_UINT32: return x.scalar<uint32_t>() != 0;
      case DT_INT64: return x.scalar<int64_t>() != 0;
      case DT_UINT64: return x.scalar<uint64_t>() != 0;
      case DT_STRING: return !x.scalar<std::string>().empty();
      default: {
        // Half, bfloat16, complex: zero has all value bits clear (a
        // negative zero only its sign bit).
        const std::string_view bytes = x.tensor_data();
        for (size_t b = 0; b < bytes.size(); ++b) {
          const unsigned char byte = static_cast<unsigned char>(bytes[b]);
          if (byte != 0 && !(byte == 0x80 && IsSignByte(x.dtype(), b, bytes.size()))) return true;
        }
        return false;
      }
    }
  }
  // The byte of a value's sign bit: the last byte of each little-endian
  // component (complex values have two).
  static bool IsSignByte(DataType dtype, size_t b, size_t size) {
    const bool is_complex = BaseType(dtype) == DT_COMPLEX64 || BaseType(dtype) == DT_COMPLEX128;
    const size_t component = is_complex ? size / 2 : size;
    return (b + 1) % component == 0;
  }
};

class MergeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      if (!ctx->has_input(i)) continue;
      ForwardInput(ctx, i, 0);
      ctx->set_output(1, Tensor::Scalar<int32_t>(i));
      return;
    }
    ctx->SetStatus(ctx->NodeError(errors::Internal("Merge ran without a live input")));
  }
};

class ForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ForwardInput(ctx, 0, 0); }
};

class LoopCondOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(0);
    OP_REQUIRES(ctx, pred.dims() == 0 && pred.dtype() == DT_BOOL,
                ctx->NodeError(errors::InvalidArgument(
                    "the loop condition must be a bool scalar, got shape ",
                    pred.shape().DebugString())));
    ctx->set_output(0, pred);
  }
};

class ControlTriggerOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
};

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Switch").Device(DEVICE_CPU), SwitchOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("RefSwitch").Device(DEVICE_CPU), SwitchOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("_SwitchN").Device(DEVICE_CPU), SwitchNOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("ToBool").Device(DEVICE_CPU), ToBoolOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Merge").Device(DEVICE_CPU), MergeOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("RefMerge").Device(DEVICE_CPU), MergeOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Enter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("RefEnter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Exit").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("RefExit").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("NextIteration").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("RefNextIteration").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("LoopCond").Device(DEVICE_CPU), LoopCondOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("ControlTrigger").Device(DEVICE_CPU), ControlTriggerOp);

}  // namespace
}  // namespace af
