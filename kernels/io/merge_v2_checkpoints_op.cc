// MergeV2Checkpoints: the last step of TensorFlow's sharded save, merging
// the per-device bundles into one (core/bundle/bundle_merge.h).
#include <string>
#include <vector>

#include "core/bundle/bundle_merge.h"
#include "core/file_access_policy.h"
#include "core/kernel_registry.h"
#include "core/op_kernel.h"

namespace af {
namespace {

class MergeV2CheckpointsOp : public OpKernel {
 public:
  explicit MergeV2CheckpointsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("delete_old_dirs", &delete_old_dirs_));
    ctx->SetStatus(ctx->GetAttr("allow_missing_files", &allow_missing_files_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& prefixes = ctx->input(0);
    const Tensor& dest = ctx->input(1);
    OP_REQUIRES(ctx, prefixes.dtype() == DT_STRING && prefixes.dims() == 1,
                ctx->NodeError(errors::InvalidArgument(
                    "checkpoint_prefixes must be a vector of strings, got ",
                    DataTypeString(prefixes.dtype()), " ", prefixes.shape().DebugString())));
    OP_REQUIRES(ctx, dest.dtype() == DT_STRING && dest.NumElements() == 1,
                ctx->NodeError(errors::InvalidArgument(
                    "destination_prefix must be a single string, got ",
                    DataTypeString(dest.dtype()), " ", dest.shape().DebugString())));
    const std::string& destination = dest.data<std::string>()[0];
    OP_REQUIRES(ctx, !destination.empty(),
                ctx->NodeError(errors::InvalidArgument("destination_prefix is empty")));
    std::vector<std::string> inputs(prefixes.data<std::string>(),
                                    prefixes.data<std::string>() + prefixes.NumElements());
    OP_REQUIRES_OK(ctx, ctx->NodeError(CheckFileAccess(destination)));
    for (const std::string& p : inputs) OP_REQUIRES_OK(ctx, ctx->NodeError(CheckFileAccess(p)));
    OP_REQUIRES_OK(ctx, ctx->NodeError(bundle::MergeBundles(inputs, destination, delete_old_dirs_,
                                                            allow_missing_files_)));
  }

 private:
  bool delete_old_dirs_ = true;
  bool allow_missing_files_ = false;
};

REGISTER_KERNEL_BUILDER(KernelDefBuilder("MergeV2Checkpoints").Device(DEVICE_CPU).Expensive(),
                        MergeV2CheckpointsOp);

}  // namespace
}  // namespace af
