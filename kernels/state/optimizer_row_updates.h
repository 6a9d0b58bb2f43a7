// One optimizer step on a contiguous span of a variable and its slots: the
// math of Momentum, Adam, Adagrad, RMSProp and FTRL-Proximal, written once
// so that a dense kernel (the span is a shard of the whole tensor) and a
// sparse one (the span is one row named by an index) cannot drift apart.
//
// Spans are Eigen maps, so each update is vectorized and allocates nothing.
// The variable, its slots and the gradient never overlap.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/eigen_core.h"

namespace af::state {

template <typename T>
using RowSpan = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstRowSpan = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

template <typename T>
void MomentumRow(T* var, T* accum, const T* grad, int64_t n, T lr, T momentum, bool nesterov) {
  RowSpan<T> v(var, n), a(accum, n);
  ConstRowSpan<T> g(grad, n);
  a = a * momentum + g;
  if (nesterov) {
    v -= g * lr + a * momentum * lr;
  } else {
    v -= lr * a;
  }
}

// Adam's step size for the moments' bias: lr * sqrt(1 - beta2^t) / (1 - beta1^t).
template <typename T>
T AdamStepSize(T lr, T beta1_power, T beta2_power) {
  return lr * std::sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
}

// m += (g - m) * (1 - beta1) is beta1 * m + (1 - beta1) * g within
// rounding, in ApplyAdam's (and TensorFlow's) order of operations. A dense
// shard is far larger than the caches, so the three passes run a block at
// a time: each block's m and v are still in L1 when var reads them, and
// the shard goes through memory once, not three times.
template <typename T>
void AdamRow(T* var, T* m, T* v, const T* grad, int64_t n, T lr_t, T beta1, T beta2, T epsilon,
             bool nesterov) {
  constexpr int64_t kBlock = 1024;
  const T a1 = T(1) - beta1, a2 = T(1) - beta2;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t len = std::min(kBlock, n - b);
    RowSpan<T> w(var + b, len), mean(m + b, len), second(v + b, len);
    ConstRowSpan<T> g(grad + b, len);
    mean += (g - mean) * a1;
    second += (g.square() - second) * a2;
    if (nesterov) {
      w -= ((g * a1 + beta1 * mean) * lr_t) / (second.sqrt() + epsilon);
    } else {
      w -= (mean * lr_t) / (second.sqrt() + epsilon);
    }
  }
}

template <typename T>
void AdagradRow(T* var, T* accum, const T* grad, int64_t n, T lr, bool update_slots) {
  RowSpan<T> v(var, n), a(accum, n);
  ConstRowSpan<T> g(grad, n);
  if (update_slots) a += g.square();
  v -= lr * g / a.sqrt();
}

template <typename T>
void RMSPropRow(T* var, T* ms, T* mom, const T* grad, int64_t n, T lr, T rho, T momentum,
                T epsilon) {
  RowSpan<T> v(var, n), s(ms, n), m(mom, n);
  ConstRowSpan<T> g(grad, n);
  s += (g.square() - s) * (T(1) - rho);
  m = m * momentum + lr * g / (s + epsilon).sqrt();
  v -= m;
}

// FTRL-Proximal's hyper-parameters as the ops take them.
template <typename T>
struct FtrlHyper {
  T lr, l1, l2, l2_shrinkage, lr_power;
  // V1 ops have no shrinkage input: the term is left out altogether rather
  // than added as 2 * 0 * var, which would turn an infinite var into NaN.
  bool has_shrinkage = false;
  // `linear` is kept multiplied by lr: the same step with lr moved out of
  // the divisions, but a different stored state, so a graph must not switch
  // between the two on one set of slots.
  bool multiply_linear_by_lr = false;
};

namespace ftrl_detail {

// `shrunk` is the gradient that moves `linear` (with shrinkage when the op
// has it); `power(x)` is x^-lr_power. `accum` is still the old value here:
// the accumulator's growth is spelled out where it is needed and stored last.
template <typename T, typename Shrunk, typename Power>
void Update(const FtrlHyper<T>& h, RowSpan<T>& v, RowSpan<T>& a, RowSpan<T>& l,
            const ConstRowSpan<T>& g, const Shrunk& shrunk, const Power& power) {
  const auto new_accum = a + g.square();
  if (h.multiply_linear_by_lr) {
    l += shrunk * h.lr - (power(new_accum) - power(a)) * v;
    const T l1 = h.l1 * h.lr;
    v = (l.abs() > l1).select((l1 * l.sign() - l) / (power(new_accum) + T(2) * h.l2 * h.lr), T(0));
  } else {
    l += shrunk - (power(new_accum) - power(a)) / h.lr * v;
    v = (l.abs() > h.l1)
            .select((h.l1 * l.sign() - l) / (power(new_accum) / h.lr + T(2) * h.l2), T(0));
  }
  a += g.square();
}

template <typename T, typename Shrunk>
void UpdateWithPower(const FtrlHyper<T>& h, RowSpan<T>& v, RowSpan<T>& a, RowSpan<T>& l,
                     const ConstRowSpan<T>& g, const Shrunk& shrunk) {
  // The usual lr_power of -0.5 gets sqrt: several times cheaper than pow
  // and exact where pow may round differently.
  if (h.lr_power == T(-0.5)) {
    Update(h, v, a, l, g, shrunk, [](const auto& x) { return x.sqrt(); });
  } else {
    const T exponent = -h.lr_power;
    Update(h, v, a, l, g, shrunk, [exponent](const auto& x) { return x.pow(exponent); });
  }
}

}  // namespace ftrl_detail

template <typename T>
void FtrlRow(const FtrlHyper<T>& h, T* var, T* accum, T* linear, const T* grad, int64_t n) {
  RowSpan<T> v(var, n), a(accum, n), l(linear, n);
  ConstRowSpan<T> g(grad, n);
  if (h.has_shrinkage) {
    ftrl_detail::UpdateWithPower(h, v, a, l, g, g + T(2) * h.l2_shrinkage * v);
  } else {
    ftrl_detail::UpdateWithPower(h, v, a, l, g, g);
  }
}

}  // namespace af::state
