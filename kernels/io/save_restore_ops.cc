// SaveV2 / RestoreV2 and TensorFlow 1's Save / Restore over the checkpoint
// format of core/checkpoint_*.h. They run on the device's pool (file I/O
// must not hold up the thread running cheap kernels).
//
// RestoreV2 reads and checks every requested tensor before it outputs any,
// so a Saver that feeds all of one RestoreV2's outputs into Assigns fails
// the step before a single variable changes when the file is bad.
#include <memory>
#include <string>
#include <vector>

#include "core/checkpoint_format.h"
#include "core/checkpoint_reader.h"
#include "core/checkpoint_shards.h"
#include "core/checkpoint_writer.h"
#include "core/file_access_policy.h"
#include "core/kernel_registry.h"
#include "core/op_kernel.h"

namespace af {
namespace {

Status ScalarString(OpKernelContext* ctx, int input, const char* what, std::string* out) {
  const Tensor& t = ctx->input(input);
  if (t.dtype() != DT_STRING || t.NumElements() != 1)
    return ctx->NodeError(errors::InvalidArgument(what, " must be a single string, got ",
                                                  DataTypeString(t.dtype()), " ",
                                                  t.shape().DebugString()));
  *out = t.data<std::string>()[0];
  if (out->empty()) return ctx->NodeError(errors::InvalidArgument(what, " is empty"));
  return Status::OK();
}

// A string vector input with `n` entries.
Status StringVector(OpKernelContext* ctx, int input, const char* what, int64_t n,
                    const std::string** out) {
  const Tensor& t = ctx->input(input);
  if (t.dtype() != DT_STRING || t.dims() != 1 || t.NumElements() != n)
    return ctx->NodeError(errors::InvalidArgument(what, " must be a vector of ", n,
                                                  " strings, got ", DataTypeString(t.dtype()),
                                                  " ", t.shape().DebugString()));
  *out = t.data<std::string>();
  return Status::OK();
}

// Partitioned-variable slices ("4 5 0,2:-") are not supported yet: only
// whole tensors ("").
Status CheckWholeTensors(OpKernelContext* ctx, const std::string* slices, int64_t n,
                         const std::string* names) {
  for (int64_t i = 0; i < n; ++i) {
    if (!slices[i].empty())
      return ctx->NodeError(errors::Unimplemented(
          "tensor '", names[i], "': shape_and_slices '", slices[i],
          "' selects a slice; only whole tensors (\"\") are supported"));
  }
  return Status::OK();
}

Status WriteCheckpoint(OpKernelContext* ctx, const std::string& file, const std::string* names,
                       int first_tensor_input, int64_t n) {
  // Checked before any directory is made for it.
  Status s = CheckFileAccess(file);
  if (s.ok()) s = CreateParentDirectories(file);
  std::unique_ptr<CheckpointWriter> writer;
  if (s.ok()) s = CheckpointWriter::Create(file, &writer);
  for (int64_t i = 0; s.ok() && i < n; ++i)
    s = writer->Add(names[i], ctx->input(first_tensor_input + static_cast<int>(i)));
  if (s.ok()) s = writer->Finish();
  if (!s.ok()) return ctx->NodeError(s);
  return Status::OK();
}

class SaveV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const int64_t n = ctx->num_inputs() - 3;
    std::string prefix;
    const std::string *names = nullptr, *slices = nullptr;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 0, "prefix", &prefix));
    OP_REQUIRES_OK(ctx, StringVector(ctx, 1, "tensor_names", n, &names));
    OP_REQUIRES_OK(ctx, StringVector(ctx, 2, "shape_and_slices", n, &slices));
    OP_REQUIRES_OK(ctx, CheckWholeTensors(ctx, slices, n, names));
    OP_REQUIRES_OK(ctx, WriteCheckpoint(ctx, checkpoint::DataFilePath(prefix), names, 3, n));
  }
};

class SaveOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const int64_t n = ctx->num_inputs() - 2;
    std::string filename;
    const std::string* names = nullptr;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 0, "filename", &filename));
    OP_REQUIRES_OK(ctx, StringVector(ctx, 1, "tensor_names", n, &names));
    OP_REQUIRES_OK(ctx, WriteCheckpoint(ctx, filename, names, 2, n));
  }
};

// Reads names[i] as dtypes[i] for every i, all or nothing.
Status ReadTensors(OpKernelContext* ctx, const std::string& prefix, const std::string* names,
                   int64_t n, std::vector<Tensor>* out) {
  // A sharded checkpoint (core/checkpoint_shards.h) reads each name from
  // whichever shard holds it.
  std::unique_ptr<CheckpointSet> checkpoint;
  Status s = CheckpointSet::Open(prefix, &checkpoint);
  if (!s.ok()) return ctx->NodeError(s);
  const std::string& file = checkpoint->path();
  out->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const CheckpointReader* reader = nullptr;
    const checkpoint::TensorEntry* e = checkpoint->Find(names[i], &reader);
    if (e == nullptr)
      return ctx->NodeError(errors::NotFound("Key ", names[i], " not found in checkpoint ", file));
    const DataType want = BaseType(ctx->expected_output_dtype(static_cast<int>(i)));
    if (e->dtype != want)
      return ctx->NodeError(errors::InvalidArgument(
          "tensor '", names[i], "' is ", DataTypeString(e->dtype), " in checkpoint ", file,
          ", but the op restores it as ", DataTypeString(want)));
    s = reader->Read(*e, ctx->allocator(), &(*out)[static_cast<size_t>(i)]);
    if (!s.ok()) return ctx->NodeError(s);
  }
  return Status::OK();
}

class RestoreV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const int64_t n = ctx->num_outputs();
    std::string prefix;
    const std::string *names = nullptr, *slices = nullptr;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 0, "prefix", &prefix));
    OP_REQUIRES_OK(ctx, StringVector(ctx, 1, "tensor_names", n, &names));
    OP_REQUIRES_OK(ctx, StringVector(ctx, 2, "shape_and_slices", n, &slices));
    OP_REQUIRES_OK(ctx, CheckWholeTensors(ctx, slices, n, names));
    std::vector<Tensor> tensors;
    OP_REQUIRES_OK(ctx, ReadTensors(ctx, prefix, names, n, &tensors));
    for (int64_t i = 0; i < n; ++i)
      ctx->set_output(static_cast<int>(i), std::move(tensors[static_cast<size_t>(i)]));
  }
};

class RestoreOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string file_pattern, name;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 0, "file_pattern", &file_pattern));
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 1, "tensor_name", &name));
    std::vector<Tensor> tensors;
    OP_REQUIRES_OK(ctx, ReadTensors(ctx, file_pattern, &name, 1, &tensors));
    ctx->set_output(0, std::move(tensors[0]));
  }
};

}  // namespace

class ShardedFilenameOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string basename;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 0, "basename", &basename));
    const Tensor& shard = ctx->input(1);
    const Tensor& num_shards = ctx->input(2);
    OP_REQUIRES(ctx, shard.NumElements() == 1 && num_shards.NumElements() == 1,
                errors::InvalidArgument("shard and num_shards must be scalars"));
    const int32_t i = shard.data<int32_t>()[0], n = num_shards.data<int32_t>()[0];
    OP_REQUIRES(ctx, n >= 1 && i >= 0 && i < n,
                errors::InvalidArgument("shard ", i, " of ", n, " does not exist"));
    Tensor out(DT_STRING, TensorShape{});
    out.scalar<std::string>() = ShardedPrefix(basename, i, n);
    ctx->set_output(0, std::move(out));
  }
};

REGISTER_KERNEL_BUILDER(KernelDefBuilder("SaveV2").Device(DEVICE_CPU).Expensive(), SaveV2Op);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("ShardedFilename").Device(DEVICE_CPU),
                        ShardedFilenameOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Save").Device(DEVICE_CPU).Expensive(), SaveOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("RestoreV2").Device(DEVICE_CPU).Expensive(),
                        RestoreV2Op);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Restore").Device(DEVICE_CPU).Expensive(), RestoreOp);

}  // namespace af
