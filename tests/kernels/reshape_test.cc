// Reshape, ExpandDims and Squeeze: shapes, buffer sharing (no copy) and
// errors that name the node.
#include <vector>

#include "tests/kernels/array_test_util.h"

namespace af::test {
namespace {

std::vector<int64_t> Identity(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

// Runs `op` on `in` plus `extra` inputs and checks that the output has
// `want` shape, the same elements in order and the input's very buffer.
void ExpectSharedView(KernelRunner& runner, const Tensor& in, const TensorShape& want) {
  auto out = runner.Run();
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckPicked((*out)[0], want, in, Identity(in.NumElements())));
  if (in.NumElements() > 0) {
    BOOST_CHECK((*out)[0].SharesBufferWith(in));
    BOOST_CHECK_EQUAL((*out)[0].raw_data(), in.raw_data());
  }
}

BOOST_AUTO_TEST_SUITE(reshape_ops)

BOOST_AUTO_TEST_CASE(reshape_infers_the_minus_one_dim_and_shares_the_buffer) {
  struct Case {
    TensorShape in;
    std::vector<int64_t> shape;
    TensorShape want;
  };
  const std::vector<Case> cases = {
      {{2, 3, 4}, {6, 4}, {6, 4}}, {{2, 3, 4}, {-1}, {24}},   {{2, 3, 4}, {4, -1, 2}, {4, 3, 2}},
      {{6}, {1, 6, 1}, {1, 6, 1}}, {{}, {1, 1}, {1, 1}},      {{1, 1}, {}, {}},
      {{0, 3}, {3, 0}, {3, 0}},    {{0, 3}, {-1, 0}, {3, 0}}, {{0, 3}, {-1, 3}, {0, 3}},
      {{5}, {-1, 5}, {1, 5}},
  };
  uint32_t seed = 1;
  for (DataType dt : MovableTestTypes()) {
    for (const Case& c : cases) {
      for (DataType index : {DT_INT32, DT_INT64}) {
        Tensor in = RandomValues(dt, c.in, seed++);
        KernelRunner runner("Reshape");
        runner.Input(in).Input(Ints(c.shape, index));
        ExpectSharedView(runner, in, c.want);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(reshape_errors_name_the_node_and_both_shapes) {
  struct Case {
    TensorShape in;
    std::vector<int64_t> shape;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{2, 3},
       {4, 2},
       "Input to reshape is a tensor with 6 values (shape [2,3]), but the requested shape "
       "[4,2] has 8"},
      {{2, 3},
       {-1, 4},
       "Input to reshape is a tensor with 6 values (shape [2,3]), but the requested shape "
       "[-1,4] requires a multiple of 4"},
      {{2, 3}, {-1, -1}, "Only one input size may be -1, not both 0 and 1"},
      {{2, 3}, {2, -3}, "Size 1 must be non-negative, not -3"},
  };
  for (const Case& c : cases) {
    KernelRunner runner("Reshape", "my_reshape");
    runner.Input(Tensor(DT_FLOAT, c.in)).Input(Ints(c.shape));
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), c.message), out.status().ToString());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "node 'my_reshape' (op 'Reshape')"),
                        out.status().ToString());
  }
  // A scalar shape is accepted as a one-dim shape, as TensorFlow does.
  Tensor in = RandomValues(DT_FLOAT, {2, 3}, 4);
  KernelRunner scalar_shape("Reshape");
  scalar_shape.Input(in).Input(IntScalar(-1));
  ExpectSharedView(scalar_shape, in, {6});

  KernelRunner matrix("Reshape", "m");
  matrix.Input(Tensor(DT_FLOAT, TensorShape{4})).Input(IntsOfShape({2, 2}, {2, 1}));
  auto out = matrix.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_MESSAGE(Contains(out.status().message(), "shape must be a vector"),
                      out.status().ToString());
}

BOOST_AUTO_TEST_CASE(expand_dims_accepts_every_axis_in_range_and_shares_the_buffer) {
  uint32_t seed = 100;
  for (const TensorShape& shape : {TensorShape{}, TensorShape{3}, TensorShape{2, 0, 4}}) {
    const int rank = shape.dims();
    for (int axis = -rank - 1; axis <= rank; ++axis) {
      for (DataType dt : MovableTestTypes()) {
        Tensor in = RandomValues(dt, shape, seed++);
        TensorShape want = shape;
        want.InsertDim(axis < 0 ? axis + rank + 1 : axis, 1);
        KernelRunner runner("ExpandDims");
        runner.Input(in).Input(IntScalar(axis, seed % 2 ? DT_INT32 : DT_INT64));
        ExpectSharedView(runner, in, want);
      }
    }
  }
  // A one-element vector axis is accepted too, as TensorFlow.
  Tensor in = RandomValues(DT_FLOAT, {2, 3}, 7);
  KernelRunner vector_axis("ExpandDims");
  vector_axis.Input(in).Input(Ints({1}));
  ExpectSharedView(vector_axis, in, {2, 1, 3});
}

BOOST_AUTO_TEST_CASE(expand_dims_rejects_an_axis_out_of_range) {
  for (int64_t axis : {-4, 3}) {
    KernelRunner runner("ExpandDims", "ed");
    runner.Input(Tensor(DT_FLOAT, TensorShape{2, 3})).Input(IntScalar(axis));
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(Contains(out.status().message(),
                                 "node 'ed' (op 'ExpandDims'): Tried to expand dim index " +
                                     std::to_string(axis) + " for tensor with 2 dimensions."),
                        out.status().ToString());
  }
}

BOOST_AUTO_TEST_CASE(squeeze_drops_all_or_the_listed_size_one_dims_sharing_the_buffer) {
  struct Case {
    TensorShape in;
    std::vector<int64_t> dims;
    TensorShape want;
  };
  const std::vector<Case> cases = {
      {{1, 3, 1, 2}, {}, {3, 2}},
      {{1, 3, 1, 2}, {0}, {3, 1, 2}},
      {{1, 3, 1, 2}, {-2}, {1, 3, 2}},
      {{1, 3, 1, 2}, {2, 0}, {3, 2}},
      {{1, 1}, {}, {}},
      {{}, {}, {}},
      {{0, 1}, {}, {0}},
      {{4}, {}, {4}},
  };
  uint32_t seed = 200;
  for (DataType dt : MovableTestTypes()) {
    for (const Case& c : cases) {
      Tensor in = RandomValues(dt, c.in, seed++);
      KernelRunner runner("Squeeze");
      runner.Input(in);
      if (!c.dims.empty()) runner.Attr("squeeze_dims", c.dims);
      ExpectSharedView(runner, in, c.want);
    }
  }
}

BOOST_AUTO_TEST_CASE(squeeze_rejects_dims_that_are_not_one_or_out_of_range) {
  {
    KernelRunner runner("Squeeze", "sq");
    runner.Input(Tensor(DT_FLOAT, TensorShape{1, 3})).Attr("squeeze_dims", std::vector<int64_t>{1});
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(),
                                 "node 'sq' (op 'Squeeze'): Can not squeeze dim[1], expected a "
                                 "dimension of 1, got 3"),
                        out.status().ToString());
  }
  {
    KernelRunner runner("Squeeze", "sq");
    runner.Input(Tensor(DT_FLOAT, TensorShape{1, 3})).Attr("squeeze_dims", std::vector<int64_t>{2});
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(),
                                 "Tried to squeeze dim index 2 for tensor with 2 dimensions."),
                        out.status().ToString());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
