// SparseApplyMomentum, SparseApplyAdagrad, SparseApplyAdam,
// SparseApplyRMSProp: the fused optimizer updates on only the rows a sparse
// gradient names (an embedding step touches k rows of a V-row table, not
// V). Rows are updated in index order, a repeated index again, as
// TensorFlow does (SparseApplyAdam is ours: lazy Adam's rows in one pass).
#include <cstdint>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/state/optimizer_row_updates.h"
#include "kernels/state/ref_inputs.h"
#include "kernels/state/sparse_apply_op_base.h"

namespace af {
namespace {

template <typename T, typename Index>
class SparseApplyMomentumOp : public state::SparseApplyOpBase {
 public:
  explicit SparseApplyMomentumOp(OpKernelConstruction* ctx) : SparseApplyOpBase(ctx) {
    ctx->SetStatus(ctx->GetAttr("use_nesterov", &use_nesterov_));
  }
  void Compute(OpKernelContext* ctx) override {
    {
      state::RefInputLocks lock(ctx, {0, 1}, use_locking_);
      Tensor* refs[2];
      OP_REQUIRES_OK(ctx, CheckSparseInputs<Index>(ctx, {0, 1}, {2, 5}, 3, 4, refs));
      T* var = refs[0]->data<T>();
      T* accum = refs[1]->data<T>();
      const T lr = ctx->input(2).scalar<T>();
      const T* grad = ctx->input(3).data<T>();
      const T momentum = ctx->input(5).scalar<T>();
      const bool nesterov = use_nesterov_;
      state::ForEachIndexedRow<Index>(ctx, ctx->input(4), state::RowElements(*refs[0]), 6,
                                      [=](int64_t at, int64_t g, int64_t n) {
                                        state::MomentumRow(var + at, accum + at, grad + g, n, lr,
                                                           momentum, nesterov);
                                      },
                                      [=](int64_t at) {
                                        __builtin_prefetch(var + at, 1);
                                        __builtin_prefetch(accum + at, 1);
                                      });
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }

 private:
  bool use_nesterov_ = false;
};

template <typename T, typename Index>
class SparseApplyAdagradOp : public state::SparseApplyOpBase {
 public:
  explicit SparseApplyAdagradOp(OpKernelConstruction* ctx) : SparseApplyOpBase(ctx) {
    ctx->SetStatus(ctx->GetAttr("update_slots", &update_slots_));
  }
  void Compute(OpKernelContext* ctx) override {
    {
      state::RefInputLocks lock(ctx, {0, 1}, use_locking_);
      Tensor* refs[2];
      OP_REQUIRES_OK(ctx, CheckSparseInputs<Index>(ctx, {0, 1}, {2}, 3, 4, refs));
      T* var = refs[0]->data<T>();
      T* accum = refs[1]->data<T>();
      const T lr = ctx->input(2).scalar<T>();
      const T* grad = ctx->input(3).data<T>();
      const bool update_slots = update_slots_;
      state::ForEachIndexedRow<Index>(ctx, ctx->input(4), state::RowElements(*refs[0]), 15,
                                      [=](int64_t at, int64_t g, int64_t n) {
                                        state::AdagradRow(var + at, accum + at, grad + g, n, lr,
                                                          update_slots);
                                      },
                                      [=](int64_t at) {
                                        __builtin_prefetch(var + at, 1);
                                        __builtin_prefetch(accum + at, 1);
                                      });
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }

 private:
  bool update_slots_ = true;
};

template <typename T, typename Index>
class SparseApplyAdamOp : public state::SparseApplyOpBase {
 public:
  explicit SparseApplyAdamOp(OpKernelConstruction* ctx) : SparseApplyOpBase(ctx) {
    ctx->SetStatus(ctx->GetAttr("use_nesterov", &use_nesterov_));
  }
  void Compute(OpKernelContext* ctx) override {
    {
      state::RefInputLocks lock(ctx, {0, 1, 2}, use_locking_);
      Tensor* refs[3];
      OP_REQUIRES_OK(ctx,
                     CheckSparseInputs<Index>(ctx, {0, 1, 2}, {3, 4, 5, 6, 7, 8}, 9, 10, refs));
      T* var = refs[0]->data<T>();
      T* m = refs[1]->data<T>();
      T* v = refs[2]->data<T>();
      const T lr_t = state::AdamStepSize(ctx->input(5).scalar<T>(), ctx->input(3).scalar<T>(),
                                         ctx->input(4).scalar<T>());
      const T beta1 = ctx->input(6).scalar<T>();
      const T beta2 = ctx->input(7).scalar<T>();
      const T epsilon = ctx->input(8).scalar<T>();
      const T* grad = ctx->input(9).data<T>();
      const bool nesterov = use_nesterov_;
      // Three tensors' rows per index, so more of each row is prefetched
      // than the first line the other kernels ask for.
      const int64_t ahead = state::PrefetchElements<T>(state::RowElements(*refs[0]));
      state::ForEachIndexedRow<Index>(
          ctx, ctx->input(10), state::RowElements(*refs[0]), 20,
          [=](int64_t at, int64_t g, int64_t n) {
            state::AdamRow(var + at, m + at, v + at, grad + g, n, lr_t, beta1, beta2, epsilon,
                           nesterov);
          },
          [=](int64_t at) { state::PrefetchRowsForWrite(ahead, var + at, m + at, v + at); });
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }

 private:
  bool use_nesterov_ = false;
};

template <typename T, typename Index>
class SparseApplyRMSPropOp : public state::SparseApplyOpBase {
 public:
  using state::SparseApplyOpBase::SparseApplyOpBase;
  void Compute(OpKernelContext* ctx) override {
    {
      state::RefInputLocks lock(ctx, {0, 1, 2}, use_locking_);
      Tensor* refs[3];
      OP_REQUIRES_OK(ctx, CheckSparseInputs<Index>(ctx, {0, 1, 2}, {3, 4, 5, 6}, 7, 8, refs));
      T* var = refs[0]->data<T>();
      T* ms = refs[1]->data<T>();
      T* mom = refs[2]->data<T>();
      const T lr = ctx->input(3).scalar<T>();
      const T rho = ctx->input(4).scalar<T>();
      const T momentum = ctx->input(5).scalar<T>();
      const T epsilon = ctx->input(6).scalar<T>();
      const T* grad = ctx->input(7).data<T>();
      state::ForEachIndexedRow<Index>(ctx, ctx->input(8), state::RowElements(*refs[0]), 20,
                                      [=](int64_t at, int64_t g, int64_t n) {
                                        state::RMSPropRow(var + at, ms + at, mom + at, grad + g, n,
                                                          lr, rho, momentum, epsilon);
                                      },
                                      [=](int64_t at) {
                                        __builtin_prefetch(var + at, 1);
                                        __builtin_prefetch(ms + at, 1);
                                        __builtin_prefetch(mom + at, 1);
                                      });
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }
};

#define AF_REGISTER_SPARSE_APPLY(T, Index)                        \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("SparseApplyMomentum") \
                              .Device(DEVICE_CPU)                 \
                              .TypeConstraint<T>("T")             \
                              .TypeConstraint<Index>("Tindices"), \
                          SparseApplyMomentumOp<T, Index>);       \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("SparseApplyAdagrad")  \
                              .Device(DEVICE_CPU)                 \
                              .TypeConstraint<T>("T")             \
                              .TypeConstraint<Index>("Tindices"), \
                          SparseApplyAdagradOp<T, Index>);        \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("SparseApplyAdam")     \
                              .Device(DEVICE_CPU)                 \
                              .TypeConstraint<T>("T")             \
                              .TypeConstraint<Index>("Tindices"), \
                          SparseApplyAdamOp<T, Index>);           \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("SparseApplyRMSProp")  \
                              .Device(DEVICE_CPU)                 \
                              .TypeConstraint<T>("T")             \
                              .TypeConstraint<Index>("Tindices"), \
                          SparseApplyRMSPropOp<T, Index>)

AF_REGISTER_SPARSE_APPLY(float, int32_t);
AF_REGISTER_SPARSE_APPLY(float, int64_t);
AF_REGISTER_SPARSE_APPLY(double, int32_t);
AF_REGISTER_SPARSE_APPLY(double, int64_t);
#undef AF_REGISTER_SPARSE_APPLY

}  // namespace
}  // namespace af
