// Concat, ConcatV2, ConcatOffset, Pack, Split, SplitV and Unpack against
// reference loops; sharing of pieces along dim 0; errors.
#include <random>
#include <vector>

#include "tests/kernels/array_test_util.h"

namespace af::test {
namespace {

// Output element j of concatenating `inputs` along `axis` comes from input
// *which at flat position *pos.
void ConcatSource(const std::vector<Tensor>& inputs, int axis, const TensorShape& out, int64_t j,
                  int* which, int64_t* pos) {
  std::vector<int64_t> index = Unflatten(out, j);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const int64_t size = inputs[i].dim_size(axis);
    if (index[axis] < size) {
      *which = static_cast<int>(i);
      *pos = Flatten(inputs[i].shape(), index);
      return;
    }
    index[axis] -= size;
  }
}

void CheckConcat(const std::vector<Tensor>& inputs, int64_t axis, bool v2, DataType axis_type) {
  const int rank = inputs[0].dims();
  const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
  TensorShape want = inputs[0].shape();
  int64_t total = 0;
  for (const Tensor& t : inputs) total += t.dim_size(a);
  want.set_dim(a, total);
  KernelRunner runner(v2 ? "ConcatV2" : "Concat");
  if (!v2) runner.Input(IntScalar(axis));
  for (const Tensor& t : inputs) runner.Input(t);
  if (v2) runner.Input(IntScalar(axis, axis_type));
  auto out = runner.Run();
  AF_REQUIRE_OK(out.status());
  const Tensor& got = (*out)[0];
  BOOST_REQUIRE_EQUAL(got.shape(), want);
  for (int64_t j = 0; j < want.num_elements(); ++j) {
    int which = 0;
    int64_t pos = 0;
    ConcatSource(inputs, a, want, j, &which, &pos);
    if (!SameElement(got, j, inputs[static_cast<size_t>(which)], pos)) {
      BOOST_ERROR("concat element " << j << " differs (axis " << axis << ", shape "
                                    << want.DebugString() << ")");
      return;
    }
  }
}

BOOST_AUTO_TEST_SUITE(concat_split_ops)

BOOST_AUTO_TEST_CASE(concat_and_concat_v2_match_the_reference) {
  std::mt19937 rng(11);
  uint32_t seed = 1;
  for (int rank = 1; rank <= 4; ++rank) {
    for (int trial = 0; trial < 4; ++trial) {
      const TensorShape base = RandomShape(rng, rank, 1, 4);
      const int64_t axis = static_cast<int64_t>(rng() % (2 * rank)) - rank;  // negative too
      const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
      const int n = 2 + static_cast<int>(rng() % 3);
      for (DataType dt : MovableTestTypes()) {
        std::vector<Tensor> inputs;
        for (int i = 0; i < n; ++i) {
          TensorShape s = base;
          s.set_dim(a, static_cast<int64_t>(rng() % 4));  // 0 too: empty pieces
          inputs.push_back(RandomValues(dt, s, seed++));
        }
        CheckConcat(inputs, axis, /*v2=*/true, trial % 2 ? DT_INT32 : DT_INT64);
        CheckConcat(inputs, axis, /*v2=*/false, DT_INT32);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(concat_rejects_mismatched_shapes_and_bad_axes) {
  struct Case {
    std::vector<TensorShape> shapes;
    int64_t axis;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{2, 3}, {3, 3}},
       1,
       "ConcatOp : Dimensions of inputs should match: shape[0] = [2,3] vs. shape[1] = [3,3]"},
      {{{2, 3}, {3}},
       0,
       "ConcatOp : Ranks of all input tensors should match: shape[0] = [2,3] vs. shape[1] = "
       "[3]"},
      {{{2, 3}, {2, 3}},
       2,
       "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2"},
      {{{}, {}}, 0, "Can't concatenate scalars (use tf.stack instead)"},
  };
  for (const Case& c : cases) {
    KernelRunner runner("ConcatV2", "cat");
    for (const TensorShape& s : c.shapes) runner.Input(Tensor(DT_FLOAT, s));
    runner.Input(IntScalar(c.axis));
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(
        Contains(out.status().message(), "node 'cat' (op 'ConcatV2'): " + c.message),
        out.status().ToString());
  }
}

BOOST_AUTO_TEST_CASE(concat_offset_gives_each_inputs_start) {
  for (DataType dt : {DT_INT32, DT_INT64}) {
    KernelRunner runner("ConcatOffset");
    runner.Input(IntScalar(-2))
        .Input(Ints({2, 3, 5}, dt))
        .Input(Ints({2, 7, 5}, dt))
        .Input(Ints({2, 0, 5}, dt))
        .Input(Ints({2, 1, 5}, dt));
    auto out = runner.Run();
    AF_REQUIRE_OK(out.status());
    BOOST_REQUIRE_EQUAL(out->size(), 4u);
    AF_EXPECT_OK(CheckTensor((*out)[0], dt, {3}, {0, 0, 0}));
    AF_EXPECT_OK(CheckTensor((*out)[1], dt, {3}, {0, 3, 0}));
    AF_EXPECT_OK(CheckTensor((*out)[2], dt, {3}, {0, 10, 0}));
    AF_EXPECT_OK(CheckTensor((*out)[3], dt, {3}, {0, 10, 0}));
  }
  KernelRunner bad("ConcatOffset", "off");
  bad.Input(IntScalar(1)).Input(Ints({2, 3})).Input(Ints({4, 3}));
  auto out = bad.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_MESSAGE(Contains(out.status().message(),
                               "All dimensions except 1 must match. Input 1 has shape [4,3] and "
                               "doesn't match input 0 with shape [2,3]."),
                      out.status().ToString());
}

BOOST_AUTO_TEST_CASE(pack_stacks_along_any_axis) {
  std::mt19937 rng(5);
  uint32_t seed = 300;
  for (int rank = 0; rank <= 3; ++rank) {
    const TensorShape shape = RandomShape(rng, rank, 0, 3);
    for (int64_t axis = -(rank + 1); axis <= rank; ++axis) {
      for (DataType dt : MovableTestTypes()) {
        const int n = 1 + static_cast<int>(rng() % 3);
        std::vector<Tensor> inputs;
        KernelRunner runner("Pack");
        for (int i = 0; i < n; ++i) {
          inputs.push_back(RandomValues(dt, shape, seed++));
          runner.Input(inputs.back());
        }
        runner.Attr("axis", axis);
        auto out = runner.Run();
        AF_REQUIRE_OK(out.status());
        const int a = static_cast<int>(axis < 0 ? axis + rank + 1 : axis);
        TensorShape want = shape;
        want.InsertDim(a, n);
        BOOST_REQUIRE_EQUAL((*out)[0].shape(), want);
        for (int64_t j = 0; j < want.num_elements(); ++j) {
          std::vector<int64_t> index = Unflatten(want, j);
          const int64_t which = index[static_cast<size_t>(a)];
          index.erase(index.begin() + a);
          BOOST_REQUIRE(
              SameElement((*out)[0], j, inputs[static_cast<size_t>(which)], Flatten(shape, index)));
        }
      }
    }
  }
  KernelRunner bad("Pack", "stack");
  bad.Input(Tensor(DT_FLOAT, TensorShape{2})).Input(Tensor(DT_FLOAT, TensorShape{3}));
  auto out = bad.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_MESSAGE(
      Contains(out.status().message(), "node 'stack' (op 'Pack'): Shapes of all inputs must match: "
                                       "values[0].shape = [2] != values[1].shape = [3]"),
      out.status().ToString());
}

int64_t DimProductBefore(const TensorShape& shape, int a) {
  int64_t n = 1;
  for (int d = 0; d < a; ++d) n *= shape.dim_size(d);
  return n;
}

// Piece i of splitting `in` along `a` at `starts`/`sizes`: element j comes
// from in at the same index shifted by starts[i] along a.
void CheckPieces(const Tensor& in, int a, const std::vector<int64_t>& sizes,
                 const std::vector<Tensor>& pieces, bool drop_axis) {
  BOOST_REQUIRE_EQUAL(pieces.size(), sizes.size());
  int64_t start = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    TensorShape want = in.shape();
    want.set_dim(a, sizes[i]);
    std::vector<int64_t> source(static_cast<size_t>(want.num_elements()));
    for (int64_t j = 0; j < want.num_elements(); ++j) {
      std::vector<int64_t> index = Unflatten(want, j);
      index[static_cast<size_t>(a)] += start;
      source[static_cast<size_t>(j)] = Flatten(in.shape(), index);
    }
    if (drop_axis) want.RemoveDim(a);
    AF_EXPECT_OK(CheckPicked(pieces[i], want, in, source));
    // Pieces along a leading axis are views of the input.
    if (DimProductBefore(in.shape(), a) == 1 && want.num_elements() > 0)
      BOOST_CHECK(pieces[i].SharesBufferWith(in));
    start += sizes[i];
  }
}

BOOST_AUTO_TEST_CASE(split_and_split_v_match_the_reference_and_share_leading_pieces) {
  std::mt19937 rng(8);
  uint32_t seed = 700;
  for (int rank = 1; rank <= 4; ++rank) {
    for (int trial = 0; trial < 4; ++trial) {
      const int64_t axis = static_cast<int64_t>(rng() % (2 * rank)) - rank;
      const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
      const int num = 1 + static_cast<int>(rng() % 3);
      TensorShape shape = RandomShape(rng, rank, 1, 3);
      shape.set_dim(a, num * static_cast<int64_t>(rng() % 3));
      for (DataType dt : MovableTestTypes()) {
        Tensor in = RandomValues(dt, shape, seed++);
        KernelRunner split("Split");
        split.Input(IntScalar(axis)).Input(in).Attr("num_split", int64_t{num});
        auto out = split.Run();
        AF_REQUIRE_OK(out.status());
        CheckPieces(in, a, std::vector<int64_t>(num, shape.dim_size(a) / num), *out, false);

        // SplitV: random sizes summing to the dim, one of them given as -1.
        std::vector<int64_t> sizes(static_cast<size_t>(num), 0);
        for (int64_t left = shape.dim_size(a); left > 0; --left) ++sizes[rng() % num];
        std::vector<int64_t> given = sizes;
        given[rng() % num] = -1;
        KernelRunner split_v("SplitV");
        split_v.Input(in)
            .Input(Ints(given, trial % 2 ? DT_INT32 : DT_INT64))
            .Input(IntScalar(axis));
        split_v.Attr("num_split", int64_t{num});
        out = split_v.Run();
        AF_REQUIRE_OK(out.status());
        CheckPieces(in, a, sizes, *out, false);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(unpack_matches_the_reference_along_every_axis) {
  uint32_t seed = 900;
  const TensorShape shape{3, 2, 4};
  for (int64_t axis = -3; axis < 3; ++axis) {
    const int a = static_cast<int>(axis < 0 ? axis + 3 : axis);
    for (DataType dt : MovableTestTypes()) {
      Tensor in = RandomValues(dt, shape, seed++);
      KernelRunner runner("Unpack");
      runner.Input(in).Attr("num", shape.dim_size(a)).Attr("axis", axis);
      auto out = runner.Run();
      AF_REQUIRE_OK(out.status());
      CheckPieces(in, a, std::vector<int64_t>(shape.dim_size(a), 1), *out, true);
    }
  }
}

BOOST_AUTO_TEST_CASE(split_errors_name_the_node) {
  {
    KernelRunner runner("Split", "sp");
    runner.Input(IntScalar(1))
        .Input(Tensor(DT_FLOAT, TensorShape{2, 7}))
        .Attr("num_split", int64_t{3});
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(),
                                 "node 'sp' (op 'Split'): Number of ways to split should evenly "
                                 "divide the split dimension, but got split_dim 1 (size = 7) "
                                 "and num_split 3"),
                        out.status().ToString());
  }
  {
    KernelRunner runner("SplitV", "spv");
    runner.Input(Tensor(DT_FLOAT, TensorShape{5}))
        .Input(Ints({2, 2}, DT_INT64))
        .Input(IntScalar(0));
    runner.Attr("num_split", int64_t{2});
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "Got: 4 vs. 5"), out.status().ToString());
  }
  {
    KernelRunner runner("SplitV", "spv");
    runner.Input(Tensor(DT_FLOAT, TensorShape{5}))
        .Input(Ints({-1, -1}, DT_INT64))
        .Input(IntScalar(0));
    runner.Attr("num_split", int64_t{2});
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "There can only be one -1"),
                        out.status().ToString());
  }
  {
    KernelRunner runner("Unpack", "un");
    runner.Input(Tensor(DT_FLOAT, TensorShape{2, 3})).Attr("num", int64_t{3});
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(),
                                 "node 'un' (op 'Unpack'): Input shape axis 0 must equal 3, got "
                                 "shape [2,3]"),
                        out.status().ToString());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
