// Shape, ShapeN, Size, Rank, Fill, ZerosLike, OnesLike and Range.
#include <cmath>
#include <vector>

#include "tests/kernels/array_test_util.h"

namespace af::test {
namespace {

std::vector<double> DimsAsDoubles(const TensorShape& shape) {
  std::vector<double> out;
  for (int d = 0; d < shape.dims(); ++d) out.push_back(static_cast<double>(shape.dim_size(d)));
  return out;
}

BOOST_AUTO_TEST_SUITE(shape_and_fill_ops)

BOOST_AUTO_TEST_CASE(shape_size_and_rank_describe_inputs_of_any_type) {
  const std::vector<TensorShape> shapes = {{},        {0},       {3},
                                           {2, 1, 4}, {1, 0, 5}, {2, 2, 2, 2, 2, 2, 2}};
  uint32_t seed = 1;
  for (DataType dt : MovableTestTypes()) {
    for (const TensorShape& shape : shapes) {
      for (DataType out_type : {DT_INT32, DT_INT64}) {
        KernelRunner shape_op("Shape");
        shape_op.Input(RandomValues(dt, shape, seed++)).Attr("out_type", out_type);
        auto out = shape_op.Run();
        AF_REQUIRE_OK(out.status());
        AF_EXPECT_OK(CheckTensor((*out)[0], out_type, {shape.dims()}, DimsAsDoubles(shape)));

        KernelRunner size_op("Size");
        size_op.Input(RandomValues(dt, shape, seed++)).Attr("out_type", out_type);
        out = size_op.Run();
        AF_REQUIRE_OK(out.status());
        AF_EXPECT_OK(
            CheckTensor((*out)[0], out_type, {}, {static_cast<double>(shape.num_elements())}));
      }
      auto rank = RunKernel("Rank", {RandomValues(dt, shape, seed++)});
      AF_REQUIRE_OK(rank.status());
      AF_EXPECT_OK(CheckTensor((*rank)[0], DT_INT32, {}, {static_cast<double>(shape.dims())}));
    }
  }
}

BOOST_AUTO_TEST_CASE(shape_n_gives_one_shape_per_input) {
  KernelRunner runner("ShapeN");
  runner.Input(Tensor(DT_FLOAT, TensorShape{2, 3}))
      .Input(Tensor(DT_FLOAT, TensorShape{}))
      .Input(Tensor(DT_FLOAT, TensorShape{0, 7, 1}))
      .Attr("out_type", DT_INT64);
  auto out = runner.Run();
  AF_REQUIRE_OK(out.status());
  BOOST_REQUIRE_EQUAL(out->size(), 3u);
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_INT64, {2}, {2, 3}));
  AF_EXPECT_OK(CheckTensor((*out)[1], DT_INT64, {0}, {}));
  AF_EXPECT_OK(CheckTensor((*out)[2], DT_INT64, {3}, {0, 7, 1}));
}

BOOST_AUTO_TEST_CASE(fill_repeats_the_value_for_every_type) {
  uint32_t seed = 10;
  for (DataType dt : MovableTestTypes()) {
    for (const std::vector<int64_t>& dims :
         std::vector<std::vector<int64_t>>{{}, {0}, {4}, {2, 3}, {1, 0, 2}, {3, 1, 2}}) {
      Tensor value = RandomValues(dt, {}, seed++);
      TensorShape shape(dims);
      KernelRunner runner("Fill");
      runner.Input(Ints(dims, seed % 2 ? DT_INT32 : DT_INT64)).Input(value);
      auto out = runner.Run();
      AF_REQUIRE_OK(out.status());
      std::vector<int64_t> source(static_cast<size_t>(shape.num_elements()), 0);
      AF_EXPECT_OK(CheckPicked((*out)[0], shape, value, source));
    }
  }
}

BOOST_AUTO_TEST_CASE(fill_rejects_bad_dims_and_values) {
  struct Case {
    Tensor dims, value;
    std::string message;
  };
  const std::vector<Case> cases = {
      {Ints({2, -1}), Tensor::Scalar<float>(1.f),
       "dimension 1 of a shape is -1, which is negative"},
      {IntsOfShape({2, 2}, {1, 2}), Tensor::Scalar<float>(1.f), "dims must be a vector"},
      {Ints({2}), Tensor::FromVector<float>({1.f, 2.f}), "value must be a scalar"},
  };
  for (const Case& c : cases) {
    KernelRunner runner("Fill", "f");
    runner.Input(c.dims).Input(c.value);
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "node 'f' (op 'Fill')"),
                        out.status().ToString());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), c.message), out.status().ToString());
  }
}

BOOST_AUTO_TEST_CASE(zeros_like_and_ones_like_keep_shape_and_type) {
  uint32_t seed = 30;
  for (const TensorShape& shape : {TensorShape{}, TensorShape{0, 2}, TensorShape{3, 4}}) {
    for (DataType dt : {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_BOOL}) {
      const std::vector<double> zeros(static_cast<size_t>(shape.num_elements()), 0.0);
      const std::vector<double> ones(static_cast<size_t>(shape.num_elements()), 1.0);
      auto z = RunKernel("ZerosLike", {RandomValues(dt, shape, seed++)});
      AF_REQUIRE_OK(z.status());
      AF_EXPECT_OK(CheckTensor((*z)[0], dt, shape, zeros));
      auto o = RunKernel("OnesLike", {RandomValues(dt, shape, seed++)});
      AF_REQUIRE_OK(o.status());
      AF_EXPECT_OK(CheckTensor((*o)[0], dt, shape, ones));
    }
  }
  // The 16-bit floats and complex numbers by their bits and parts.
  auto half_ones = RunKernel("OnesLike", {RandomValues(DT_HALF, {3}, 1)});
  AF_REQUIRE_OK(half_ones.status());
  for (int i = 0; i < 3; ++i) BOOST_CHECK_EQUAL(HalfToFloat((*half_ones)[0].data<half>()[i]), 1.f);
  auto bf_ones = RunKernel("OnesLike", {RandomValues(DT_BFLOAT16, {2}, 1)});
  AF_REQUIRE_OK(bf_ones.status());
  BOOST_CHECK_EQUAL(BFloat16ToFloat((*bf_ones)[0].data<bfloat16>()[1]), 1.f);
  auto complex_ones = RunKernel("OnesLike", {RandomValues(DT_COMPLEX64, {2}, 1)});
  AF_REQUIRE_OK(complex_ones.status());
  BOOST_CHECK((*complex_ones)[0].data<complex64>()[0] == complex64(1.f, 0.f));
  auto string_zeros = RunKernel("ZerosLike", {RandomValues(DT_STRING, {2}, 1)});
  AF_REQUIRE_OK(string_zeros.status());
  BOOST_CHECK_EQUAL((*string_zeros)[0].data<std::string>()[1], "");
  auto complex_zeros = RunKernel("ZerosLike", {RandomValues(DT_COMPLEX128, {2}, 1)});
  AF_REQUIRE_OK(complex_zeros.status());
  BOOST_CHECK((*complex_zeros)[0].data<complex128>()[1] == complex128(0, 0));
}

template <typename T>
void CheckRange(T start, T limit, T delta) {
  // Reference: count by stepping in double, values start + i * delta.
  std::vector<double> want;
  const double s = static_cast<double>(start), l = static_cast<double>(limit),
               d = static_cast<double>(delta);
  for (double v = s; d > 0 ? v < l : v > l; v = s + d * static_cast<double>(want.size()))
    want.push_back(v);
  auto out = RunKernel(
      "Range", {Tensor::Scalar<T>(start), Tensor::Scalar<T>(limit), Tensor::Scalar<T>(delta)});
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor((*out)[0], DataTypeToEnum<T>::value, {static_cast<int64_t>(want.size())},
                           want, 1e-6, 1e-6));
}

BOOST_AUTO_TEST_CASE(range_counts_up_and_down_for_ints_and_floats) {
  CheckRange<int32_t>(0, 10, 1);
  CheckRange<int32_t>(3, 18, 4);
  CheckRange<int32_t>(10, -3, -3);
  CheckRange<int32_t>(5, 5, 1);
  CheckRange<int64_t>(-7, 100, 9);
  CheckRange<int64_t>(1, 0, -1);
  CheckRange<float>(0.f, 1.f, 0.1f);
  CheckRange<float>(2.5f, -1.f, -0.5f);
  CheckRange<double>(-1.0, 2.0, 0.25);
  CheckRange<double>(0.0, 0.0, 1.0);
}

BOOST_AUTO_TEST_CASE(range_rejects_zero_or_wrong_direction_deltas) {
  struct Case {
    int32_t start, limit, delta;
    std::string message;
  };
  const std::vector<Case> cases = {
      {0, 5, 0, "Requires delta != 0: 0"},
      {5, 1, 1, "Requires start <= limit when delta > 0: 5/1"},
      {1, 5, -1, "Requires start >= limit when delta < 0: 1/5"},
  };
  for (const Case& c : cases) {
    KernelRunner runner("Range", "r");
    runner.Input(Tensor::Scalar<int32_t>(c.start))
        .Input(Tensor::Scalar<int32_t>(c.limit))
        .Input(Tensor::Scalar<int32_t>(c.delta));
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "node 'r' (op 'Range'): " + c.message),
                        out.status().ToString());
  }
  KernelRunner vector_start("Range", "r");
  vector_start.Input(Ints({0})).Input(IntScalar(3)).Input(IntScalar(1));
  auto out = vector_start.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_MESSAGE(Contains(out.status().message(), "start must be a scalar"),
                      out.status().ToString());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
