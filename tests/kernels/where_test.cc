// Where: the coordinates of the true (non-zero) elements, row-major,
// against a reference loop, for bool and numeric inputs of several ranks;
// -0.0 counts as zero.
#include <vector>

#include "tests/kernels/array_test_util.h"

namespace af::test {
namespace {

// Row i: the coordinates of the i-th non-zero element.
template <typename T>
std::vector<double> ReferenceWhere(const Tensor& input, int64_t* num_true) {
  std::vector<double> coords;
  *num_true = 0;
  for (int64_t i = 0; i < input.NumElements(); ++i) {
    if (input.data<T>()[i] == T(0)) continue;
    ++*num_true;
    for (int64_t c : Unflatten(input.shape(), i)) coords.push_back(static_cast<double>(c));
  }
  return coords;
}

template <typename T>
void CheckWhere(double lo, double hi) {
  const std::vector<TensorShape> shapes = {{}, {0}, {7}, {3, 4}, {2, 3, 5}, {2, 1, 3, 2}};
  uint32_t seed = 900;
  for (const TensorShape& shape : shapes) {
    BOOST_TEST_CONTEXT("Where<" << DataTypeString(DataTypeToEnum<T>::value) << "> "
                                << shape.DebugString()) {
      Tensor input = RandomTensor<T>(shape, ++seed, lo, hi);
      int64_t num_true = 0;
      const std::vector<double> want = ReferenceWhere<T>(input, &num_true);
      auto out = RunKernel("Where", {input});
      AF_REQUIRE_OK(out.status());
      AF_EXPECT_OK(
          CheckTensor((*out)[0], DT_INT64, TensorShape{num_true, shape.dims()}, want));
    }
  }
}

BOOST_AUTO_TEST_SUITE(where)

BOOST_AUTO_TEST_CASE(where_bool) { CheckWhere<bool>(0, 1); }
BOOST_AUTO_TEST_CASE(where_int32) { CheckWhere<int32_t>(-1, 1); }
BOOST_AUTO_TEST_CASE(where_int64) { CheckWhere<int64_t>(0, 2); }
BOOST_AUTO_TEST_CASE(where_uint8) { CheckWhere<uint8_t>(0, 1); }

BOOST_AUTO_TEST_CASE(where_float_treats_negative_zero_as_zero) {
  auto out = RunKernel("Where", {Tensor::FromVector<float>({0.0f, -0.0f, 1.5f, 0.0f, -2.0f})});
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_INT64, TensorShape{2, 1}, {2, 4}));
}

BOOST_AUTO_TEST_CASE(where_of_nothing_true_is_empty) {
  Tensor none(DT_BOOL, TensorShape{2, 3});
  for (int i = 0; i < 6; ++i) none.data<bool>()[i] = false;
  auto out = RunKernel("Where", {none});
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_INT64, TensorShape{0, 2}, {}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
