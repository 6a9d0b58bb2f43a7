// ScatterNdUpdate, ScatterNdAdd, ScatterNdSub: write updates[i...] into
// the slice of a variable that indices[i..., :] names. Every index row is
// checked before any slice changes, so a bad index leaves the variable as
// it was (with bad_indices_policy IGNORE such rows are skipped instead).
#include <string>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/nd_index.h"
#include "kernels/state/ref_inputs.h"

namespace af {
namespace {

enum class NdScatter { kUpdate, kAdd, kSub };

template <typename T, NdScatter kOp>
class ScatterNdUpdateOp : public OpKernel {
 public:
  explicit ScatterNdUpdateOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_locking_));
    OP_REQUIRES_OK(ctx, ParseBadIndicesPolicy(ctx, &policy_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    {
      state::RefInputLocks lock(ctx, {0}, use_locking_);
      Tensor* ref = nullptr;
      OP_REQUIRES_OK(ctx, state::InitializedRefInput(ctx, 0, &ref));
      Status status;
      VisitIndexType(indices.dtype(), [&](auto index) {
        using I = typename decltype(index)::type;
        status = Apply<I>(ctx, indices, updates, ref);
      });
      OP_REQUIRES(ctx, status.ok(), status);
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }

 private:
  template <typename Index>
  Status Apply(OpKernelContext* ctx, const Tensor& indices, const Tensor& updates, Tensor* ref) {
    NdSlices s;
    AF_RETURN_IF_ERROR(MakeNdSlices(ctx, indices, ref->shape(), "ref", &s));
    AF_RETURN_IF_ERROR(CheckNdUpdatesShape(ctx, updates, s, "ref", ref->shape()));
    const Index* idx = indices.data<Index>();
    if (policy_ == BadIndicesPolicy::kError) {
      for (int64_t i = 0; i < s.count; ++i) {
        if (NdSliceNumber(idx + i * s.depth, s) < 0)
          return BadNdIndex(ctx, indices, s, i, "ref", ref->shape());
      }
    }
    T* dst = ref->data<T>();
    const T* src = updates.data<T>();
    for (int64_t i = 0; i < s.count; ++i, src += s.slice_size) {
      const int64_t slice = NdSliceNumber(idx + i * s.depth, s);
      if (slice < 0) continue;  // only under IGNORE: the loop above refused them otherwise
      T* row = dst + slice * s.slice_size;
      for (int64_t j = 0; j < s.slice_size; ++j) {
        if constexpr (kOp == NdScatter::kUpdate)
          row[j] = src[j];
        else if constexpr (kOp == NdScatter::kAdd)
          row[j] += src[j];
        else
          row[j] -= src[j];
      }
    }
    return Status::OK();
  }

  bool use_locking_ = false;
  BadIndicesPolicy policy_ = BadIndicesPolicy::kError;
};

template <typename T, NdScatter kOp>
void RegisterScatterNd(const char* op) {
  KernelRegistry::Global()->Register(
      KernelDefBuilder(op).Device(DEVICE_CPU).TypeConstraint("T", {DataTypeToEnum<T>::value}),
      [](OpKernelConstruction* c) -> OpKernel* { return new ScatterNdUpdateOp<T, kOp>(c); });
}

template <typename T>
void RegisterArithmeticScatterNds() {
  RegisterScatterNd<T, NdScatter::kUpdate>("ScatterNdUpdate");
  RegisterScatterNd<T, NdScatter::kAdd>("ScatterNdAdd");
  RegisterScatterNd<T, NdScatter::kSub>("ScatterNdSub");
}

[[maybe_unused]] const bool kRegistered = [] {
  RegisterArithmeticScatterNds<float>();
  RegisterArithmeticScatterNds<double>();
  RegisterArithmeticScatterNds<int32_t>();
  RegisterArithmeticScatterNds<int64_t>();
  RegisterScatterNd<bool, NdScatter::kUpdate>("ScatterNdUpdate");
  RegisterScatterNd<std::string, NdScatter::kUpdate>("ScatterNdUpdate");
  return true;
}();

}  // namespace
}  // namespace af
