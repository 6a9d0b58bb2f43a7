// Helpers for gradient tests: random inputs, and a check that runs the
// numerical gradient checker with the ys' statically inferred shapes.
#pragma once

#include <boost/test/unit_test.hpp>

#include <random>
#include <string>
#include <vector>

#include "client/gradient_checker.h"
#include "client/gradients.h"
#include "client/standard_ops.h"

namespace af::testing {

// Uniform values in [lo, hi), deterministic per seed.
inline Tensor RandomTensor(DataType dtype, const TensorShape& shape, double lo = -1.0,
                           double hi = 1.0, uint64_t seed = 7) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (dtype == DT_DOUBLE) {
      t.data<double>()[i] = u(rng);
    } else {
      t.data<float>()[i] = static_cast<float>(u(rng));
    }
  }
  return t;
}

inline Tensor DoubleMatrix(const TensorShape& shape, const std::vector<double>& values) {
  return Tensor::FromVector<double>(values, shape);
}

// The largest |symbolic - numerical| Jacobian difference; fails the test
// on an error or a y whose shape is not known statically.
inline double GradientError(const Scope& root, const OutputList& xs,
                            const std::vector<Tensor>& x_values, const OutputList& ys,
                            double delta = 1e-4) {
  BOOST_TEST_REQUIRE(root.ok(), root.status());
  std::vector<TensorShape> y_shapes;
  for (const Output& y : ys) {
    TensorShape s;
    BOOST_TEST_REQUIRE(y.shape().AsTensorShape(&s), "shape of " << y.name() << " unknown: "
                                                                << y.shape().DebugString());
    y_shapes.push_back(s);
  }
  GradientCheckOptions options;
  options.delta = delta;
  double error = 0;
  Status st = ComputeGradientError(root, xs, x_values, ys, y_shapes, &error, options);
  BOOST_TEST_REQUIRE(st.ok(), st);
  // --log_level=message lists every check's error (the closing notes quote them).
  BOOST_TEST_MESSAGE(boost::unit_test::framework::current_test_case().full_name()
                     << ": max |symbolic - numerical| = " << error);
  return error;
}

// One placeholder x of `shape` with random values, for unary checks.
inline double UnaryGradientError(DataType dtype, const TensorShape& shape,
                                 Output (*build)(const Scope&, const Output&), double lo = -1.0,
                                 double hi = 1.0) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, dtype, PartialTensorShape(shape));
  Output y = build(root, x);
  return GradientError(root, {x}, {RandomTensor(dtype, shape, lo, hi)}, {y});
}

}  // namespace af::testing
