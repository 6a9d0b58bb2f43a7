// AccumulatorTryApplyGradient (our own op): the apply's verdict as an
// output — kept, or dropped as stale — and with max_accumulated the surplus
// of a step dropped too, counted with the stale ones, so a take averages
// exactly that many. max_accumulated <= 0 behaves as TensorFlow's apply.
#include <boost/test/unit_test.hpp>

#include <vector>

#include "tests/actors/accumulator_test_util.h"

namespace af::testing {
namespace {

// A DenseAccumulator with a TryApply beside its apply: `cap` feeds
// max_accumulated.
struct TryApplyAccumulator : DenseAccumulator {
  explicit TryApplyAccumulator(const std::string& shared_name)
      : DenseAccumulator(PartialTensorShape({2}), shared_name) {
    cap = ops::Placeholder(root.WithOpName("cap"), DT_INT32);
    applied = ops::AccumulatorTryApplyGradient(root.WithOpName("try_apply"), handle, step,
                                               gradient, cap);
  }

  // 1: kept, 0: dropped, -1: the Run failed.
  int TryApply(const ClientSession& s, int64_t local_step, std::vector<float> g, int32_t max) {
    std::vector<Tensor> out;
    Status st = s.Run(WithTimeout(kRunTimeoutMs),
                      {{step, local_step}, {gradient, Tensor::FromVector<float>(g)}, {cap, max}},
                      {applied}, {}, &out);
    BOOST_TEST(st.ok(), st);
    return st.ok() ? (out[0].scalar<bool>() ? 1 : 0) : -1;
  }

  Output cap, applied;
};

BOOST_AUTO_TEST_CASE(the_surplus_of_a_step_is_dropped_and_counted) {
  TryApplyAccumulator acc("try_apply_cap");
  ClientSession session(acc.root);
  BOOST_TEST(acc.TryApply(session, 0, {1.f, 10.f}, 2) == 1);
  BOOST_TEST(acc.TryApply(session, 0, {3.f, 30.f}, 2) == 1);
  BOOST_TEST(acc.TryApply(session, 0, {100.f, 100.f}, 2) == 0);  // the step has its 2
  BOOST_TEST(acc.Num(session) == 2);
  BOOST_TEST(DroppedGradients("try_apply_cap") == 1);
  Tensor out;
  BOOST_REQUIRE(acc.Take(session, 2, &out).ok());
  BOOST_TEST(FloatsOf(out) == (std::vector<float>{2.f, 20.f}));  // the first two only
  // Global step 1: a gradient of step 0 is stale, whatever room there is.
  BOOST_TEST(acc.TryApply(session, 0, {1.f, 1.f}, 2) == 0);
  BOOST_TEST(DroppedGradients("try_apply_cap") == 2);
  BOOST_TEST(acc.TryApply(session, 1, {1.f, 1.f}, 2) == 1);
  BOOST_REQUIRE(session.Reset({}).ok());
}

BOOST_AUTO_TEST_CASE(without_a_cap_it_is_tensorflows_apply_with_an_answer) {
  TryApplyAccumulator acc("try_apply_uncapped");
  ClientSession session(acc.root);
  for (int i = 0; i < 3; ++i) BOOST_TEST(acc.TryApply(session, 0, {float(i), 0.f}, 0) == 1);
  BOOST_REQUIRE(acc.Apply(session, 0, {3.f, 0.f}).ok());  // TensorFlow's op, same accumulator
  BOOST_TEST(acc.Num(session) == 4);
  Tensor out;
  BOOST_REQUIRE(acc.Take(session, 2, &out).ok());  // takes everything held, as in TensorFlow
  BOOST_TEST(FloatsOf(out) == (std::vector<float>{1.5f, 0.f}));
  BOOST_TEST(DroppedGradients("try_apply_uncapped") == 0);
  BOOST_TEST(acc.TryApply(session, 0, {1.f, 1.f}, -1) == 0);  // stale
  BOOST_TEST(DroppedGradients("try_apply_uncapped") == 1);
  BOOST_REQUIRE(session.Reset({}).ok());
}

BOOST_AUTO_TEST_CASE(errors_name_the_node) {
  TryApplyAccumulator acc("try_apply_errors");
  ClientSession session(acc.root);
  std::vector<Tensor> out;
  Status s = session.Run(WithTimeout(kRunTimeoutMs),
                         {{acc.step, int64_t{0}},
                          {acc.gradient, Tensor::FromVector<float>({1.f, 2.f})},
                          {acc.cap, Tensor::FromVector<int32_t>({2, 2})}},
                         {acc.applied}, {}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  BOOST_TEST(Contains(s, "node 'try_apply'"), s);
  BOOST_TEST(Contains(s, "max_accumulated must be scalar"), s);
  BOOST_REQUIRE(session.Reset({}).ok());
}

}  // namespace
}  // namespace af::testing
