// Select (TensorFlow 1 rules: same shape, scalar or row-vector condition)
// and SelectV2 (three-way broadcasting) against reference loops.
#include <string>
#include <vector>

#include "tests/kernels/math_test_util.h"

namespace af::test {
namespace {

// SelectV2 reference: out[i] = cond ? t : e with all three broadcast.
std::vector<double> ReferenceSelectV2(const Tensor& c, const Tensor& t, const Tensor& e,
                                      TensorShape* shape) {
  *shape = BroadcastReferenceShape({c.shape(), t.shape(), e.shape()});
  std::vector<double> out(shape->num_elements());
  for (int64_t i = 0; i < shape->num_elements(); ++i) {
    const bool pick = c.data<bool>()[BroadcastSourceIndex(c.shape(), *shape, i)];
    out[i] = pick ? ValueAsDouble(t, BroadcastSourceIndex(t.shape(), *shape, i))
                  : ValueAsDouble(e, BroadcastSourceIndex(e.shape(), *shape, i));
  }
  return out;
}

template <typename T>
void CheckSelectV2() {
  struct Case {
    TensorShape c, t, e;
  };
  const std::vector<Case> cases = {
      {{2, 3}, {2, 3}, {2, 3}},
      {{}, {4, 5}, {4, 5}},
      {{}, {4, 5}, {5}},
      {{3, 1}, {1, 4}, {3, 4}},
      {{4}, {3, 4}, {}},
      {{2, 1, 3}, {1, 5, 1}, {3}},
      {{1}, {}, {}},
      {{0, 2}, {2}, {1, 2}},
      {{6, 1, 1, 7}, {1, 5, 1, 7}, {5, 2, 7}},
      {{300, 1}, {300, 50}, {1, 50}},
  };
  uint32_t seed = 700;
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("SelectV2<" << DataTypeString(DataTypeToEnum<T>::value) << "> "
                                   << c.c.DebugString() << " " << c.t.DebugString() << " "
                                   << c.e.DebugString()) {
      Tensor cond = RandomTensor<bool>(c.c, ++seed);
      Tensor t = RandomTensor<T>(c.t, ++seed, -50, 50);
      Tensor e = RandomTensor<T>(c.e, ++seed, -50, 50);
      TensorShape shape;
      const std::vector<double> want = ReferenceSelectV2(cond, t, e, &shape);
      auto out = RunKernel("SelectV2", {cond, t, e});
      AF_REQUIRE_OK(out.status());
      AF_EXPECT_OK(CheckTensor((*out)[0], DataTypeToEnum<T>::value, shape, want));
    }
  }
}

BOOST_AUTO_TEST_SUITE(select)

BOOST_AUTO_TEST_CASE(select_v2_float) { CheckSelectV2<float>(); }
BOOST_AUTO_TEST_CASE(select_v2_double) { CheckSelectV2<double>(); }
BOOST_AUTO_TEST_CASE(select_v2_int32) { CheckSelectV2<int32_t>(); }
BOOST_AUTO_TEST_CASE(select_v2_int64) { CheckSelectV2<int64_t>(); }
BOOST_AUTO_TEST_CASE(select_v2_bool) { CheckSelectV2<bool>(); }

BOOST_AUTO_TEST_CASE(select_v2_scalar_condition_passes_the_input_through) {
  Tensor t = RandomTensor<float>({3, 4}, 1), e = RandomTensor<float>({3, 4}, 2);
  auto out = RunKernel("SelectV2", {Tensor::Scalar<bool>(false), t, e});
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK((*out)[0].SharesBufferWith(e));
}

BOOST_AUTO_TEST_CASE(select_v2_rejects_shapes_that_do_not_broadcast) {
  auto out = RunKernel("SelectV2", {RandomTensor<bool>({2}, 1), RandomTensor<float>({3}, 2),
                                    RandomTensor<float>({3}, 3)});
  ExpectError(out, Code::INVALID_ARGUMENT, "SelectV2",
              {"condition [2], then [3], and else [3] must be broadcastable"});
}

template <typename T>
void CheckSelectV1() {
  uint32_t seed = 900;
  // Element-wise and, with a vector condition, whole rows.
  for (const auto& [cs, ds] : std::vector<std::pair<TensorShape, TensorShape>>{
           {{2, 3}, {2, 3}}, {{7}, {7}}, {{4}, {4, 5}}, {{3}, {3, 2, 2}}, {{0}, {0, 3}}}) {
    BOOST_TEST_CONTEXT("Select<" << DataTypeString(DataTypeToEnum<T>::value) << "> "
                                 << cs.DebugString() << " " << ds.DebugString()) {
      Tensor cond = RandomTensor<bool>(cs, ++seed);
      Tensor t = RandomTensor<T>(ds, ++seed, -50, 50);
      Tensor e = RandomTensor<T>(ds, ++seed, -50, 50);
      std::vector<double> want(ds.num_elements());
      const int64_t row = cs == ds || ds.dim_size(0) == 0 ? 1 : ds.num_elements() / ds.dim_size(0);
      for (int64_t i = 0; i < ds.num_elements(); ++i) {
        const bool pick = cond.data<bool>()[cs == ds ? i : i / row];
        want[i] = ValueAsDouble(pick ? t : e, i);
      }
      auto out = RunKernel("Select", {cond, t, e});
      AF_REQUIRE_OK(out.status());
      AF_EXPECT_OK(CheckTensor((*out)[0], DataTypeToEnum<T>::value, ds, want));
    }
  }
}

BOOST_AUTO_TEST_CASE(select_v1_float) { CheckSelectV1<float>(); }
BOOST_AUTO_TEST_CASE(select_v1_int64) { CheckSelectV1<int64_t>(); }

BOOST_AUTO_TEST_CASE(select_v1_scalar_condition) {
  Tensor t = RandomTensor<int32_t>({2, 2}, 1, -5, 5), e = RandomTensor<int32_t>({2, 2}, 2, -5, 5);
  auto out = RunKernel("Select", {Tensor::Scalar<bool>(true), t, e});
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK((*out)[0].SharesBufferWith(t));
}

BOOST_AUTO_TEST_CASE(select_v1_strings) {
  Tensor t = Tensor::FromVector<std::string>({"a", "b", "c"});
  Tensor e = Tensor::FromVector<std::string>({"x", "y", "z"});
  auto out = RunKernel("Select", {Tensor::FromVector<bool>({true, false, true}), t, e});
  AF_REQUIRE_OK(out.status());
  const std::string* z = (*out)[0].data<std::string>();
  BOOST_CHECK_EQUAL(z[0], "a");
  BOOST_CHECK_EQUAL(z[1], "y");
  BOOST_CHECK_EQUAL(z[2], "c");
}

BOOST_AUTO_TEST_CASE(select_v1_errors) {
  auto mismatch = RunKernel("Select", {RandomTensor<bool>({2}, 1), RandomTensor<float>({2}, 2),
                                       RandomTensor<float>({3}, 3)});
  ExpectError(mismatch, Code::INVALID_ARGUMENT, "Select",
              {"'then' and 'else' must have the same size", "[2] vs. [3]"});
  auto rows = RunKernel("Select", {RandomTensor<bool>({3}, 1), RandomTensor<float>({2, 4}, 2),
                                   RandomTensor<float>({2, 4}, 3)});
  ExpectError(rows, Code::INVALID_ARGUMENT, "Select",
              {"Number of batches of 'then' must match size of 'cond'", "2 vs. 3"});
  // Select does not broadcast a matrix condition the way SelectV2 does.
  auto shape = RunKernel("Select", {RandomTensor<bool>({2, 1}, 1), RandomTensor<float>({2, 4}, 2),
                                    RandomTensor<float>({2, 4}, 3)});
  ExpectError(shape, Code::INVALID_ARGUMENT, "Select", {"[2,1] vs. [2,4]"});
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
