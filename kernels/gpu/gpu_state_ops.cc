// Const and Assign on a GPU, through the GPU seam alone (so they run alike
// on CUDA and emulated devices): a Const's value is uploaded once when the
// kernel is built; Assign copies on the compute stream, ordered after the
// kernels that produced the value and before those that read the variable.
#include "core/gpu/gpu_device_context.h"
#include "core/kernel_registry.h"
#include "core/tensor_proto.h"
#include "kernels/gpu/gpu_kernel_registry.h"
#include "kernels/state/assign_plan.h"
#include "kernels/state/ref_inputs.h"

namespace af::gpu {
namespace {

class GpuConstOp : public OpKernel {
 public:
  explicit GpuConstOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const tensorflow::TensorProto* proto = nullptr;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &proto));
    Tensor host;
    OP_REQUIRES_OK(ctx, TensorFromProto(*proto, &host, GetCpuAllocator()));
    OP_REQUIRES(
        ctx, host.dtype() == ctx->output_types()[0],
        errors::InvalidArgument("Type mismatch between value (", DataTypeString(host.dtype()),
                                ") and dtype (", DataTypeString(ctx->output_types()[0]), ")"));
    if (LivesInHostMemoryOnGpu(host.dtype())) {
      value_ = host;
      return;
    }
    GpuDeviceContext* gpu = ctx->device()->gpu_context();
    OP_REQUIRES(ctx, gpu != nullptr,
                errors::FailedPrecondition("a GPU Const built for a device without a GPU"));
    Tensor device;
    OP_REQUIRES_OK(ctx, Tensor::Allocate(ctx->device()->GetAllocatorFor(host.dtype()),
                                         host.dtype(), host.shape(), &device));
    // Building a kernel is not a step's hot path: upload and wait.
    Stream* stream = gpu->host_to_device_stream();
    OP_REQUIRES_OK(ctx, stream->CopyHostToDevice(device.raw_data(), host.raw_data(),
                                                 host.TotalBytes()));
    OP_REQUIRES_OK(ctx, stream->Synchronize());
    value_ = device;
  }

  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }

 private:
  Tensor value_;
};

// ref = value for types in device memory, as the CPU Assign decides
// (state::PlanAssign, kernels/state/assign_plan.h): adopt a value nobody
// else holds, write in place into a buffer only the variable holds, else a
// fresh buffer.
class GpuAssignOp : public OpKernel {
 public:
  explicit GpuAssignOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("validate_shape", &validate_shape_));
    ctx->SetStatus(ctx->GetAttr("use_locking", &use_locking_));
  }

  void Compute(OpKernelContext* ctx) override {
    Tensor* lhs = nullptr;
    OP_REQUIRES_OK(ctx, state::RefInput(ctx, 0, &lhs));
    const Tensor& rhs = ctx->input(1);
    GpuDeviceContext* gpu = ctx->device()->gpu_context();
    {
      state::RefInputLocks lock(ctx, {0}, use_locking_);
      state::AssignHow how = state::AssignHow::kCopyToFresh;
      OP_REQUIRES_OK(ctx, ctx->NodeError(state::PlanAssign(*lhs, rhs, validate_shape_, &how)));
      if (how == state::AssignHow::kCopyInPlace) {
        OP_REQUIRES_OK(ctx, CopyOnComputeStream(gpu, rhs, lhs));
      } else if (how == state::AssignHow::kAdopt) {
        *lhs = rhs;
      } else {
        Tensor fresh;
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(rhs.dtype(), rhs.shape(), &fresh));
        OP_REQUIRES_OK(ctx, CopyOnComputeStream(gpu, rhs, &fresh));
        *lhs = std::move(fresh);
      }
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }

 private:
  static Status CopyOnComputeStream(GpuDeviceContext* gpu, const Tensor& from, Tensor* to) {
    if (from.NumElements() == 0) return Status::OK();
    const int source = GpuOrdinalOfAllocator(from.buffer()->allocator());
    if (source < 0) {
      return gpu->compute_stream()->CopyHostToDevice(to->raw_data(), from.raw_data(),
                                                     from.TotalBytes());
    }
    return gpu->compute_stream()->CopyDeviceToDevice(to->raw_data(), from.raw_data(), source,
                                                     from.TotalBytes());
  }

  bool validate_shape_ = true;
  bool use_locking_ = true;
};

const DataTypeVector kDeviceTypes = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Const").Device(DEVICE_GPU), GpuConstOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Assign").Device(DEVICE_GPU).TypeConstraint("T", kDeviceTypes),
                        GpuAssignOp);

}  // namespace af::gpu
