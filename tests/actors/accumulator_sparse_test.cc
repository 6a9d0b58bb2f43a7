// SparseConditionalAccumulator through a ClientSession: overlapping
// indices averaged per index (each row divided by the number of gradients
// that held it, TensorFlow's semantics) against a double-precision
// reference, indices ascending, TensorFlow's dense-shape output, stale
// sparse gradients dropped, and errors naming the node.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tests/actors/accumulator_test_util.h"

namespace af::testing {
namespace {

struct SparseGraph {
  SparseGraph(const PartialTensorShape& shape, const std::string& shared_name,
              const std::string& reduction = "MEAN")
      : root(Scope::NewRootScope()) {
    handle = ops::SparseConditionalAccumulator(
        root.WithOpName("sparse_acc"), DT_FLOAT, shape,
        ops::SparseConditionalAccumulator::SharedName(shared_name).ReductionType(reduction));
    step = ops::Placeholder(root.WithOpName("local_step"), DT_INT64);
    indices = ops::Placeholder(root.WithOpName("indices"), DT_INT64);
    values = ops::Placeholder(root.WithOpName("values"), DT_FLOAT);
    dense_shape = ops::Placeholder(root.WithOpName("dense_shape"), DT_INT64);
    apply = ops::SparseAccumulatorApplyGradient(root.WithOpName("sparse_apply"), handle, step,
                                                indices, values, dense_shape, true)
                .operation;
    auto take = ops::SparseAccumulatorTakeGradient(root.WithOpName("sparse_take"), handle,
                                                   ops::Const(root, 3), DT_FLOAT);
    taken_indices = take.indices;
    taken_values = take.values;
    taken_shape = take.shape;
    num = ops::AccumulatorNumAccumulated(root.WithOpName("num"), handle);
    set_step = ops::AccumulatorSetGlobalStep(root.WithOpName("set_step"), handle,
                                             ops::Const(root, int64_t{2}))
                   .operation;
  }

  Status Apply(const ClientSession& s, int64_t local_step, const std::vector<int64_t>& idx,
               const std::vector<float>& rows, int64_t width,
               const std::vector<int64_t>& shape) const {
    return s.Run(WithTimeout(kRunTimeoutMs),
                 {{step, local_step},
                  {indices, Tensor::FromVector<int64_t>(idx)},
                  {values, Tensor::FromVector<float>(
                               rows, TensorShape{static_cast<int64_t>(idx.size()), width})},
                  {dense_shape, Tensor::FromVector<int64_t>(shape)}},
                 {}, {apply}, nullptr);
  }

  Scope root;
  Output handle, step, indices, values, dense_shape;
  Operation apply;
  Output taken_indices, taken_values, taken_shape;  // SparseAccumulatorTakeGradient of 3
  Output num;
  Operation set_step;
};

BOOST_AUTO_TEST_SUITE(accumulator_sparse)

BOOST_AUTO_TEST_CASE(overlapping_indices_are_averaged_per_index_and_come_out_sorted) {
  constexpr int64_t kWidth = 3;
  struct Grad {
    std::vector<int64_t> indices;
    std::vector<float> rows;
  };
  // Unsorted indices; 4 is in all three gradients, 1 in two, 0, 2 and 5 in one.
  const std::vector<Grad> grads = {
      {{4, 1}, {1.f, 2.f, 3.f, -4.f, 5.f, 6.5f}},
      {{2, 4, 5}, {0.5f, 0.25f, 0.125f, 7.f, 8.f, 9.f, -1.f, -2.f, -3.f}},
      {{1, 0, 4}, {1e-3f, 2e-3f, 3e-3f, 10.f, 20.f, 30.f, 0.1f, 0.2f, 0.3f}},
  };
  for (const std::string reduction : {"MEAN", "SUM"}) {
    SparseGraph g(PartialTensorShape({6, kWidth}), "sparse_ref_" + reduction, reduction);
    ClientSession session(g.root);
    for (const Grad& grad : grads) {
      Status s = g.Apply(session, 0, grad.indices, grad.rows, kWidth, {6, kWidth});
      BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
    }
    std::vector<Tensor> out;
    Status s = Fetch(session, {g.taken_indices, g.taken_values, g.taken_shape}, &out);
    BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());

    std::map<int64_t, std::pair<std::vector<double>, int>> want;  // ascending
    for (const Grad& grad : grads) {
      for (size_t r = 0; r < grad.indices.size(); ++r) {
        auto& [sum, count] = want[grad.indices[r]];
        sum.resize(kWidth);
        for (int64_t c = 0; c < kWidth; ++c) sum[c] += grad.rows[r * kWidth + c];
        ++count;
      }
    }
    const int64_t nnz = static_cast<int64_t>(want.size());
    BOOST_TEST_REQUIRE(out[0].NumElements() == nnz);
    BOOST_TEST(out[1].shape() == TensorShape({nnz, kWidth}));
    BOOST_TEST(std::vector<int64_t>(out[2].data<int64_t>(), out[2].data<int64_t>() + 2) ==
               (std::vector<int64_t>{6, kWidth}));
    int64_t row = 0;
    for (const auto& [index, sum_count] : want) {
      BOOST_TEST(out[0].data<int64_t>()[row] == index);
      for (int64_t c = 0; c < kWidth; ++c) {
        double w = sum_count.first[c];
        if (reduction == "MEAN") w /= sum_count.second;
        const float got = out[1].data<float>()[row * kWidth + c];
        BOOST_TEST(std::abs(got - w) <= 1e-6 * (1 + std::abs(w)),
                   reduction << " index " << index << "," << c << ": " << got << " vs " << w);
      }
      ++row;
    }
    BOOST_REQUIRE(session.Reset({}).ok());
  }
}

BOOST_AUTO_TEST_CASE(stale_sparse_gradients_are_dropped_and_steps_are_shared_ops) {
  SparseGraph g(PartialTensorShape({4, 1}), "sparse_stale");
  ClientSession session(g.root);
  BOOST_REQUIRE(RunOp(session, g.set_step).ok());  // global step 2
  BOOST_REQUIRE(g.Apply(session, 1, {0}, {100.f}, 1, {4, 1}).ok());
  std::vector<Tensor> out;
  BOOST_REQUIRE(Fetch(session, {g.num}, &out).ok());
  BOOST_TEST(out[0].scalar<int32_t>() == 0);
  BOOST_TEST(DroppedGradients("sparse_stale") == 1);
  for (int i = 0; i < 3; ++i) BOOST_REQUIRE(g.Apply(session, 2, {3}, {float(i)}, 1, {4, 1}).ok());
  BOOST_REQUIRE(Fetch(session, {g.taken_indices, g.taken_values}, &out).ok());
  BOOST_TEST(out[0].NumElements() == 1);
  BOOST_TEST(out[1].data<float>()[0] == 1.f);
  BOOST_REQUIRE(session.Reset({}).ok());
}

BOOST_AUTO_TEST_CASE(sparse_errors_name_the_node) {
  SparseGraph g(PartialTensorShape({4, 2}), "sparse_errors");
  ClientSession session(g.root);
  Status s = g.Apply(session, 0, {1, 7}, {1.f, 2.f, 3.f, 4.f}, 2, {4, 2});
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "node 'sparse_apply'"), s.ToString());
  BOOST_TEST(Contains(s, "index of slice 1 exceeded limits of shape; index is 7 exceeded 4"),
             s.ToString());
  s = g.Apply(session, 0, {1}, {1.f, 2.f}, 2, {5, 2});
  BOOST_TEST(Contains(s, "Shape mismatch: expected shape dim 0 to be 4, got 5"), s.ToString());
  std::vector<Tensor> out;
  BOOST_REQUIRE(Fetch(session, {g.num}, &out).ok());
  BOOST_TEST(out[0].scalar<int32_t>() == 0);
  BOOST_REQUIRE(session.Reset({}).ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::testing
