// AdamOptimizer with a sparse gradient runs as one SparseApplyAdamAllRows
// (kernels/state/sparse_apply_adam_all_rows.cc). Its moments must be
// TensorFlow's composition's (Assign of m * beta1, ScatterAdd of the scaled
// rows, the same for v) bit for bit and its variable within an ulp or two
// of the composition's AssignSub of lr_t * m / (sqrt(v) + epsilon) (the
// kernel's square root is correctly rounded, Eigen's vector one is not),
// with repeated indices, over several steps, and on a table large enough
// to be split across threads; and a bad index leaves every tensor as it
// was.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/standard_ops.h"

namespace af {
namespace {

struct Tables {
  Tensor var, m, v;
};

Tensor Filled(int64_t rows, int64_t width, float scale, float offset) {
  Tensor t(DT_FLOAT, TensorShape({rows, width}));
  for (int64_t i = 0; i < t.NumElements(); ++i)
    t.data<float>()[i] = offset + scale * static_cast<float>((i * 7919) % 1013) / 1013.0f;
  return t;
}

// Runs `steps` updates of a [rows, width] table from the same start, either
// fused or composed, and returns var, m and v.
// Variables are named for the case: a process's sessions share them by name.
Tables Train(bool fused, int64_t rows, int64_t width, const std::vector<int32_t>& ids,
             int steps) {
  Scope root = Scope::NewRootScope().NewSubScope(
      (fused ? "fused_" : "composed_") + std::to_string(rows) + "x" + std::to_string(width));
  const int64_t k = static_cast<int64_t>(ids.size());
  auto make = [&](const char* name, const Tensor& init) {
    auto var = ops::Variable(root.WithOpName(name), PartialTensorShape({rows, width}), DT_FLOAT);
    return std::make_pair(Output(var), ops::Assign(root, var, ops::Const(root, init)));
  };
  auto [var, init_var] = make("var", Filled(rows, width, 2.0f, -1.0f));
  auto [m, init_m] = make("m", Filled(rows, width, 0.1f, 0.0f));
  auto [v, init_v] = make("v", Filled(rows, width, 0.01f, 0.001f));
  auto values = ops::Const(root, Filled(k, width, 3.0f, -1.5f));
  auto indices = ops::Const(root, Tensor::FromVector(ids));
  const float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, step_size = 0.01f;
  auto m_rows = ops::Mul(root, values, ops::Const(root, 1.0f - b1));
  auto v_rows = ops::Mul(root, ops::Square(root, values), ops::Const(root, 1.0f - b2));
  Operation update;
  if (fused) {
    update = ops::SparseApplyAdamAllRows(root, var, m, v, ops::Const(root, step_size),
                                         ops::Const(root, b1), ops::Const(root, b2),
                                         ops::Const(root, eps), m_rows, v_rows, indices)
                 .operation;
  } else {
    auto m_t = ops::ScatterAdd(root, ops::Assign(root, m, ops::Mul(root, m, ops::Const(root, b1))),
                               indices, m_rows);
    auto v_t = ops::ScatterAdd(root, ops::Assign(root, v, ops::Mul(root, v, ops::Const(root, b2))),
                               indices, v_rows);
    auto denom = ops::Add(root, ops::Sqrt(root, v_t), ops::Const(root, eps));
    update = ops::AssignSub(root, var,
                            ops::Mul(root, ops::Const(root, step_size), ops::Div(root, m_t, denom)))
                 .operation;
  }
  ClientSession session(root);
  std::vector<Tensor> out;
  Status s = session.Run({}, {}, {init_var.operation, init_m.operation, init_v.operation}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  for (int i = 0; i < steps; ++i) {
    s = session.Run({}, {}, {update}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
  }
  s = session.Run({var, m, v}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  return {out[0], out[1], out[2]};
}

// Within a few float roundings of values of order one: var - u cancels
// where var is close to u, so units in the last place of the result would
// magnify the update's last bit.
void CheckClose(const Tensor& a, const Tensor& b, double tolerance, const std::string& what) {
  BOOST_TEST_REQUIRE(a.NumElements() == b.NumElements());
  int64_t differ = 0;
  double worst = 0;
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    const double d = std::abs(double(a.data<float>()[i]) - double(b.data<float>()[i]));
    worst = std::max(worst, d);
    if (d > tolerance * std::max(1.0, std::abs(double(b.data<float>()[i])))) ++differ;
  }
  BOOST_TEST(differ == 0, what << ": " << differ << " elements apart by more than " << tolerance
                                << " (worst " << worst << ")");
}

void CheckIdentical(const Tensor& a, const Tensor& b, const std::string& what) {
  BOOST_TEST_REQUIRE(a.NumElements() == b.NumElements());
  int64_t differ = 0, first = -1;
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    if (std::memcmp(&a.data<float>()[i], &b.data<float>()[i], sizeof(float)) != 0) {
      if (first < 0) first = i;
      ++differ;
    }
  }
  BOOST_TEST(differ == 0, what << ": " << differ << " elements differ, the first at " << first
                                << " (" << a.data<float>()[first < 0 ? 0 : first] << " vs "
                                << b.data<float>()[first < 0 ? 0 : first] << ")");
}

BOOST_AUTO_TEST_SUITE(adam_sparse_all_rows)

BOOST_AUTO_TEST_CASE(equals_tensorflows_composition) {
  // Width 7: rows are not a multiple of any vector width. Repeats, the
  // first and the last row, and unsorted ids.
  const std::vector<int32_t> ids = {5, 0, 5, 99, 42, 5, 43, 0};
  const Tables fused = Train(true, 100, 7, ids, 3);
  const Tables composed = Train(false, 100, 7, ids, 3);
  // And against Adam's formula in double precision.
  const Tensor var0 = Filled(100, 7, 2.0f, -1.0f), m0 = Filled(100, 7, 0.1f, 0.0f),
               v0 = Filled(100, 7, 0.01f, 0.001f);
  const Tensor g = Filled(static_cast<int64_t>(ids.size()), 7, 3.0f, -1.5f);
  std::vector<double> w(700), m(700), v(700);
  for (int i = 0; i < 700; ++i) {
    w[i] = var0.data<float>()[i];
    m[i] = m0.data<float>()[i];
    v[i] = v0.data<float>()[i];
  }
  for (int t = 0; t < 3; ++t) {
    for (int i = 0; i < 700; ++i) {
      m[i] *= 0.9;
      v[i] *= 0.999;
    }
    for (size_t j = 0; j < ids.size(); ++j) {
      for (int c = 0; c < 7; ++c) {
        const double gj = g.data<float>()[j * 7 + c];
        m[ids[j] * 7 + c] += 0.1 * gj;
        v[ids[j] * 7 + c] += 0.001 * gj * gj;
      }
    }
    for (int i = 0; i < 700; ++i) w[i] -= 0.01 * m[i] / (std::sqrt(v[i]) + 1e-8);
  }
  Tensor want(DT_FLOAT, TensorShape({100, 7}));
  for (int i = 0; i < 700; ++i) want.data<float>()[i] = static_cast<float>(w[i]);
  CheckClose(fused.var, want, 1e-5, "var against double precision");
  CheckClose(fused.var, composed.var, 4 * 1.2e-7, "var");
  CheckIdentical(fused.m, composed.m, "m");
  CheckIdentical(fused.v, composed.v, "v");
}

BOOST_AUTO_TEST_CASE(a_table_split_across_threads_equals_it_too) {
  std::vector<int32_t> ids;
  for (int i = 0; i < 500; ++i) ids.push_back((i * 7877) % 40000);
  ids.push_back(ids[3]);
  const Tables fused = Train(true, 40000, 5, ids, 2);
  const Tables composed = Train(false, 40000, 5, ids, 2);
  CheckClose(fused.var, composed.var, 4 * 1.2e-7, "var");
  CheckIdentical(fused.m, composed.m, "m");
  CheckIdentical(fused.v, composed.v, "v");
}

BOOST_AUTO_TEST_CASE(a_bad_index_changes_nothing) {
  Scope root = Scope::NewRootScope().NewSubScope("bad_index");
  auto var = ops::Variable(root.WithOpName("var"), PartialTensorShape({4, 2}), DT_FLOAT);
  auto m = ops::Variable(root.WithOpName("m"), PartialTensorShape({4, 2}), DT_FLOAT);
  auto v = ops::Variable(root.WithOpName("v"), PartialTensorShape({4, 2}), DT_FLOAT);
  const Tensor start = Filled(4, 2, 1.0f, 0.5f);
  auto inits = {ops::Assign(root, var, ops::Const(root, start)).operation,
                ops::Assign(root, m, ops::Const(root, start)).operation,
                ops::Assign(root, v, ops::Const(root, start)).operation};
  auto rows = ops::Const(root, Filled(2, 2, 1.0f, 0.0f));
  auto update = ops::SparseApplyAdamAllRows(
      root.WithOpName("adam_rows"), var, m, v, ops::Const(root, 0.1f), ops::Const(root, 0.9f),
      ops::Const(root, 0.999f), ops::Const(root, 1e-8f), rows, rows,
      ops::Const(root, Tensor::FromVector(std::vector<int32_t>{1, 4})));
  ClientSession session(root);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({}, {}, std::vector<Operation>(inits), &out).ok());
  const Status s = session.Run({}, {}, {update.operation}, &out);
  BOOST_TEST(errors::IsInvalidArgument(s), s);
  BOOST_TEST(s.message().find("adam_rows") != std::string::npos, s);
  BOOST_TEST(s.message().find("is not in [0, 4)") != std::string::npos, s);
  BOOST_TEST_REQUIRE(session.Run({var, m, v}, &out).ok());
  for (const Tensor& t : out) CheckIdentical(t, start, "unchanged");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
