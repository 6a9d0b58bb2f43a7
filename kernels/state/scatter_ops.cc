// ScatterUpdate, ScatterAdd, ScatterSub: update rows of a variable in place.
// Every index is checked before any row changes, so a bad index leaves the
// variable as it was.
#include <complex>
#include <string>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/state/ref_inputs.h"

namespace af {
namespace {

enum class Scatter { kUpdate, kAdd, kSub };

template <typename T, typename Index, Scatter kOp>
class ScatterOp : public OpKernel {
 public:
  explicit ScatterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("use_locking", &use_locking_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    {
      state::RefInputLocks lock(ctx, {0}, use_locking_);
      Tensor* ref = nullptr;
      OP_REQUIRES_OK(ctx, state::InitializedRefInput(ctx, 0, &ref));
      OP_REQUIRES_OK(ctx, Apply(ctx, indices, updates, ref));
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }

 private:
  Status Apply(OpKernelContext* ctx, const Tensor& indices, const Tensor& updates, Tensor* ref) {
    if (ref->dims() < 1)
      return ctx->NodeError(errors::InvalidArgument("ref must be at least 1-D, got shape ",
                                                    ref->shape().DebugString()));
    // updates.shape must be indices.shape + ref.shape[1:], or a scalar that
    // every selected element takes.
    TensorShape want = indices.shape();
    for (int d = 1; d < ref->dims(); ++d) want.AddDim(ref->dim_size(d));
    const bool scalar_update = updates.dims() == 0;
    if (!scalar_update && updates.shape() != want)
      return ctx->NodeError(errors::InvalidArgument(
          "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
          "got updates.shape ", updates.shape().DebugString(), ", indices.shape ",
          indices.shape().DebugString(), ", params.shape ", ref->shape().DebugString()));

    const int64_t rows = ref->dim_size(0);
    const int64_t n = indices.NumElements();
    const Index* idx = indices.data<Index>();
    for (int64_t i = 0; i < n; ++i) {
      if (idx[i] < 0 || static_cast<int64_t>(idx[i]) >= rows)
        return ctx->NodeError(errors::InvalidArgument("indices[", i, "] = ", idx[i],
                                                      " is not in [0, ", rows, ")"));
    }
    const int64_t row_size = rows == 0 ? 0 : ref->NumElements() / rows;
    T* dst = ref->data<T>();
    const T* src = updates.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      T* row = dst + static_cast<int64_t>(idx[i]) * row_size;
      for (int64_t j = 0; j < row_size; ++j) {
        const T& u = scalar_update ? src[0] : src[i * row_size + j];
        if constexpr (kOp == Scatter::kUpdate) {
          row[j] = u;
        } else if constexpr (kOp == Scatter::kAdd) {
          row[j] += u;
        } else {
          row[j] -= u;
        }
      }
    }
    return Status::OK();
  }

  bool use_locking_ = false;
};

template <typename T, Scatter kOp>
void RegisterScatter(const char* op) {
  KernelRegistry::Global()->Register(
      KernelDefBuilder(op)
          .Device(DEVICE_CPU)
          .TypeConstraint("T", {DataTypeToEnum<T>::value})
          .TypeConstraint("Tindices", {DT_INT32}),
      [](OpKernelConstruction* c) -> OpKernel* { return new ScatterOp<T, int32_t, kOp>(c); });
  KernelRegistry::Global()->Register(
      KernelDefBuilder(op)
          .Device(DEVICE_CPU)
          .TypeConstraint("T", {DataTypeToEnum<T>::value})
          .TypeConstraint("Tindices", {DT_INT64}),
      [](OpKernelConstruction* c) -> OpKernel* { return new ScatterOp<T, int64_t, kOp>(c); });
}

template <typename T>
void RegisterArithmeticScatters() {
  RegisterScatter<T, Scatter::kUpdate>("ScatterUpdate");
  RegisterScatter<T, Scatter::kAdd>("ScatterAdd");
  RegisterScatter<T, Scatter::kSub>("ScatterSub");
}

[[maybe_unused]] const bool kRegistered = [] {
  RegisterArithmeticScatters<float>();
  RegisterArithmeticScatters<double>();
  RegisterArithmeticScatters<int32_t>();
  RegisterArithmeticScatters<int64_t>();
  RegisterArithmeticScatters<int16_t>();
  RegisterArithmeticScatters<int8_t>();
  RegisterArithmeticScatters<uint8_t>();
  RegisterArithmeticScatters<complex64>();
  RegisterArithmeticScatters<complex128>();
  RegisterScatter<bool, Scatter::kUpdate>("ScatterUpdate");
  RegisterScatter<std::string, Scatter::kUpdate>("ScatterUpdate");
  return true;
}();

}  // namespace
}  // namespace af
