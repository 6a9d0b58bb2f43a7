// Const, Placeholder, PlaceholderWithDefault, the identity family and NoOp.
#include <mutex>
#include <string>

#include "tests/kernels/op_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using testing::Contains;

BOOST_AUTO_TEST_SUITE(array_ops)

BOOST_AUTO_TEST_CASE(const_outputs_its_value_sharing_one_buffer_across_steps) {
  Tensor value = Tensor::FromVector<float>({1.5f, -2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  KernelRunner runner("Const", "c");
  runner.Attr("value", value).Attr("dtype", DT_FLOAT);
  auto first = runner.Run();
  AF_REQUIRE_OK(first.status());
  auto second = runner.Run();
  AF_REQUIRE_OK(second.status());
  AF_EXPECT_OK(CheckTensor((*first)[0], DT_FLOAT, {2, 3}, {1.5, -2, 3, 4, 5, 6}));
  // Decoded once at construction: every step hands out the same buffer.
  BOOST_CHECK((*first)[0].SharesBufferWith((*second)[0]));
  BOOST_CHECK_EQUAL((*first)[0].raw_data(), (*second)[0].raw_data());
}

BOOST_AUTO_TEST_CASE(const_handles_int_string_and_empty_values) {
  {
    KernelRunner runner("Const");
    runner.Attr("value", Tensor::Scalar<int64_t>(-7)).Attr("dtype", DT_INT64);
    auto out = runner.Run();
    AF_REQUIRE_OK(out.status());
    AF_EXPECT_OK(CheckTensor((*out)[0], DT_INT64, {}, {-7}));
  }
  {
    Tensor strings(DT_STRING, TensorShape{2});
    strings.data<std::string>()[0] = "ab";
    strings.data<std::string>()[1] = "";
    KernelRunner runner("Const");
    runner.Attr("value", strings).Attr("dtype", DT_STRING);
    auto out = runner.Run();
    AF_REQUIRE_OK(out.status());
    BOOST_REQUIRE_EQUAL((*out)[0].NumElements(), 2);
    BOOST_CHECK_EQUAL((*out)[0].data<std::string>()[0], "ab");
    BOOST_CHECK_EQUAL((*out)[0].data<std::string>()[1], "");
  }
  {
    KernelRunner runner("Const");
    runner.Attr("value", Tensor(DT_FLOAT, TensorShape{0, 4})).Attr("dtype", DT_FLOAT);
    auto out = runner.Run();
    AF_REQUIRE_OK(out.status());
    BOOST_CHECK_EQUAL((*out)[0].shape(), TensorShape({0, 4}));
  }
}

BOOST_AUTO_TEST_CASE(const_rejects_a_value_of_another_dtype) {
  KernelRunner runner("Const", "bad_const");
  runner.Attr("value", Tensor::Scalar<float>(1.f)).Attr("dtype", DT_INT32);
  Status s = runner.Build();
  BOOST_CHECK_EQUAL(s.code(), Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(
      Contains(s.message(), "Type mismatch between value (float) and dtype (int32)"), s.ToString());
}

BOOST_AUTO_TEST_CASE(unfed_placeholder_fails_naming_dtype_and_shape) {
  KernelRunner runner("Placeholder", "X");
  runner.Attr("dtype", DT_FLOAT).Attr("shape", PartialTensorShape({-1, 784}));
  auto out = runner.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(
      Contains(out.status().message(),
               "You must feed a value for placeholder tensor 'X' with dtype float and shape "
               "[?,784]"),
      out.status().ToString());
}

BOOST_AUTO_TEST_CASE(unfed_placeholder_of_unknown_shape_names_only_the_dtype) {
  KernelRunner runner("Placeholder", "labels");
  runner.Attr("dtype", DT_INT32);
  auto out = runner.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(Contains(out.status().message(),
                               "You must feed a value for placeholder tensor 'labels' with "
                               "dtype int32"),
                      out.status().ToString());
  BOOST_CHECK(!Contains(out.status().message(), "shape"));
}

BOOST_AUTO_TEST_CASE(placeholder_with_default_forwards_its_input) {
  Tensor in = RandomTensor<float>({3, 2}, 1);
  KernelRunner runner("PlaceholderWithDefault");
  runner.Attr("shape", PartialTensorShape({-1, 2})).Input(in);
  auto out = runner.Run();
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK((*out)[0].SharesBufferWith(in));
  BOOST_CHECK_EQUAL((*out)[0].shape(), in.shape());
}

BOOST_AUTO_TEST_CASE(identities_forward_without_copying) {
  for (const char* op : {"Identity", "StopGradient", "PreventGradient"}) {
    BOOST_TEST_CONTEXT(op) {
      Tensor in = RandomTensor<int32_t>({4, 5}, 2, -100, 100);
      auto out = RunKernel(op, {in});
      AF_REQUIRE_OK(out.status());
      BOOST_CHECK_EQUAL((*out)[0].dtype(), DT_INT32);
      BOOST_CHECK_EQUAL((*out)[0].shape(), in.shape());
      BOOST_CHECK_EQUAL((*out)[0].raw_data(), in.raw_data());
    }
  }
}

BOOST_AUTO_TEST_CASE(identity_of_a_reference_input_shares_the_variable_buffer) {
  Tensor variable = Tensor::FromVector<double>({1, 2, 3});
  std::mutex mu;
  KernelRunner runner("Identity");
  runner.Attr("T", DT_DOUBLE).RefInput(&variable, &mu);
  auto out = runner.Run();
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK((*out)[0].SharesBufferWith(variable));
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_DOUBLE, {3}, {1, 2, 3}));
}

BOOST_AUTO_TEST_CASE(identity_n_forwards_each_input_to_its_output) {
  Tensor a = RandomTensor<float>({2}, 3);
  Tensor b = Tensor::FromVector<bool>({true, false, true});
  Tensor c = Tensor::Scalar<int64_t>(42);
  auto out = RunKernel("IdentityN", {a, b, c});
  AF_REQUIRE_OK(out.status());
  BOOST_REQUIRE_EQUAL(out->size(), 3u);
  BOOST_CHECK((*out)[0].SharesBufferWith(a));
  BOOST_CHECK((*out)[1].SharesBufferWith(b));
  BOOST_CHECK((*out)[2].SharesBufferWith(c));
  BOOST_CHECK_EQUAL((*out)[1].dtype(), DT_BOOL);
}

BOOST_AUTO_TEST_CASE(snapshot_copies_a_buffer_someone_else_holds) {
  Tensor in = RandomTensor<float>({3, 3}, 4);
  auto out = RunKernel("Snapshot", {in});
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK(!(*out)[0].SharesBufferWith(in));
  std::vector<double> want;
  for (int64_t i = 0; i < in.NumElements(); ++i) want.push_back(ValueAsDouble(in, i));
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_FLOAT, {3, 3}, want));
}

BOOST_AUTO_TEST_CASE(snapshot_forwards_a_buffer_only_it_can_see) {
  Tensor in = RandomTensor<float>({8}, 5);
  const void* data = in.raw_data();
  KernelRunner runner("Snapshot");
  runner.Input(std::move(in));  // the harness now holds the only reference
  auto out = runner.Run();
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK_EQUAL((*out)[0].raw_data(), data);
}

BOOST_AUTO_TEST_CASE(snapshot_of_a_variable_is_a_copy) {
  Tensor variable = Tensor::FromVector<int64_t>({5, 6});
  std::mutex mu;
  KernelRunner runner("Snapshot");
  runner.Attr("T", DT_INT64).RefInput(&variable, &mu);
  auto out = runner.Run();
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK(!(*out)[0].SharesBufferWith(variable));
  variable.data<int64_t>()[0] = 99;  // later writes do not show through
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_INT64, {2}, {5, 6}));
}

BOOST_AUTO_TEST_CASE(no_op_succeeds_without_outputs) {
  auto out = RunKernel("NoOp", {});
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK(out->empty());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
