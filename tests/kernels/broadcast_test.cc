// The broadcast planner on its own: output shapes, merged dims, the fast
// path each shape pair lands in, and the loop driver against a naive walk.
#include "kernels/math/broadcast.h"

#include <vector>

#include "tests/kernels/op_test_util.h"

namespace af::test {
namespace {

using Kind = BinaryBroadcast::Kind;

Kind KindOf(const TensorShape& x, const TensorShape& y) {
  BinaryBroadcast plan;
  Status s = plan.Init(x, y);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return plan.kind();
}

BOOST_AUTO_TEST_SUITE(broadcast)

BOOST_AUTO_TEST_CASE(output_shapes_follow_numpy_rules) {
  struct Case {
    TensorShape x, y, out;
  };
  const std::vector<Case> cases = {
      {{2, 3}, {2, 3}, {2, 3}},       {{}, {4, 5}, {4, 5}},
      {{3, 4}, {4}, {3, 4}},          {{3, 1}, {1, 4}, {3, 4}},
      {{2, 1, 4}, {3, 1}, {2, 3, 4}}, {{1}, {}, {1}},
      {{0, 3}, {3}, {0, 3}},          {{2, 0}, {2, 1}, {2, 0}},
      {{1, 1}, {1}, {1, 1}},          {{5, 1, 3, 1}, {4, 1, 2}, {5, 4, 3, 2}},
  };
  for (const auto& c : cases) {
    TensorShape out;
    AF_EXPECT_OK(BroadcastShapes(c.x, c.y, &out));
    BOOST_CHECK_EQUAL(out, c.out);
    AF_EXPECT_OK(BroadcastShapes(c.y, c.x, &out));
    BOOST_CHECK_EQUAL(out, c.out);
  }
}

BOOST_AUTO_TEST_CASE(incompatible_shapes_are_reported_as_tensorflow_does) {
  TensorShape out;
  Status s = BroadcastShapes({2, 3}, {4}, &out);
  BOOST_CHECK_EQUAL(s.code(), Code::INVALID_ARGUMENT);
  BOOST_CHECK_EQUAL(s.message(), "Incompatible shapes: [2,3] vs. [4]");
  BOOST_CHECK(!BroadcastShapes({0}, {2}, &out).ok());  // 0 is not 1
}

BOOST_AUTO_TEST_CASE(shape_pairs_land_in_the_fast_paths) {
  BOOST_CHECK(KindOf({2, 3}, {2, 3}) == Kind::kSameShape);
  BOOST_CHECK(KindOf({1, 6}, {6}) == Kind::kSameShape);
  BOOST_CHECK(KindOf({}, {}) == Kind::kSameShape);
  BOOST_CHECK(KindOf({}, {4, 5}) == Kind::kXScalar);
  BOOST_CHECK(KindOf({1, 1}, {4, 5}) == Kind::kXScalar);
  BOOST_CHECK(KindOf({4, 5}, {}) == Kind::kYScalar);
  BOOST_CHECK(KindOf({3, 4}, {4}) == Kind::kYRow);
  BOOST_CHECK(KindOf({8, 1, 4, 5}, {4, 5}) == Kind::kYRow);
  BOOST_CHECK(KindOf({4}, {3, 4}) == Kind::kXRow);
  BOOST_CHECK(KindOf({3, 4}, {3, 1}) == Kind::kYColumn);
  BOOST_CHECK(KindOf({1, 6, 1}, {6, 5}) == Kind::kXColumn);
  BOOST_CHECK(KindOf({3, 1}, {1, 4}) == Kind::kGeneral);
  BOOST_CHECK(KindOf({2, 3, 4}, {2, 1, 4}) == Kind::kGeneral);
}

BOOST_AUTO_TEST_CASE(dims_broadcasting_alike_are_merged) {
  BinaryBroadcast plan;
  AF_REQUIRE_OK(plan.Init({2, 3, 4, 5}, {1, 1, 4, 5}));
  BOOST_REQUIRE_EQUAL(plan.dims().size(), 2);
  BOOST_CHECK_EQUAL(plan.dims()[0], 6);
  BOOST_CHECK_EQUAL(plan.dims()[1], 20);
  BOOST_CHECK_EQUAL(plan.rows(), 6);
  BOOST_CHECK_EQUAL(plan.cols(), 20);
  BOOST_CHECK_EQUAL(plan.x_strides()[0], 20);
  BOOST_CHECK_EQUAL(plan.y_strides()[0], 0);
}

// The loop driver against a direct index computation, for shapes in every
// path including ranks beyond the inline dim storage.
BOOST_AUTO_TEST_CASE(loop_matches_naive_indexing) {
  struct Case {
    TensorShape x, y;
  };
  const std::vector<Case> cases = {
      {{2, 3}, {2, 3}},
      {{}, {3, 2}},
      {{3, 2}, {}},
      {{3, 4}, {4}},
      {{4}, {3, 4}},
      {{3, 4}, {3, 1}},
      {{3, 1}, {3, 4}},
      {{3, 1}, {1, 4}},
      {{2, 1, 4}, {3, 1}},
      {{5, 1, 3, 1}, {4, 1, 2}},
      {{2, 1, 2, 1, 2, 1, 2}, {1, 2, 1, 2, 1, 2, 1}},
      {{2, 3, 2, 1, 2, 1, 1, 3}, {2, 1, 2, 2, 1, 3}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.x.DebugString() << " vs " << c.y.DebugString()) {
      BinaryBroadcast plan;
      AF_REQUIRE_OK(plan.Init(c.x, c.y));
      const TensorShape& out = plan.output_shape();
      std::vector<int64_t> x(c.x.num_elements()), y(c.y.num_elements());
      for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int64_t>(i);
      for (size_t i = 0; i < y.size(); ++i) y[i] = static_cast<int64_t>(i);
      // Encode both source indices in the result so one mismatch shows both.
      std::vector<int64_t> z(out.num_elements(), -1);
      BroadcastBinaryLoop(plan, x.data(), y.data(), z.data(),
                          [](int64_t a, int64_t b) { return a * 100000 + b; });
      const int rank = out.dims();
      for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
        int64_t rest = flat, xi = 0, yi = 0, xs = 1, ys = 1;
        for (int d = rank - 1; d >= 0; --d) {
          const int64_t idx = rest % out.dim_size(d);
          rest /= out.dim_size(d);
          const int xd = d - (rank - c.x.dims()), yd = d - (rank - c.y.dims());
          if (xd >= 0) {
            if (c.x.dim_size(xd) != 1) xi += idx * xs;
            xs *= c.x.dim_size(xd);
          }
          if (yd >= 0) {
            if (c.y.dim_size(yd) != 1) yi += idx * ys;
            ys *= c.y.dim_size(yd);
          }
        }
        BOOST_REQUIRE_EQUAL(z[flat], xi * 100000 + yi);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
