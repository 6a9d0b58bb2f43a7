// SaveV2 / RestoreV2 and TensorFlow 1's Save / Restore over the checkpoint
// formats of core/checkpoint_*.h and core/bundle/. SaveV2 writes
// TensorFlow's tensor bundle (PREFIX.index + PREFIX.data-00000-of-00001)
// unless ACTORFLOW_CHECKPOINT_FORMAT=afckpt (core/checkpoint_write_format.h);
// Save writes an .afckpt file at exactly the name it is given; the
// restores read either format. They run on the device's pool (file I/O
// must not hold up the thread running cheap kernels).
//
// RestoreV2 reads and checks every requested tensor before it outputs any,
// so a Saver that feeds all of one RestoreV2's outputs into Assigns fails
// the step before a single variable changes when the file is bad.
//
// A non-empty shape_and_slices entry ("10 4 4,3:0,4") saves a tensor as a
// slice of a larger one, a partitioned variable's shard, and restores any
// region of the whole from whatever slices were saved
// (core/checkpoint_slices.h).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/bundle/bundle_format.h"
#include "core/bundle/bundle_writer.h"
#include "core/checkpoint_format.h"
#include "core/checkpoint_reader.h"
#include "core/checkpoint_shards.h"
#include "core/checkpoint_slices.h"
#include "core/checkpoint_write_format.h"
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

// The checkpoint key of each tensor: its name, or for a slice of a
// partitioned variable the name plus the slice (core/checkpoint_slices.h).
// Everything is checked before the file is created.
Status CheckpointKeys(OpKernelContext* ctx, const std::string* names, const std::string* slices,
                      int first_tensor_input, int64_t n, std::vector<std::string>* keys) {
  // Per name: the full shape its slices are of (empty vector: saved whole),
  // so one save cannot leave a tensor that no restore could assemble.
  std::map<std::string, std::vector<int64_t>> saved;
  for (int64_t i = 0; i < n; ++i) {
    const std::string& name = names[i];
    if (name.find(kSliceKeyMarker) != std::string::npos)
      return ctx->NodeError(errors::InvalidArgument("tensor name '", name, "' contains '",
                                                    kSliceKeyMarker,
                                                    "', which marks a slice in checkpoint keys"));
    if (slices == nullptr || slices[i].empty()) {
      if (auto it = saved.find(name); it != saved.end() && !it->second.empty())
        return ctx->NodeError(
            errors::InvalidArgument("tensor '", name, "' is saved both whole and as slices"));
      saved.emplace(name, std::vector<int64_t>{});
      keys->push_back(name);
      continue;
    }
    TensorSliceSpec slice;
    Status s = ParseTensorSliceSpec(slices[i], &slice);
    if (!s.ok()) return ctx->NodeError(s.WithContext("tensor '" + name + "'"));
    const Tensor& t = ctx->input(first_tensor_input + static_cast<int>(i));
    if (t.shape().dim_vector() != slice.length)
      return ctx->NodeError(errors::InvalidArgument("tensor '", name, "' is given as slice '",
                                                    slices[i], "' but has shape ",
                                                    t.shape().DebugString()));
    auto [it, inserted] = saved.emplace(name, slice.full_shape);
    if (!inserted && it->second != slice.full_shape)
      return ctx->NodeError(errors::InvalidArgument(
          "tensor '", name, "': slice '", slices[i],
          it->second.empty() ? std::string("' is saved with the whole tensor")
                             : std::string("' is of another full shape than its other slices")));
    keys->push_back(SliceKey(name, slice));
  }
  return Status::OK();
}

Status WriteCheckpoint(OpKernelContext* ctx, const std::string& file,
                       const std::vector<std::string>& keys, int first_tensor_input) {
  // Checked before any directory is made for it.
  Status s = CheckFileAccess(file);
  if (s.ok()) s = CreateParentDirectories(file);
  std::unique_ptr<CheckpointWriter> writer;
  if (s.ok()) s = CheckpointWriter::Create(file, &writer);
  for (size_t i = 0; s.ok() && i < keys.size(); ++i)
    s = writer->Add(keys[i], ctx->input(first_tensor_input + static_cast<int>(i)));
  if (s.ok()) s = writer->Finish();
  if (!s.ok()) return ctx->NodeError(s);
  return Status::OK();
}

// The same tensors as a tensor bundle: a slice goes under TensorFlow's slice
// key, recorded in its full tensor's entry (core/bundle/bundle_format.h).
Status WriteBundle(OpKernelContext* ctx, const std::string& prefix, const std::string* names,
                   const std::string* slices, int first_tensor_input, int64_t n) {
  Status s = CheckFileAccess(bundle::MetaFilename(prefix));
  if (s.ok()) s = CreateParentDirectories(bundle::MetaFilename(prefix));
  std::unique_ptr<bundle::BundleWriter> writer;
  if (s.ok()) s = bundle::BundleWriter::Create(prefix, &writer);
  for (int64_t i = 0; s.ok() && i < n; ++i) {
    const Tensor& t = ctx->input(first_tensor_input + static_cast<int>(i));
    if (slices[i].empty()) {
      s = writer->Add(names[i], t);
      continue;
    }
    TensorSliceSpec slice;
    s = ParseTensorSliceSpec(slices[i], &slice);  // checked by CheckpointKeys already
    if (s.ok()) s = writer->AddSlice(names[i], slice, t);
  }
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
    std::vector<std::string> keys;
    OP_REQUIRES_OK(ctx, CheckpointKeys(ctx, names, slices, 3, n, &keys));
    CheckpointWriteFormat format;
    OP_REQUIRES_OK(ctx, CheckpointWriteFormatFromEnv(&format));
    if (format == CheckpointWriteFormat::kBundle) {
      OP_REQUIRES_OK(ctx, WriteBundle(ctx, prefix, names, slices, 3, n));
    } else {
      OP_REQUIRES_OK(ctx, WriteCheckpoint(ctx, checkpoint::DataFilePath(prefix), keys, 3));
    }
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
    std::vector<std::string> keys;
    OP_REQUIRES_OK(ctx, CheckpointKeys(ctx, names, nullptr, 2, n, &keys));
    OP_REQUIRES_OK(ctx, WriteCheckpoint(ctx, filename, keys, 2));
  }
};

// Reads names[i] (the part slices[i] selects; all of it when slices is
// null or the entry empty) as the op's output dtype i, for every i. Every
// tensor is planned from the index and then read, CRCs checked, before
// the caller sets any output: all or nothing.
Status ReadTensors(OpKernelContext* ctx, const std::string& prefix, const std::string* names,
                   const std::string* slices, int64_t n, std::vector<Tensor>* out) {
  // A sharded checkpoint (core/checkpoint_shards.h) reads each name from
  // whichever shard holds it, and a slice from every shard holding part of it.
  std::unique_ptr<CheckpointSet> checkpoint;
  Status s = CheckpointSet::Open(prefix, &checkpoint);
  if (!s.ok()) return ctx->NodeError(s);
  std::vector<SliceRestorePlan> plans(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const DataType want = BaseType(ctx->expected_output_dtype(static_cast<int>(i)));
    s = PlanSliceRestore(*checkpoint, names[i], slices == nullptr ? std::string() : slices[i], want,
                         &plans[static_cast<size_t>(i)]);
    if (!s.ok()) return ctx->NodeError(s);
  }
  out->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    s = ExecuteSliceRestore(plans[static_cast<size_t>(i)], ctx->allocator(),
                            &(*out)[static_cast<size_t>(i)]);
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
    std::vector<Tensor> tensors;
    OP_REQUIRES_OK(ctx, ReadTensors(ctx, prefix, names, slices, n, &tensors));
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
    OP_REQUIRES_OK(ctx, ReadTensors(ctx, file_pattern, &name, nullptr, 1, &tensors));
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
