// Row access to resource variables: ResourceGather reads rows,
// ResourceScatterAdd and ResourceScatterUpdate change them in place. Every
// index is checked before any row changes, so a bad index leaves the
// variable as it was.
#include <complex>
#include <cstring>
#include <mutex>
#include <string>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/state/resource_variable_util.h"

namespace af {
namespace {

template <typename Index>
Status CheckIndices(OpKernelContext* ctx, const Tensor& indices, int64_t rows) {
  const Index* idx = indices.data<Index>();
  for (int64_t i = 0; i < indices.NumElements(); ++i) {
    if (idx[i] < 0 || static_cast<int64_t>(idx[i]) >= rows)
      return ctx->NodeError(
          errors::InvalidArgument("indices[", i, "] = ", idx[i], " is not in [0, ", rows, ")"));
  }
  return Status::OK();
}

// output = variable[indices] along dimension batch_dims (TensorFlow's
// gather with axis = batch_dims): the variable viewed as [batch, N, inner],
// the indices as [batch, K]; output indices.shape + variable.shape[batch_dims
// + 1:]. The value is read under the lock but copied without it: an update
// never writes a buffer a reader shares.
template <typename Index>
class ResourceGatherOp : public OpKernel {
 public:
  explicit ResourceGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
    ctx->SetStatus(ctx->GetAttr("batch_dims", &batch_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    Tensor params;
    OP_REQUIRES_OK(ctx, state::ReadVariableValue(ctx, 0, dtype_, &params));
    const Tensor& indices = ctx->input(1);
    // A negative batch_dims counts from the end of the indices' dims.
    const int64_t b = batch_dims_ < 0 ? batch_dims_ + indices.dims() : batch_dims_;
    OP_REQUIRES(ctx, b >= 0 && b <= indices.dims(),
                ctx->NodeError(errors::InvalidArgument("batch_dims ", batch_dims_,
                                                       " is out of range for indices of shape ",
                                                       indices.shape().DebugString())));
    OP_REQUIRES(ctx, params.dims() > b,
                ctx->NodeError(errors::InvalidArgument(
                    "params must have more than batch_dims = ", b, " dimensions, got shape ",
                    params.shape().DebugString())));
    int64_t batch = 1;
    for (int d = 0; d < b; ++d) {
      OP_REQUIRES(ctx, params.dim_size(d) == indices.dim_size(d),
                  ctx->NodeError(errors::InvalidArgument(
                      "params.shape[", d, "] = ", params.dim_size(d), " but indices.shape[", d,
                      "] = ", indices.dim_size(d), ": the batch dimensions must match")));
      batch *= params.dim_size(d);
    }
    const int64_t rows = params.dim_size(static_cast<int>(b));
    OP_REQUIRES_OK(ctx, CheckIndices<Index>(ctx, indices, rows));
    TensorShape out_shape = indices.shape();
    for (int d = static_cast<int>(b) + 1; d < params.dims(); ++d)
      out_shape.AddDim(params.dim_size(d));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t inner = params.NumElements() / (batch * rows);
    const int64_t k = indices.NumElements() / batch;
    const Index* idx = indices.data<Index>();
    // Output row i (of batch i / k) is row idx[i] of that batch's block.
    auto source_row = [&](int64_t i) { return (i / k) * rows + static_cast<int64_t>(idx[i]); };
    const int64_t n = indices.NumElements();
    if (BaseType(dtype_) == DT_STRING) {
      const std::string* src = params.data<std::string>();
      std::string* dst = out->data<std::string>();
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < inner; ++j) dst[i * inner + j] = src[source_row(i) * inner + j];
      return;
    }
    const size_t row_bytes = static_cast<size_t>(inner) * DataTypeSize(BaseType(dtype_));
    const char* src = static_cast<const char*>(params.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(dst + i * row_bytes, src + source_row(i) * row_bytes, row_bytes);
  }

 private:
  DataType dtype_ = DT_INVALID;
  int64_t batch_dims_ = 0;
};

enum class Scatter { kUpdate, kAdd };

template <typename T, typename Index, Scatter kOp>
class ResourceScatterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    ResourceRef<ResourceVariable> var;
    OP_REQUIRES_OK(ctx, state::LookupVariable(ctx, 0, &var));
    OP_REQUIRES_OK(ctx, state::CheckVariableDtype(ctx, 0, *var, DataTypeToEnum<T>::value));
    std::lock_guard<std::mutex> lock(*var->mu());
    OP_REQUIRES_OK(ctx, Apply(ctx, var.get(), ctx->input(1), ctx->input(2)));
  }

 private:
  Status Apply(OpKernelContext* ctx, ResourceVariable* var, const Tensor& indices,
               const Tensor& updates) {
    Tensor* params = nullptr;
    AF_RETURN_IF_ERROR(state::InitializedValue(ctx, 0, var, &params));
    if (params->dims() < 1)
      return ctx->NodeError(errors::InvalidArgument("params must be at least 1-D, got shape ",
                                                    params->shape().DebugString()));
    // updates.shape must be indices.shape + params.shape[1:], or a scalar
    // that every selected element takes.
    TensorShape want = indices.shape();
    for (int d = 1; d < params->dims(); ++d) want.AddDim(params->dim_size(d));
    const bool scalar_update = updates.dims() == 0;
    if (!scalar_update && updates.shape() != want)
      return ctx->NodeError(errors::InvalidArgument(
          "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
          "got updates.shape ",
          updates.shape().DebugString(), ", indices.shape ", indices.shape().DebugString(),
          ", params.shape ", params->shape().DebugString()));
    const int64_t rows = params->dim_size(0);
    AF_RETURN_IF_ERROR(CheckIndices<Index>(ctx, indices, rows));
    AF_RETURN_IF_ERROR(state::PrepareToUpdate(ctx, var));
    const int64_t row_size = rows == 0 ? 0 : params->NumElements() / rows;
    const int64_t n = indices.NumElements();
    const Index* idx = indices.data<Index>();
    T* dst = params->data<T>();
    const T* src = updates.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      T* row = dst + static_cast<int64_t>(idx[i]) * row_size;
      for (int64_t j = 0; j < row_size; ++j) {
        const T& u = scalar_update ? src[0] : src[i * row_size + j];
        if constexpr (kOp == Scatter::kUpdate) {
          row[j] = u;
        } else {
          row[j] += u;
        }
      }
    }
    return Status::OK();
  }
};

template <typename T, Scatter kOp>
void RegisterScatter(const char* op) {
  KernelRegistry::Global()->Register(KernelDefBuilder(op)
                                         .Device(DEVICE_CPU)
                                         .TypeConstraint("dtype", {DataTypeToEnum<T>::value})
                                         .TypeConstraint("Tindices", {DT_INT32}),
                                     [](OpKernelConstruction* c) -> OpKernel* {
                                       return new ResourceScatterOp<T, int32_t, kOp>(c);
                                     });
  KernelRegistry::Global()->Register(KernelDefBuilder(op)
                                         .Device(DEVICE_CPU)
                                         .TypeConstraint("dtype", {DataTypeToEnum<T>::value})
                                         .TypeConstraint("Tindices", {DT_INT64}),
                                     [](OpKernelConstruction* c) -> OpKernel* {
                                       return new ResourceScatterOp<T, int64_t, kOp>(c);
                                     });
}

template <typename T>
void RegisterArithmeticScatters() {
  RegisterScatter<T, Scatter::kUpdate>("ResourceScatterUpdate");
  RegisterScatter<T, Scatter::kAdd>("ResourceScatterAdd");
}

[[maybe_unused]] const bool kRegistered = [] {
  KernelRegistry::Global()->Register(
      KernelDefBuilder("ResourceGather").Device(DEVICE_CPU).TypeConstraint("Tindices", {DT_INT32}),
      [](OpKernelConstruction* c) -> OpKernel* { return new ResourceGatherOp<int32_t>(c); });
  KernelRegistry::Global()->Register(
      KernelDefBuilder("ResourceGather").Device(DEVICE_CPU).TypeConstraint("Tindices", {DT_INT64}),
      [](OpKernelConstruction* c) -> OpKernel* { return new ResourceGatherOp<int64_t>(c); });
  RegisterArithmeticScatters<float>();
  RegisterArithmeticScatters<double>();
  RegisterArithmeticScatters<int32_t>();
  RegisterArithmeticScatters<int64_t>();
  RegisterArithmeticScatters<int16_t>();
  RegisterArithmeticScatters<int8_t>();
  RegisterArithmeticScatters<uint8_t>();
  RegisterArithmeticScatters<complex64>();
  RegisterArithmeticScatters<complex128>();
  RegisterScatter<bool, Scatter::kUpdate>("ResourceScatterUpdate");
  RegisterScatter<std::string, Scatter::kUpdate>("ResourceScatterUpdate");
  return true;
}();

}  // namespace
}  // namespace af
