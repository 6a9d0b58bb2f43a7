// FTRL-Proximal (McMahan et al., "Ad Click Prediction", 2013) as
// TensorFlow's ApplyFtrl, ApplyFtrlV2, SparseApplyFtrl and
// SparseApplyFtrlV2: per coordinate, `accum` sums the squared gradients,
// `linear` the gradients less the adaptive-rate correction, and the weight
// is the closed-form minimiser of the L1/L2-regularised model (zero while
// |linear| <= l1, which is what makes FTRL's models sparse). Dense and
// sparse kernels share one row update (optimizer_row_updates.h).
#include <cstdint>
#include <string>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/state/apply_op_base.h"
#include "kernels/state/optimizer_row_updates.h"
#include "kernels/state/ref_inputs.h"
#include "kernels/state/sparse_apply_op_base.h"

namespace af {
namespace {

// Input positions, which differ only in the sparse ops' `indices` before
// the hyper-parameters and V2's l2_shrinkage before lr_power.
constexpr int kGrad = 3;
constexpr int kIndices = 4;

template <bool kSparse, bool kV2>
struct FtrlInputs {
  static constexpr int lr = kSparse ? 5 : 4;
  static constexpr int l1 = lr + 1;
  static constexpr int l2 = lr + 2;
  static constexpr int l2_shrinkage = kV2 ? lr + 3 : -1;
  static constexpr int lr_power = kV2 ? lr + 4 : lr + 3;
};

// A scalar that `ok` accepts, or INVALID_ARGUMENT naming the input and what
// it must be. A negative l1 or l2 would make the proximal step diverge
// rather than shrink, and a non-positive lr divides by zero.
template <typename T, typename Ok>
Status ReadHyper(const OpKernelContext& ctx, int input, const std::string& name,
                 const char* requirement, const Ok& ok, T* value) {
  const Tensor& t = ctx.input(input);
  if (t.dims() != 0)
    return ctx.NodeError(
        errors::InvalidArgument(name, " is not a scalar: ", t.shape().DebugString()));
  *value = t.scalar<T>();
  if (!ok(*value))
    return ctx.NodeError(errors::InvalidArgument(name, " must be ", requirement, ", got ",
                                                 static_cast<double>(*value)));
  return Status::OK();
}

template <typename T, bool kSparse, bool kV2>
Status ReadFtrlHyper(const OpKernelContext& ctx, bool multiply_linear_by_lr,
                     state::FtrlHyper<T>* h) {
  using In = FtrlInputs<kSparse, kV2>;
  const auto positive = [](T x) { return x > T(0); };
  const auto non_negative = [](T x) { return x >= T(0); };
  const auto non_positive = [](T x) { return x <= T(0); };
  AF_RETURN_IF_ERROR(ReadHyper(ctx, In::lr, "lr", "positive", positive, &h->lr));
  AF_RETURN_IF_ERROR(ReadHyper(ctx, In::l1, "l1", "non-negative", non_negative, &h->l1));
  AF_RETURN_IF_ERROR(ReadHyper(ctx, In::l2, "l2", "non-negative", non_negative, &h->l2));
  h->l2_shrinkage = T(0);
  if constexpr (kV2) {
    AF_RETURN_IF_ERROR(ReadHyper(ctx, In::l2_shrinkage, "l2_shrinkage", "non-negative",
                                 non_negative, &h->l2_shrinkage));
  }
  AF_RETURN_IF_ERROR(
      ReadHyper(ctx, In::lr_power, "lr_power", "non-positive", non_positive, &h->lr_power));
  h->has_shrinkage = kV2;
  h->multiply_linear_by_lr = multiply_linear_by_lr;
  return Status::OK();
}

// Index is unused by the dense ops.
template <typename T, typename Index, bool kSparse, bool kV2>
class FtrlOp : public state::SparseApplyOpBase {
 public:
  explicit FtrlOp(OpKernelConstruction* ctx) : SparseApplyOpBase(ctx) {
    ctx->SetStatus(ctx->GetAttr("multiply_linear_by_lr", &multiply_linear_by_lr_));
  }
  void Compute(OpKernelContext* ctx) override {
    {
      state::RefInputLocks lock(ctx, {0, 1, 2}, use_locking_);
      Tensor* refs[3];
      // ReadFtrlHyper checks the hyper-parameters, scalars and values both.
      if constexpr (kSparse) {
        OP_REQUIRES_OK(ctx, CheckSparseInputs<Index>(ctx, {0, 1, 2}, {}, kGrad, kIndices, refs));
      } else {
        OP_REQUIRES_OK(ctx, CheckInputs(ctx, {0, 1, 2}, {}, kGrad, refs));
      }
      state::FtrlHyper<T> h;
      OP_REQUIRES_OK(ctx, (ReadFtrlHyper<T, kSparse, kV2>(*ctx, multiply_linear_by_lr_, &h)));
      T* var = refs[0]->data<T>();
      T* accum = refs[1]->data<T>();
      T* linear = refs[2]->data<T>();
      const T* grad = ctx->input(kGrad).data<T>();
      // Two powers (or square roots) and a division per element dominate.
      constexpr int64_t kCycles = 60;
      const auto update = [&h, var, accum, linear, grad](int64_t at, int64_t g, int64_t n) {
        state::FtrlRow(h, var + at, accum + at, linear + at, grad + g, n);
      };
      if constexpr (kSparse) {
        state::ForEachIndexedRow<Index>(ctx, ctx->input(kIndices), state::RowElements(*refs[0]),
                                        kCycles, update);
      } else {
        state::ParallelUpdate(ctx, refs[0]->NumElements(), kCycles,
                              [&update](int64_t b, int64_t e) { update(b, b, e - b); });
      }
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }

 private:
  bool multiply_linear_by_lr_ = false;
};

template <typename T, typename Index, bool kSparse, bool kV2>
void RegisterFtrlKernel(const char* op) {
  KernelDefBuilder builder(op);
  builder.Device(DEVICE_CPU).TypeConstraint<T>("T");
  if constexpr (kSparse) builder.TypeConstraint<Index>("Tindices");
  KernelRegistry::Global()->Register(builder, [](OpKernelConstruction* c) -> OpKernel* {
    return new FtrlOp<T, Index, kSparse, kV2>(c);
  });
}

template <typename T>
void RegisterFtrl() {
  RegisterFtrlKernel<T, int32_t, false, false>("ApplyFtrl");
  RegisterFtrlKernel<T, int32_t, false, true>("ApplyFtrlV2");
  RegisterFtrlKernel<T, int32_t, true, false>("SparseApplyFtrl");
  RegisterFtrlKernel<T, int64_t, true, false>("SparseApplyFtrl");
  RegisterFtrlKernel<T, int32_t, true, true>("SparseApplyFtrlV2");
  RegisterFtrlKernel<T, int64_t, true, true>("SparseApplyFtrlV2");
}

[[maybe_unused]] const bool kRegistered = [] {
  RegisterFtrl<float>();
  RegisterFtrl<double>();
  return true;
}();

}  // namespace
}  // namespace af
