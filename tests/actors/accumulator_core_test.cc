// AccumulatorCore without its actor: the rules the accumulator actor
// applies one message at a time — means and sums against double-precision
// reference loops, stale gradients dropped and counted, takes served
// oldest first once enough gradients are held, the global step, withdrawn
// takes losing nothing, and TensorFlow's shape checks.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/accumulator/accumulator_core.h"

namespace af::actors {
namespace {

using Kind = AccumulatorRequest::Kind;

AccumulatorSpec Dense(PartialTensorShape shape, DataType dtype = DT_FLOAT,
                      AccumulatorSpec::Reduction reduction = AccumulatorSpec::Reduction::kMean) {
  AccumulatorSpec spec;
  spec.kind = AccumulatorSpec::Kind::kDense;
  spec.name = "core_acc";
  spec.dtype = dtype;
  spec.shape = std::move(shape);
  spec.reduction = reduction;
  return spec;
}

AccumulatorSpec Sparse(PartialTensorShape shape,
                       AccumulatorSpec::Reduction reduction = AccumulatorSpec::Reduction::kMean) {
  AccumulatorSpec spec = Dense(std::move(shape), DT_FLOAT, reduction);
  spec.kind = AccumulatorSpec::Kind::kSparse;
  return spec;
}

// What a request's callback saw.
struct Outcome {
  bool done = false;
  Status status;
  bool applied = false;
  AccumulatorGradient result;
};

struct Harness {
  explicit Harness(AccumulatorSpec spec)
      : dropped(std::make_shared<std::atomic<int64_t>>(0)),
        core(std::move(spec), dropped, [this](const std::string& w) { warnings.push_back(w); }) {}

  std::shared_ptr<Outcome> Apply(int64_t step, AccumulatorGradient g,
                                 const std::string& replica = "") {
    auto out = std::make_shared<Outcome>();
    auto r = std::make_shared<AccumulatorRequest>();
    r->kind = Kind::kApply;
    r->id = next_id++;
    r->step = step;
    r->replica = replica;
    r->gradient = std::move(g);
    r->applied = [out](const Status& s, bool applied) {
      out->done = true;
      out->status = s;
      out->applied = applied;
    };
    BOOST_TEST(!core.Arrive(r));  // an apply never waits
    return out;
  }
  std::shared_ptr<Outcome> ApplyDense(int64_t step, const std::vector<float>& v,
                                      TensorShape shape = {}, const std::string& replica = "") {
    AccumulatorGradient g;
    g.dense = Tensor::FromVector<float>(
        v, shape.dims() == 0 ? TensorShape{static_cast<int64_t>(v.size())} : shape);
    return Apply(step, std::move(g), replica);
  }
  std::shared_ptr<Outcome> ApplySparse(int64_t step, const std::vector<int64_t>& indices,
                                       const std::vector<float>& rows, int64_t width) {
    AccumulatorGradient g;
    g.indices = Tensor::FromVector<int64_t>(indices);
    g.values = Tensor::FromVector<float>(
        rows, TensorShape{static_cast<int64_t>(indices.size()), width});
    return Apply(step, std::move(g));
  }
  // The take's outcome and whether it was left waiting.
  std::shared_ptr<Outcome> Take(int32_t n, bool* waits = nullptr, uint64_t* id = nullptr) {
    auto out = std::make_shared<Outcome>();
    auto r = std::make_shared<AccumulatorRequest>();
    r->kind = Kind::kTake;
    r->id = next_id++;
    r->num_required = n;
    r->taken = [out](const Status& s, AccumulatorGradient g) {
      out->done = true;
      out->status = s;
      out->result = std::move(g);
    };
    if (id != nullptr) *id = r->id;
    const bool w = core.Arrive(r);
    if (waits != nullptr) *waits = w;
    return out;
  }
  void SetGlobalStep(int64_t step) {
    auto r = std::make_shared<AccumulatorRequest>();
    r->kind = Kind::kSetGlobalStep;
    r->id = next_id++;
    r->step = step;
    bool done = false;
    r->done = [&done](const Status& s) { done = s.ok(); };
    core.Arrive(r);
    BOOST_TEST(done);
  }

  std::shared_ptr<std::atomic<int64_t>> dropped;
  std::vector<std::string> warnings;
  AccumulatorCore core;
  uint64_t next_id = 1;
};

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

BOOST_AUTO_TEST_SUITE(accumulator_core)

BOOST_AUTO_TEST_CASE(mean_and_sum_of_dense_gradients_match_a_double_reference) {
  const std::vector<std::vector<float>> grads = {
      {0.1f, -2.5f, 3.25f, 1e-3f, 7.f, -0.3f},
      {1.7f, 0.25f, -1.f, 2e-3f, -7.f, 0.9f},
      {-0.4f, 4.f, 0.5f, 3e-3f, 1.f, 0.11f},
      {2.2f, -1.5f, 0.125f, -4e-3f, 0.5f, 0.77f},
  };
  for (auto reduction : {AccumulatorSpec::Reduction::kMean, AccumulatorSpec::Reduction::kSum}) {
    Harness h(Dense(PartialTensorShape({2, 3}), DT_FLOAT, reduction));
    for (const auto& g : grads) {
      auto applied = h.ApplyDense(0, g, TensorShape{2, 3});
      BOOST_TEST_REQUIRE(applied->status.ok(), applied->status);
      BOOST_TEST(applied->applied);
    }
    BOOST_TEST(h.core.num_accumulated() == 4);
    auto taken = h.Take(4);
    BOOST_TEST_REQUIRE(taken->done);
    BOOST_TEST_REQUIRE(taken->status.ok(), taken->status);
    BOOST_TEST(taken->result.dense.shape() == TensorShape({2, 3}));
    const std::vector<float> got = Floats(taken->result.dense);
    for (size_t i = 0; i < got.size(); ++i) {
      double want = 0;
      for (const auto& g : grads) want += g[i];
      if (reduction == AccumulatorSpec::Reduction::kMean) want /= grads.size();
      BOOST_TEST(std::abs(got[i] - want) <= 1e-6 * (1 + std::abs(want)), i << ": " << got[i]);
    }
    BOOST_TEST(h.core.num_accumulated() == 0);
    BOOST_TEST(h.core.global_step() == 1);
  }
}

BOOST_AUTO_TEST_CASE(double_and_half_gradients_are_averaged_too) {
  Harness d(Dense(PartialTensorShape({3}), DT_DOUBLE));
  for (double scale : {1.0, 2.0, 4.5}) {
    AccumulatorGradient g;
    g.dense = Tensor::FromVector<double>({1.0 / 3 * scale, -scale, 1e-12 * scale});
    BOOST_TEST_REQUIRE(d.Apply(0, std::move(g))->status.ok());
  }
  auto taken = d.Take(3);
  BOOST_TEST_REQUIRE(taken->status.ok(), taken->status);
  const double* r = taken->result.dense.data<double>();
  BOOST_TEST(std::abs(r[0] - 7.5 / 9) < 1e-15);
  BOOST_TEST(std::abs(r[1] + 7.5 / 3) < 1e-15);
  BOOST_TEST(std::abs(r[2] - 2.5e-12) < 1e-25);

  Harness h(Dense(PartialTensorShape({2}), DT_HALF));
  for (float v : {0.5f, 0.25f, 2.f}) {
    AccumulatorGradient g;
    g.dense = Tensor::FromVector<half>({FloatToHalf(v), FloatToHalf(-v)});
    BOOST_TEST_REQUIRE(h.Apply(0, std::move(g))->status.ok());
  }
  taken = h.Take(2);
  BOOST_TEST_REQUIRE(taken->status.ok(), taken->status);
  BOOST_TEST(taken->result.dense.dtype() == DT_HALF);
  // Summed in float, rounded to half once.
  BOOST_TEST(HalfToFloat(taken->result.dense.data<half>()[0]) ==
             HalfToFloat(FloatToHalf(2.75f / 3.f)));
  BOOST_TEST(HalfToFloat(taken->result.dense.data<half>()[1]) ==
             HalfToFloat(FloatToHalf(-2.75f / 3.f)));
}

BOOST_AUTO_TEST_CASE(stale_gradients_are_dropped_and_counted) {
  Harness h(Dense(PartialTensorShape({2})));
  h.SetGlobalStep(5);
  auto stale = h.ApplyDense(4, {100.f, 100.f});
  BOOST_TEST(stale->status.ok());  // silently, as in TensorFlow...
  BOOST_TEST(!stale->applied);
  BOOST_TEST(h.core.dropped() == 1);  // ...but counted
  BOOST_TEST(h.dropped->load() == 1);
  BOOST_TEST(h.core.num_accumulated() == 0);
  // A stale gradient is not even looked at (TensorFlow's order): a wrong
  // shape is dropped, not refused.
  BOOST_TEST(h.ApplyDense(0, {1.f, 2.f, 3.f})->status.ok());
  BOOST_TEST(h.core.dropped() == 2);
  // Current and future steps count.
  BOOST_TEST(h.ApplyDense(5, {1.f, 2.f})->applied);
  BOOST_TEST(h.ApplyDense(9, {3.f, 4.f})->applied);
  auto taken = h.Take(2);
  BOOST_TEST_REQUIRE(taken->status.ok());
  BOOST_TEST(Floats(taken->result.dense) == (std::vector<float>{2.f, 3.f}));
  BOOST_TEST(h.core.global_step() == 6);
  // The take moved the step on: a gradient of step 5 is stale now.
  BOOST_TEST(!h.ApplyDense(5, {1.f, 1.f})->applied);
  BOOST_TEST(h.core.dropped() == 3);
  std::vector<std::string> lines;
  BOOST_TEST(h.Take(1)->done == false);
  BOOST_TEST(h.core.InspectStalls(3000000000, 1, &lines));
  BOOST_TEST_REQUIRE(lines.size() == 1u);
  BOOST_TEST(lines[0].find("3 stale gradients dropped so far") != std::string::npos, lines[0]);
}

// A take that waits names whose gradients it holds and which named
// senders have sent none for this step (a stopped or lost worker).
BOOST_AUTO_TEST_CASE(a_stalled_take_names_the_senders_it_still_waits_for) {
  Harness h(Dense(PartialTensorShape({1})));
  for (const char* w : {"worker 0", "worker 1", "worker 2"}) h.ApplyDense(0, {1.f}, {}, w);
  BOOST_TEST_REQUIRE(h.Take(3)->done);
  h.ApplyDense(1, {1.f}, {}, "worker 0");
  h.ApplyDense(1, {1.f}, {}, "worker 1");
  BOOST_TEST(!h.Take(3)->done);
  std::vector<std::string> lines;
  BOOST_TEST(h.core.InspectStalls(3000000000, 1, &lines));
  BOOST_TEST_REQUIRE(lines.size() == 1u);
  BOOST_TEST(lines[0].find("held from: worker 0, worker 1; still waiting for: worker 2 (last "
                           "sent a gradient of step 0)") != std::string::npos,
             lines[0]);
}

BOOST_AUTO_TEST_CASE(a_take_waits_for_num_required_then_takes_everything_held) {
  Harness h(Dense(PartialTensorShape({1})));
  bool waits = false;
  auto take = h.Take(3, &waits);
  BOOST_TEST(waits);
  BOOST_TEST(!take->done);
  h.ApplyDense(0, {1.f});
  h.ApplyDense(0, {2.f});
  BOOST_TEST(!take->done);
  BOOST_TEST(h.core.global_step() == 0);
  h.ApplyDense(0, {6.f});
  BOOST_TEST_REQUIRE(take->done);
  BOOST_TEST(Floats(take->result.dense) == (std::vector<float>{3.f}));
  BOOST_TEST(h.core.global_step() == 1);
  // More than required: all of them are averaged, as in TensorFlow.
  for (float v : {1.f, 2.f, 3.f, 4.f, 5.f}) h.ApplyDense(1, {v});
  take = h.Take(2, &waits);
  BOOST_TEST(!waits);
  BOOST_TEST(Floats(take->result.dense) == (std::vector<float>{3.f}));
  BOOST_TEST(h.core.global_step() == 2);
}

BOOST_AUTO_TEST_CASE(takes_are_served_oldest_first_and_a_withdrawn_one_takes_nothing) {
  Harness h(Dense(PartialTensorShape({1})));
  uint64_t big_id = 0;
  auto big = h.Take(3, nullptr, &big_id);
  auto small = h.Take(1);
  h.ApplyDense(0, {4.f});
  h.ApplyDense(0, {8.f});
  // The take of 3 is first in line and holds back the take of 1.
  BOOST_TEST(!big->done);
  BOOST_TEST(!small->done);
  h.core.Withdraw(big_id, Code::DEADLINE_EXCEEDED);
  BOOST_TEST_REQUIRE(big->done);
  BOOST_TEST(big->status.code() == Code::DEADLINE_EXCEEDED);
  BOOST_TEST(big->status.message() ==
             "Timed out waiting to take 3 gradients from ConditionalAccumulator 'core_acc' (it "
             "holds 2)");
  // Its place in line freed, the take of 1 gets both gradients.
  BOOST_TEST_REQUIRE(small->done);
  BOOST_TEST_REQUIRE(small->status.ok());
  BOOST_TEST(Floats(small->result.dense) == (std::vector<float>{6.f}));
  // A withdrawal after the take was served finds nothing.
  h.core.Withdraw(big_id, Code::CANCELLED);
  uint64_t id = 0;
  auto cancelled = h.Take(1, nullptr, &id);
  h.core.Withdraw(id, Code::CANCELLED);
  BOOST_TEST(cancelled->status.code() == Code::CANCELLED);
  BOOST_TEST(cancelled->status.message() == "TakeGrad operation was cancelled");
  BOOST_TEST(h.core.global_step() == 1);
  h.ApplyDense(1, {1.f});
  BOOST_TEST(h.core.num_accumulated() == 1);
}

BOOST_AUTO_TEST_CASE(num_required_below_one_is_refused) {
  Harness h(Dense(PartialTensorShape({1})));
  auto take = h.Take(0);
  BOOST_TEST_REQUIRE(take->done);
  BOOST_TEST(take->status.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(take->status.message() == "Argument num_required must be positive, but was 0");
}

BOOST_AUTO_TEST_CASE(set_global_step_sets_even_a_smaller_step_with_a_warning) {
  Harness h(Dense(PartialTensorShape({1})));
  h.SetGlobalStep(7);
  BOOST_TEST(h.core.global_step() == 7);
  BOOST_TEST(h.warnings.empty());
  h.SetGlobalStep(3);
  BOOST_TEST(h.core.global_step() == 3);
  BOOST_TEST_REQUIRE(h.warnings.size() == 1u);
  BOOST_TEST(h.warnings[0].find("global step set back from 7 to 3") != std::string::npos,
             h.warnings[0]);
  BOOST_TEST(h.ApplyDense(3, {1.f})->applied);
}

BOOST_AUTO_TEST_CASE(dense_shapes_are_checked_against_the_attr_and_the_gradients_held) {
  Harness h(Dense(PartialTensorShape({-1, 2})));
  auto wrong_attr = h.ApplyDense(0, {1.f, 2.f, 3.f}, TensorShape{1, 3});
  BOOST_TEST(wrong_attr->status.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(wrong_attr->status.message() ==
             "ConditionalAccumulator 'core_acc': Shape mismatch: expected [?,2], got [1,3]");
  BOOST_TEST(h.ApplyDense(0, {1.f, 2.f}, TensorShape{1, 2})->applied);
  auto wrong_held = h.ApplyDense(0, {1.f, 2.f, 3.f, 4.f}, TensorShape{2, 2});
  BOOST_TEST(wrong_held->status.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(wrong_held->status.message() ==
             "ConditionalAccumulator 'core_acc': Shape mismatch: expected [1,2], got [2,2]");
  BOOST_TEST(h.core.num_accumulated() == 1);
  // After a take, another size of the unknown dim is welcome.
  BOOST_TEST_REQUIRE(h.Take(1)->status.ok());
  BOOST_TEST(h.ApplyDense(1, {1.f, 2.f, 3.f, 4.f}, TensorShape{2, 2})->applied);
}

// Reference for sparse means: per index, the sum of the rows of every
// gradient holding it, divided by how many gradients held it.
struct SparseGrad {
  std::vector<int64_t> indices;
  std::vector<float> rows;  // indices.size() x width
};

BOOST_AUTO_TEST_CASE(sparse_rows_are_averaged_per_index_and_come_out_sorted) {
  constexpr int64_t kWidth = 2;
  const std::vector<SparseGrad> grads = {
      {{3, 0}, {1.f, 2.f, 10.f, 20.f}},
      {{0, 5, 3}, {3.f, 4.f, 0.5f, 0.25f, -1.f, 6.f}},
      {{7}, {9.f, -9.f}},
      {{3}, {0.125f, 1.f}},
  };
  for (auto reduction : {AccumulatorSpec::Reduction::kMean, AccumulatorSpec::Reduction::kSum}) {
    Harness h(Sparse(PartialTensorShape({10, kWidth}), reduction));
    for (const auto& g : grads) {
      auto applied = h.ApplySparse(0, g.indices, g.rows, kWidth);
      BOOST_TEST_REQUIRE(applied->status.ok(), applied->status);
    }
    std::map<int64_t, std::pair<std::vector<double>, int>> want;
    for (const auto& g : grads) {
      for (size_t i = 0; i < g.indices.size(); ++i) {
        auto& [sum, count] = want[g.indices[i]];
        sum.resize(kWidth);
        for (int64_t c = 0; c < kWidth; ++c) sum[c] += g.rows[i * kWidth + c];
        ++count;
      }
    }
    auto taken = h.Take(4);
    BOOST_TEST_REQUIRE(taken->status.ok(), taken->status);
    const AccumulatorGradient& r = taken->result;
    BOOST_TEST_REQUIRE(r.indices.NumElements() == static_cast<int64_t>(want.size()));
    BOOST_TEST(r.values.shape() == TensorShape({static_cast<int64_t>(want.size()), kWidth}));
    BOOST_TEST(std::vector<int64_t>(r.shape.data<int64_t>(), r.shape.data<int64_t>() + 2) ==
               (std::vector<int64_t>{10, kWidth}));
    int64_t row = 0;
    for (const auto& [index, sum_count] : want) {  // std::map: ascending
      BOOST_TEST(r.indices.data<int64_t>()[row] == index);
      for (int64_t c = 0; c < kWidth; ++c) {
        double w = sum_count.first[c];
        if (reduction == AccumulatorSpec::Reduction::kMean) w /= sum_count.second;
        const float got = r.values.data<float>()[row * kWidth + c];
        BOOST_TEST(std::abs(got - w) <= 1e-6 * (1 + std::abs(w)), index << "," << c << ": " << got);
      }
      ++row;
    }
  }
}

BOOST_AUTO_TEST_CASE(a_repeated_index_in_one_gradient_counts_that_gradient_once) {
  Harness h(Sparse(PartialTensorShape({4, 1})));
  BOOST_TEST(h.ApplySparse(0, {2, 1, 2}, {1.f, 5.f, 3.f}, 1)->applied);
  BOOST_TEST(h.ApplySparse(0, {2}, {8.f}, 1)->applied);
  auto taken = h.Take(2);
  BOOST_TEST_REQUIRE(taken->status.ok());
  BOOST_TEST(std::vector<int64_t>(taken->result.indices.data<int64_t>(),
                                  taken->result.indices.data<int64_t>() + 2) ==
             (std::vector<int64_t>{1, 2}));
  // Index 2: (1 + 3) from the first gradient and 8 from the second, over 2.
  BOOST_TEST(Floats(taken->result.values) == (std::vector<float>{5.f, 6.f}));
}

BOOST_AUTO_TEST_CASE(sparse_shapes_are_checked_as_tensorflow_does) {
  Harness h(Sparse(PartialTensorShape({4, 2})));
  auto out_of_range = h.ApplySparse(0, {1, 4}, {1.f, 2.f, 3.f, 4.f}, 2);
  BOOST_TEST(out_of_range->status.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(out_of_range->status.message().find(
                 "Shape mismatch: index of slice 1 exceeded limits of shape; index is 4 "
                 "exceeded 4") != std::string::npos,
             out_of_range->status);
  auto negative = h.ApplySparse(0, {-1}, {1.f, 2.f}, 2);
  BOOST_TEST(negative->status.code() == Code::INVALID_ARGUMENT);
  auto wide = h.ApplySparse(0, {1}, {1.f, 2.f, 3.f}, 3);
  BOOST_TEST(wide->status.message().find("Shape mismatch: expected values dim 1 to be 2, got 3") !=
                 std::string::npos,
             wide->status);
  AccumulatorGradient known;
  known.indices = Tensor::FromVector<int64_t>({0});
  known.values = Tensor::FromVector<float>({1.f, 2.f}, TensorShape{1, 2});
  known.shape = Tensor::FromVector<int64_t>({5, 2});
  known.has_known_shape = true;
  auto bad_dense_shape = h.Apply(0, known);
  BOOST_TEST(bad_dense_shape->status.message().find(
                 "Shape mismatch: expected shape dim 0 to be 4, got 5") != std::string::npos,
             bad_dense_shape->status);
  AccumulatorGradient mismatched;
  mismatched.indices = Tensor::FromVector<int64_t>({0, 1});
  mismatched.values = Tensor::FromVector<float>({1.f, 2.f}, TensorShape{1, 2});
  BOOST_TEST(h.Apply(0, mismatched)->status.message().find(
                 "Expected 2 non-empty input values, got 1") != std::string::npos);
  BOOST_TEST(h.core.num_accumulated() == 0);
}

BOOST_AUTO_TEST_CASE(a_sparse_shape_without_a_first_dim_reports_minus_one) {
  Harness h(Sparse(PartialTensorShape()));
  BOOST_TEST(h.ApplySparse(0, {9}, {1.f, 2.f, 3.f}, 3)->applied);
  auto taken = h.Take(1);
  BOOST_TEST_REQUIRE(taken->status.ok());
  BOOST_TEST(std::vector<int64_t>(taken->result.shape.data<int64_t>(),
                                  taken->result.shape.data<int64_t>() + 2) ==
             (std::vector<int64_t>{-1, 3}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::actors
