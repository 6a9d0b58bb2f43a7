// SparseApplyAdamAllRows: TensorFlow's AdamOptimizer given an IndexedSlices
// gradient, in one pass over the variable. TensorFlow composes it from
// `m = m * beta1` (assigned), `ScatterAdd(m, indices, grad * (1 - beta1))`,
// the same for v with grad^2, and `var -= lr_t * m / (sqrt(v) + epsilon)`:
// five full passes and three full-size temporaries for a gradient that
// touches a few rows (6.6x slower than the dense ApplyAdam on a 1M x 128
// table here). This kernel does the same float operations per element in
// the same order: every row's moments decay, the gradient's rows add in (a
// repeated index again, in its order in `indices`), and every row of var
// moves. m and v come out bit for bit; var may differ in the last bit,
// because the square root here is the correctly rounded one.
//
// The graph still computes grad * (1 - beta1) and grad^2 * (1 - beta2) (k
// rows), so their rounding is the composition's too.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/state/ref_inputs.h"
#include "kernels/state/sparse_apply_op_base.h"

namespace af {
namespace {

// var -= step * (m / (sqrt(v) + epsilon)) on n elements. A plain loop,
// so that the square root is the correctly rounded one (vsqrtps; Eigen's
// packet sqrt for float is an approximation under its default fast math)
// and, without contraction, every operation rounds on its own as the
// composition's separate kernels do.
template <typename T>
void MoveVar(T* w, const T* mean, const T* second, int64_t n, T step, T epsilon) {
  for (int64_t i = 0; i < n; ++i) {
    const T denom = std::sqrt(second[i]) + epsilon;
    const T u = step * (mean[i] / denom);
    w[i] = w[i] - u;
  }
}

template <typename T>
void Scale(T* x, int64_t n, T by) {
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] * by;
}

template <typename T>
void AddRow(T* x, const T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] + y[i];
}

// Elements [0, n) of var/m/v with no gradient: decay the moments, move var.
// Blocks keep m and v in L1 between their update and var's.
template <typename T>
void DecayAndMove(T* var, T* m, T* v, int64_t n, T step, T beta1, T beta2, T epsilon) {
  constexpr int64_t kBlock = 1024;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t len = std::min(kBlock, n - b);
    Scale(m + b, len, beta1);
    Scale(v + b, len, beta2);
    MoveVar(var + b, m + b, v + b, len, step, epsilon);
  }
}

template <typename T, typename Index>
class SparseApplyAdamAllRowsOp : public state::SparseApplyOpBase {
 public:
  using state::SparseApplyOpBase::SparseApplyOpBase;

  void Compute(OpKernelContext* ctx) override {
    {
      state::RefInputLocks lock(ctx, {0, 1, 2}, use_locking_);
      Tensor* refs[3];
      OP_REQUIRES_OK(ctx, CheckSparseInputs<Index>(ctx, {0, 1, 2}, {3, 4, 5, 6}, 7, 9, refs));
      const Tensor& m_rows = ctx->input(7);
      const Tensor& v_rows = ctx->input(8);
      OP_REQUIRES(ctx, v_rows.shape() == m_rows.shape(),
                  ctx->NodeError(errors::InvalidArgument(
                      "m_rows and v_rows must have the same shape: ",
                      m_rows.shape().DebugString(), " vs ", v_rows.shape().DebugString())));
      const Tensor& indices = ctx->input(9);
      const int64_t n = indices.NumElements();
      const Index* idx = indices.data<Index>();
      // Positions in index order, repeats in their order in `indices`: the
      // order ScatterAdd adds them in.
      std::vector<int64_t> order(static_cast<size_t>(n));
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(),
                       [idx](int64_t a, int64_t b) { return idx[a] < idx[b]; });
      T* var = refs[0]->data<T>();
      T* m = refs[1]->data<T>();
      T* v = refs[2]->data<T>();
      const T step = ctx->input(3).scalar<T>();
      const T beta1 = ctx->input(4).scalar<T>();
      const T beta2 = ctx->input(5).scalar<T>();
      const T epsilon = ctx->input(6).scalar<T>();
      const T* add_m = m_rows.data<T>();
      const T* add_v = v_rows.data<T>();
      const int64_t width = state::RowElements(*refs[0]);
      const int64_t rows = refs[0]->dim_size(0);
      if (width == 0) return;
      // Parts are ranges of whole rows, so no two threads touch one row.
      state::ParallelUpdate(ctx, rows, 16 * width, [&](int64_t first, int64_t last) {
        auto at = std::lower_bound(order.begin(), order.end(), first,
                                   [idx](int64_t pos, int64_t row) { return idx[pos] < row; });
        int64_t row = first;
        while (row < last) {
          const int64_t next =
              at == order.end() ? last : std::min<int64_t>(last, static_cast<int64_t>(idx[*at]));
          if (next > row) {  // rows without a gradient: one flat span
            DecayAndMove(var + row * width, m + row * width, v + row * width,
                         (next - row) * width, step, beta1, beta2, epsilon);
            row = next;
            continue;
          }
          T* mean = m + row * width;
          T* second = v + row * width;
          Scale(mean, width, beta1);
          Scale(second, width, beta2);
          for (; at != order.end() && static_cast<int64_t>(idx[*at]) == row; ++at) {
            AddRow(mean, add_m + *at * width, width);
            AddRow(second, add_v + *at * width, width);
          }
          MoveVar(var + row * width, mean, second, width, step, epsilon);
          ++row;
        }
      });
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }
};

#define AF_REGISTER_ADAM_ALL_ROWS(T, Index)                           \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("SparseApplyAdamAllRows")  \
                              .Device(DEVICE_CPU)                     \
                              .TypeConstraint<T>("T")                 \
                              .TypeConstraint<Index>("Tindices"),     \
                          SparseApplyAdamAllRowsOp<T, Index>)
AF_REGISTER_ADAM_ALL_ROWS(float, int32_t);
AF_REGISTER_ADAM_ALL_ROWS(float, int64_t);
AF_REGISTER_ADAM_ALL_ROWS(double, int32_t);
AF_REGISTER_ADAM_ALL_ROWS(double, int64_t);
#undef AF_REGISTER_ADAM_ALL_ROWS

}  // namespace
}  // namespace af
