// The TensorArray V3 kernels. An array belongs to the step that created it
// (StepResources): every run of TensorArrayV3 makes a new one, freed when
// the step ends. The float flow values carry no data: each op passes its
// flow_in through so the graph orders the ops touching one array.
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "core/resource_handle.h"
#include "kernels/step_resource_handles.h"
#include "kernels/tensor_array/tensor_array.h"

namespace af {
namespace {

Status LookupArray(OpKernelContext* ctx, ResourceRef<TensorArray>* out) {
  return LookupStepResource(ctx, 0, "TensorArray", out);
}

// The op's dtype must be the array's.
Status CheckDtype(OpKernelContext* ctx, const TensorArray& array, DataType op_dtype) {
  if (array.dtype() == BaseType(op_dtype)) return Status::OK();
  return ctx->NodeError(errors::InvalidArgument("TensorArray '", array.name(), "' holds ",
                                                DataTypeString(array.dtype()), " but the op ",
                                                "uses ", DataTypeString(op_dtype)));
}

Status Int32Scalar(OpKernelContext* ctx, int input, const char* what, int64_t* value) {
  const Tensor& t = ctx->input(input);
  if (t.dtype() != DT_INT32 || t.dims() != 0)
    return ctx->NodeError(errors::InvalidArgument(what, " must be an int32 scalar, got ",
                                                  DataTypeString(t.dtype()), " ",
                                                  t.shape().DebugString()));
  *value = t.scalar<int32_t>();
  return Status::OK();
}

Status IndexVector(OpKernelContext* ctx, int input, std::vector<int64_t>* out) {
  const Tensor& t = ctx->input(input);
  if (t.dtype() != DT_INT32 || t.dims() != 1)
    return ctx->NodeError(errors::InvalidArgument("indices must be an int32 vector, got ",
                                                  DataTypeString(t.dtype()), " ",
                                                  t.shape().DebugString()));
  out->assign(t.data<int32_t>(), t.data<int32_t>() + t.NumElements());
  return Status::OK();
}

// Copies `src`'s elements to `dst` starting at element `offset`.
void CopyElementsAt(const Tensor& src, Tensor* dst, int64_t offset) {
  const int64_t n = src.NumElements();
  if (n == 0) return;
  if (BaseType(src.dtype()) == DT_STRING) {
    const std::string* from = src.data<std::string>();
    std::string* to = dst->data<std::string>() + offset;
    for (int64_t i = 0; i < n; ++i) to[i] = from[i];
    return;
  }
  const size_t bytes = static_cast<size_t>(DataTypeSize(BaseType(src.dtype())));
  std::memcpy(static_cast<char*>(dst->raw_data()) + offset * bytes, src.raw_data(),
              static_cast<size_t>(n) * bytes);
}

// Rows [start, limit) of `value` viewed as `shape`, sharing the buffer.
Tensor Row(const Tensor& value, int64_t start, int64_t limit, const TensorShape& shape) {
  Tensor rows = value.Slice(start, limit);
  Tensor out;
  rows.Reshaped(shape, &out).ok();  // same element count by construction
  return out;
}

class TensorArrayOp : public OpKernel {
 public:
  explicit TensorArrayOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &options_.dtype));
    ctx->SetStatus(ctx->GetAttr("element_shape", &options_.element_shape));
    ctx->SetStatus(ctx->GetAttr("dynamic_size", &options_.dynamic_size));
    ctx->SetStatus(ctx->GetAttr("clear_after_read", &options_.clear_after_read));
    ctx->SetStatus(ctx->GetAttr("identical_element_shapes", &options_.identical_element_shapes));
    ctx->SetStatus(ctx->GetAttr("tensor_array_name", &array_name_));
    if (array_name_.empty()) array_name_ = name();
  }

  void Compute(OpKernelContext* ctx) override {
    StepResources* resources = nullptr;
    OP_REQUIRES_OK(ctx, StepResourcesOf(ctx, &resources));
    int64_t size = 0;
    OP_REQUIRES_OK(ctx, Int32Scalar(ctx, 0, "size", &size));
    OP_REQUIRES(ctx, size >= 0,
                ctx->NodeError(errors::InvalidArgument("size must be >= 0, got ", size)));
    auto* array = new TensorArray(array_name_, options_, size);
    const std::string id = resources->Add(array_name_, array);
    ctx->set_output(0, MakeStepResourceHandle(ctx, id, TensorArray::kTypeName));
    ctx->set_output(1, Tensor::Scalar<float>(0.0f));
  }

 private:
  TensorArray::Options options_;
  std::string array_name_;
};

// The gradient array for (forward array, source), made on first use with
// the forward array's size and element shape. Its step name derives from
// the forward array's, so every TensorArrayGradV3 of one step with the same
// source finds the same array.
class TensorArrayGradOp : public OpKernel {
 public:
  explicit TensorArrayGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("source", &source_));
  }

  void Compute(OpKernelContext* ctx) override {
    StepResources* resources = nullptr;
    OP_REQUIRES_OK(ctx, StepResourcesOf(ctx, &resources));
    ResourceRef<TensorArray> forward;
    OP_REQUIRES_OK(ctx, LookupArray(ctx, &forward));
    const ResourceHandle* handle = nullptr;
    OP_REQUIRES_OK(ctx, GetResourceHandle(ctx->input(0), "TensorArray", &handle));
    const std::string grad_name = handle->name + "@" + source_;
    ResourceRef<TensorArray> grad;
    OP_REQUIRES_OK(ctx, ctx->NodeError(resources->LookupOrCreate<TensorArray>(
                            grad_name, &grad, [&](TensorArray** made) {
                              TensorArray::Options options;
                              int64_t size = 0;
                              AF_RETURN_IF_ERROR(forward->GradOptions(&options, &size));
                              auto* made_grad =
                                  new TensorArray(forward->name() + "@" + source_, options, size);
                              made_grad->set_forward(forward);
                              *made = made_grad;
                              return Status::OK();
                            })));
    ctx->set_output(0, MakeStepResourceHandle(ctx, grad_name, TensorArray::kTypeName));
    ctx->set_output(1, ctx->input(1));
  }

 private:
  std::string source_;
};

class TensorArrayWriteOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    ResourceRef<TensorArray> array;
    OP_REQUIRES_OK(ctx, LookupArray(ctx, &array));
    OP_REQUIRES_OK(ctx, CheckDtype(ctx, *array, input_type(2)));
    int64_t index = 0;
    OP_REQUIRES_OK(ctx, Int32Scalar(ctx, 1, "index", &index));
    OP_REQUIRES_OK(ctx, ctx->NodeError(array->Write(index, ctx->input(2))));
    ctx->set_output(0, ctx->input(3));
  }
};

class TensorArrayReadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    ResourceRef<TensorArray> array;
    OP_REQUIRES_OK(ctx, LookupArray(ctx, &array));
    OP_REQUIRES_OK(ctx, CheckDtype(ctx, *array, output_type(0)));
    int64_t index = 0;
    OP_REQUIRES_OK(ctx, Int32Scalar(ctx, 1, "index", &index));
    Tensor value;
    OP_REQUIRES_OK(ctx, ctx->NodeError(array->Read(index, &value)));
    ctx->set_output(0, std::move(value));
  }
};

class TensorArrayGatherOp : public OpKernel {
 public:
  explicit TensorArrayGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("element_shape", &element_shape_));
  }

  void Compute(OpKernelContext* ctx) override {
    ResourceRef<TensorArray> array;
    OP_REQUIRES_OK(ctx, LookupArray(ctx, &array));
    OP_REQUIRES_OK(ctx, CheckDtype(ctx, *array, output_type(0)));
    std::vector<int64_t> indices;
    OP_REQUIRES_OK(ctx, IndexVector(ctx, 1, &indices));
    const int64_t n = static_cast<int64_t>(indices.size());
    TensorShape element;
    if (n == 0) {
      // Nothing to read the shape from: the attr or the array must know it.
      PartialTensorShape known;
      OP_REQUIRES_OK(ctx, ctx->NodeError(element_shape_.MergeWith(array->element_shape(), &known)));
      OP_REQUIRES(ctx, known.AsTensorShape(&element),
                  ctx->NodeError(errors::InvalidArgument("TensorArray '", array->name(),
                                                         "': gathering no elements needs a fully "
                                                         "defined element shape, got ",
                                                         known.DebugString())));
      TensorShape out_shape({0});
      for (int64_t d : element.dim_sizes()) out_shape.AddDim(d);
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
      return;
    }
    std::vector<Tensor> values;
    OP_REQUIRES_OK(ctx, ctx->NodeError(array->ReadMany(indices, &values)));
    element = values[0].shape();
    for (int64_t i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, values[i].shape() == element,
                  ctx->NodeError(errors::InvalidArgument(
                      "TensorArray '", array->name(), "' has elements of different shapes: index ",
                      indices[0], " is ", element.DebugString(), " but index ", indices[i], " is ",
                      values[i].shape().DebugString())));
    }
    OP_REQUIRES(
        ctx, element_shape_.IsCompatibleWith(element),
        ctx->NodeError(errors::InvalidArgument(
            "TensorArray '", array->name(), "': the elements have shape ", element.DebugString(),
            ", not the element_shape ", element_shape_.DebugString())));
    TensorShape out_shape({n});
    for (int64_t d : element.dim_sizes()) out_shape.AddDim(d);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t per = element.num_elements();
    for (int64_t i = 0; i < n; ++i) CopyElementsAt(values[i], out, i * per);
  }

 private:
  PartialTensorShape element_shape_;
};

class TensorArrayScatterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    ResourceRef<TensorArray> array;
    OP_REQUIRES_OK(ctx, LookupArray(ctx, &array));
    OP_REQUIRES_OK(ctx, CheckDtype(ctx, *array, input_type(2)));
    std::vector<int64_t> indices;
    OP_REQUIRES_OK(ctx, IndexVector(ctx, 1, &indices));
    const Tensor& value = ctx->input(2);
    OP_REQUIRES(ctx, value.dims() >= 1,
                ctx->NodeError(errors::InvalidArgument("value must have rank >= 1, got shape ",
                                                       value.shape().DebugString())));
    const int64_t n = static_cast<int64_t>(indices.size());
    OP_REQUIRES(ctx, value.dim_size(0) == n,
                ctx->NodeError(errors::InvalidArgument("value has ", value.dim_size(0),
                                                       " rows (shape ", value.shape().DebugString(),
                                                       ") but there are ", n, " indices")));
    TensorShape element = value.shape();
    element.RemoveDim(0);
    std::vector<Tensor> rows;
    rows.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) rows.push_back(Row(value, i, i + 1, element));
    OP_REQUIRES_OK(ctx, ctx->NodeError(array->WriteMany(indices, rows)));
    ctx->set_output(0, ctx->input(3));
  }
};

class TensorArrayConcatOp : public OpKernel {
 public:
  explicit TensorArrayConcatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("element_shape_except0", &except0_));
  }

  void Compute(OpKernelContext* ctx) override {
    ResourceRef<TensorArray> array;
    OP_REQUIRES_OK(ctx, LookupArray(ctx, &array));
    OP_REQUIRES_OK(ctx, CheckDtype(ctx, *array, output_type(0)));
    std::vector<Tensor> values;
    OP_REQUIRES_OK(ctx, ctx->NodeError(array->ReadAll(&values)));
    Tensor* lengths = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({static_cast<int64_t>(values.size())}), &lengths));
    TensorShape rest;
    if (values.empty()) {
      OP_REQUIRES(
          ctx, except0_.AsTensorShape(&rest),
          ctx->NodeError(errors::InvalidArgument("TensorArray '", array->name(),
                                                 "' is empty: concatenating it needs a "
                                                 "fully defined element_shape_except0, got ",
                                                 except0_.DebugString())));
      TensorShape out_shape({0});
      for (int64_t d : rest.dim_sizes()) out_shape.AddDim(d);
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
      return;
    }
    int64_t rows = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      const Tensor& v = values[i];
      OP_REQUIRES(ctx, v.dims() >= 1,
                  ctx->NodeError(errors::InvalidArgument(
                      "TensorArray '", array->name(), "': cannot concatenate element ", i,
                      " of shape ", v.shape().DebugString(), " (a scalar) along axis 0")));
      TensorShape tail = v.shape();
      tail.RemoveDim(0);
      if (i == 0) rest = tail;
      OP_REQUIRES(ctx, tail == rest,
                  ctx->NodeError(errors::InvalidArgument(
                      "TensorArray '", array->name(), "': element ", i, " has shape ",
                      v.shape().DebugString(), " but element 0 has shape ",
                      values[0].shape().DebugString(), "; they must agree after dim 0")));
      lengths->data<int64_t>()[i] = v.dim_size(0);
      rows += v.dim_size(0);
    }
    OP_REQUIRES(ctx, except0_.IsCompatibleWith(rest),
                ctx->NodeError(errors::InvalidArgument(
                    "TensorArray '", array->name(), "': the elements have shape [?] + ",
                    rest.DebugString(), ", not element_shape_except0 ", except0_.DebugString())));
    TensorShape out_shape({rows});
    for (int64_t d : rest.dim_sizes()) out_shape.AddDim(d);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    int64_t offset = 0;
    for (const Tensor& v : values) {
      CopyElementsAt(v, out, offset);
      offset += v.NumElements();
    }
  }

 private:
  PartialTensorShape except0_;
};

class TensorArraySplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    ResourceRef<TensorArray> array;
    OP_REQUIRES_OK(ctx, LookupArray(ctx, &array));
    OP_REQUIRES_OK(ctx, CheckDtype(ctx, *array, input_type(1)));
    const Tensor& value = ctx->input(1);
    const Tensor& lengths = ctx->input(2);
    OP_REQUIRES(ctx, value.dims() >= 1,
                ctx->NodeError(errors::InvalidArgument("value must have rank >= 1, got shape ",
                                                       value.shape().DebugString())));
    OP_REQUIRES(ctx, lengths.dtype() == DT_INT64 && lengths.dims() == 1,
                ctx->NodeError(errors::InvalidArgument("lengths must be an int64 vector, got ",
                                                       lengths.shape().DebugString())));
    const int64_t n = lengths.NumElements();
    int64_t size = 0;
    OP_REQUIRES_OK(ctx, ctx->NodeError(array->Size(&size)));
    // A dynamically sized array grows to take every piece; a fixed one must
    // have exactly one element per piece.
    OP_REQUIRES(
        ctx, size == n || (n > size && array->dynamic_size()),
        ctx->NodeError(errors::InvalidArgument("TensorArray '", array->name(), "' has size ", size,
                                               " but lengths has ", n, " entries")));
    int64_t total = 0;
    const int64_t* len = lengths.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(
          ctx, len[i] >= 0,
          ctx->NodeError(errors::InvalidArgument("lengths[", i, "] is negative: ", len[i])));
      total += len[i];
    }
    OP_REQUIRES(ctx, total == value.dim_size(0),
                ctx->NodeError(errors::InvalidArgument("lengths sum to ", total, " but value has ",
                                                       value.dim_size(0), " rows (shape ",
                                                       value.shape().DebugString(), ")")));
    std::vector<int64_t> indices(static_cast<size_t>(n));
    std::vector<Tensor> pieces;
    pieces.reserve(static_cast<size_t>(n));
    int64_t start = 0;
    for (int64_t i = 0; i < n; ++i) {
      indices[static_cast<size_t>(i)] = i;
      TensorShape piece = value.shape();
      piece.set_dim(0, len[i]);
      pieces.push_back(Row(value, start, start + len[i], piece));
      start += len[i];
    }
    OP_REQUIRES_OK(ctx, ctx->NodeError(array->WriteMany(indices, pieces)));
    ctx->set_output(0, ctx->input(3));
  }
};

class TensorArraySizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    ResourceRef<TensorArray> array;
    OP_REQUIRES_OK(ctx, LookupArray(ctx, &array));
    int64_t size = 0;
    OP_REQUIRES_OK(ctx, ctx->NodeError(array->Size(&size)));
    ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(size)));
  }
};

class TensorArrayCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    ResourceRef<TensorArray> array;
    OP_REQUIRES_OK(ctx, LookupArray(ctx, &array));
    array->Close();
  }
};

}  // namespace

// Every fixed-size type and strings; Gather and Concat copy elements, and a
// gradient array sums numeric ones (other types fail when summed).
REGISTER_KERNEL_BUILDER(KernelDefBuilder("TensorArrayV3")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", MovableTypes())
                            .HostMemory("size"),
                        TensorArrayOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("TensorArrayGradV3").Device(DEVICE_CPU),
                        TensorArrayGradOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("TensorArrayWriteV3")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .HostMemory("index"),
                        TensorArrayWriteOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("TensorArrayReadV3")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", MovableTypes())
                            .HostMemory("index"),
                        TensorArrayReadOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("TensorArrayGatherV3")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", MovableTypes())
                            .HostMemory("indices"),
                        TensorArrayGatherOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("TensorArrayScatterV3")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .HostMemory("indices"),
                        TensorArrayScatterOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("TensorArrayConcatV3")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", MovableTypes())
                            .HostMemory("lengths"),
                        TensorArrayConcatOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("TensorArraySplitV3")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .HostMemory("lengths"),
                        TensorArraySplitOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("TensorArraySizeV3").Device(DEVICE_CPU),
                        TensorArraySizeOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("TensorArrayCloseV3").Device(DEVICE_CPU),
                        TensorArrayCloseOp);

}  // namespace af
