// Scalar functors of the activation ops and their gradients. Gradient
// functors take (gradient, saved value), where the saved value is the
// forward op's input (ReluGrad, Relu6Grad, SoftplusGrad) or its output
// (EluGrad, SeluGrad), as in TensorFlow's signatures.
#pragma once

#include <algorithm>
#include <cmath>

namespace af::nn_functor {

// SELU's constants (Klambauer et al. 2017), as TensorFlow uses them.
inline constexpr double kSeluScale = 1.0507009873554804934193349852946;
inline constexpr double kSeluAlpha = 1.6732632423543772848170429916717;

template <typename T>
struct Relu6 {
  static constexpr int kCycles = 2;  // rough, per element
  // std::max/min keep a NaN input (the comparisons are false).
  T operator()(T x) const { return std::min(std::max(x, T(0)), T(6)); }
};

template <typename T>
struct Elu {
  static constexpr int kCycles = 30;  // rough, per element
  T operator()(T x) const { return x < T(0) ? std::expm1(x) : x; }
};

template <typename T>
struct Selu {
  static constexpr int kCycles = 30;  // rough, per element
  T operator()(T x) const {
    return x < T(0) ? T(kSeluScale * kSeluAlpha) * std::expm1(x) : T(kSeluScale) * x;
  }
};

template <typename T>
struct Softplus {
  static constexpr int kCycles = 60;  // rough, per element
  // log(1 + e^x) without overflow for large x or loss for very negative x.
  T operator()(T x) const {
    return x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
};

template <typename T>
struct ReluGrad {
  static constexpr int kCycles = 2;  // rough, per element
  T operator()(T g, T x) const { return x > T(0) ? g : T(0); }
};

template <typename T>
struct Relu6Grad {
  static constexpr int kCycles = 2;  // rough, per element
  T operator()(T g, T x) const { return (x > T(0) && x < T(6)) ? g : T(0); }
};

template <typename T>
struct EluGrad {
  static constexpr int kCycles = 3;  // rough, per element
  // For y = e^x - 1 < 0, dy/dx = e^x = y + 1.
  T operator()(T g, T y) const { return y < T(0) ? g * (y + T(1)) : g; }
};

template <typename T>
struct SeluGrad {
  static constexpr int kCycles = 3;  // rough, per element
  // For y = scale * alpha * (e^x - 1) < 0, dy/dx = y + scale * alpha.
  T operator()(T g, T y) const {
    return y < T(0) ? g * (y + T(kSeluScale * kSeluAlpha)) : g * T(kSeluScale);
  }
};

template <typename T>
struct SoftplusGrad {
  static constexpr int kCycles = 30;  // rough, per element
  // g * sigmoid(x).
  T operator()(T g, T x) const { return g / (T(1) + std::exp(-x)); }
};

}  // namespace af::nn_functor
