// Gather, GatherV2 (axis, batch_dims), OneHot and UnsortedSegmentSum
// against reference loops, with their out-of-range errors.
#include <complex>
#include <random>
#include <vector>

#include "tests/kernels/array_test_util.h"

namespace af::test {
namespace {

// params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis+1:],
// element by element.
void ReferenceGather(const TensorShape& params, const std::vector<int64_t>& indices,
                     const TensorShape& indices_shape, int axis, int batch_dims, TensorShape* out,
                     std::vector<int64_t>* source) {
  *out = TensorShape();
  for (int d = 0; d < axis; ++d) out->AddDim(params.dim_size(d));
  for (int d = batch_dims; d < indices_shape.dims(); ++d) out->AddDim(indices_shape.dim_size(d));
  for (int d = axis + 1; d < params.dims(); ++d) out->AddDim(params.dim_size(d));
  source->clear();
  const int index_rank = indices_shape.dims() - batch_dims;
  for (int64_t j = 0; j < out->num_elements(); ++j) {
    const std::vector<int64_t> o = Unflatten(*out, j);
    // The index element: batch coordinates (the first batch_dims of o)
    // then the indices coordinates that follow the axis prefix.
    std::vector<int64_t> ii(o.begin(), o.begin() + batch_dims);
    ii.insert(ii.end(), o.begin() + axis, o.begin() + axis + index_rank);
    const int64_t row = indices[static_cast<size_t>(Flatten(indices_shape, ii))];
    std::vector<int64_t> p(o.begin(), o.begin() + axis);
    p.push_back(row);
    p.insert(p.end(), o.begin() + axis + index_rank, o.end());
    source->push_back(Flatten(params, p));
  }
}

BOOST_AUTO_TEST_SUITE(gather_ops)

BOOST_AUTO_TEST_CASE(gather_v2_matches_the_reference_for_every_axis) {
  std::mt19937 rng(23);
  uint32_t seed = 1;
  for (int rank = 1; rank <= 4; ++rank) {
    for (int trial = 0; trial < 6; ++trial) {
      const TensorShape params = RandomShape(rng, rank, 1, 4);
      const int64_t axis = static_cast<int64_t>(rng() % (2 * rank)) - rank;
      const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
      const int batch_dims = trial % 3 == 0 ? static_cast<int>(rng() % (a + 1)) : 0;
      TensorShape indices_shape;
      for (int d = 0; d < batch_dims; ++d) indices_shape.AddDim(params.dim_size(d));
      const TensorShape extra = RandomShape(rng, static_cast<int>(rng() % 3), 0, 3);
      for (int d = 0; d < extra.dims(); ++d) indices_shape.AddDim(extra.dim_size(d));
      std::vector<int64_t> indices;
      for (int64_t i = 0; i < indices_shape.num_elements(); ++i)
        indices.push_back(static_cast<int64_t>(rng() % params.dim_size(a)));
      TensorShape want;
      std::vector<int64_t> source;
      ReferenceGather(params, indices, indices_shape, a, batch_dims, &want, &source);
      for (DataType dt : MovableTestTypes()) {
        Tensor in = RandomValues(dt, params, seed++);
        KernelRunner runner("GatherV2");
        runner.Input(in)
            .Input(IntsOfShape(indices, indices_shape, trial % 2 ? DT_INT32 : DT_INT64))
            .Input(IntScalar(axis, trial % 2 ? DT_INT64 : DT_INT32))
            .Attr("batch_dims", int64_t{batch_dims});
        auto out = runner.Run();
        AF_REQUIRE_OK(out.status());
        AF_REQUIRE_OK(CheckPicked((*out)[0], want, in, source));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(gather_v1_takes_rows) {
  Tensor params = RandomValues(DT_STRING, {5, 2}, 3);
  const std::vector<int64_t> indices = {4, 0, 0, 2, 1, 3};
  TensorShape want;
  std::vector<int64_t> source;
  ReferenceGather(params.shape(), indices, {3, 2}, 0, 0, &want, &source);
  KernelRunner runner("Gather");
  runner.Input(params).Input(IntsOfShape(indices, {3, 2}, DT_INT64));
  auto out = runner.Run();
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckPicked((*out)[0], want, params, source));
}

BOOST_AUTO_TEST_CASE(out_of_range_indices_are_invalid_arguments_naming_the_position) {
  {
    KernelRunner runner("GatherV2", "g");
    runner.Input(Tensor(DT_FLOAT, TensorShape{5, 2}))
        .Input(Ints({0, 1, 4, 7, 2}))
        .Input(IntScalar(0));
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(Contains(out.status().message(),
                                 "node 'g' (op 'GatherV2'): indices[3] = 7 is not in [0, 5)"),
                        out.status().ToString());
  }
  {
    KernelRunner runner("Gather", "g1");
    runner.Input(Tensor(DT_FLOAT, TensorShape{3})).Input(IntsOfShape({0, 1, 2, -1}, {2, 2}));
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "indices[1,1] = -1 is not in [0, 3)"),
                        out.status().ToString());
  }
  {
    KernelRunner runner("GatherV2", "g2");
    runner.Input(Tensor(DT_FLOAT, TensorShape{2, 3})).Input(Ints({0})).Input(IntScalar(2));
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(
        Contains(out.status().message(), "Expected axis in the range [-2, 2), but got 2"),
        out.status().ToString());
  }
}

BOOST_AUTO_TEST_CASE(one_hot_matches_the_reference_for_every_axis) {
  std::mt19937 rng(29);
  uint32_t seed = 50;
  for (int rank = 0; rank <= 3; ++rank) {
    const TensorShape shape = RandomShape(rng, rank, 0, 3);
    std::vector<int64_t> indices;
    for (int64_t i = 0; i < shape.num_elements(); ++i)
      indices.push_back(static_cast<int64_t>(rng() % 7) - 1);  // -1 and >= depth too
    for (int64_t axis = -1; axis <= rank; ++axis) {
      const int64_t depth = 4;
      const int a = axis == -1 ? rank : static_cast<int>(axis);
      TensorShape want = shape;
      want.InsertDim(a, depth);
      for (DataType dt : MovableTestTypes()) {
        Tensor on = RandomValues(dt, {}, seed++);
        Tensor off = RandomValues(dt, {}, seed++);
        std::vector<int64_t> source;
        for (int64_t j = 0; j < want.num_elements(); ++j) {
          std::vector<int64_t> index = Unflatten(want, j);
          const int64_t position = index[static_cast<size_t>(a)];
          index.erase(index.begin() + a);
          source.push_back(indices[static_cast<size_t>(Flatten(shape, index))] == position ? 1 : 0);
        }
        // [off, on]: what the output elements are picked from.
        KernelRunner pack("Pack");
        pack.Input(off).Input(on);
        auto packed = pack.Run();
        AF_REQUIRE_OK(packed.status());
        for (DataType ti : {DT_INT32, DT_INT64}) {
          KernelRunner runner("OneHot");
          runner.Input(IntsOfShape(indices, shape, ti))
              .Input(IntScalar(depth))
              .Input(on)
              .Input(off)
              .Attr("axis", axis);
          auto out = runner.Run();
          AF_REQUIRE_OK(out.status());
          AF_REQUIRE_OK(CheckPicked((*out)[0], want, (*packed)[0], source));
        }
      }
    }
  }
  KernelRunner bad("OneHot", "oh");
  bad.Input(Ints({0, 1}))
      .Input(IntScalar(-1))
      .Input(Tensor::Scalar<float>(1.f))
      .Input(Tensor::Scalar<float>(0.f));
  auto out = bad.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_MESSAGE(Contains(out.status().message(),
                               "node 'oh' (op 'OneHot'): depth must be non-negative, got: -1"),
                      out.status().ToString());
}

template <typename T>
void CheckSegmentSum(const TensorShape& data_shape, int id_rank, int64_t num, uint32_t seed) {
  std::mt19937 rng(seed);
  TensorShape ids_shape;
  for (int d = 0; d < id_rank; ++d) ids_shape.AddDim(data_shape.dim_size(d));
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < ids_shape.num_elements(); ++i)
    ids.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(num + 1)) - 1);  // -1 drops
  Tensor data = RandomTensor<T>(data_shape, seed, -5, 5);
  int64_t inner = 1;
  for (int d = id_rank; d < data_shape.dims(); ++d) inner *= data_shape.dim_size(d);
  TensorShape want{num};
  for (int d = id_rank; d < data_shape.dims(); ++d) want.AddDim(data_shape.dim_size(d));
  std::vector<double> sums(static_cast<size_t>(want.num_elements()), 0.0);
  for (size_t j = 0; j < ids.size(); ++j) {
    if (ids[j] < 0) continue;
    for (int64_t i = 0; i < inner; ++i)
      sums[static_cast<size_t>(ids[j] * inner + i)] +=
          ValueAsDouble(data, static_cast<int64_t>(j) * inner + i);
  }
  for (DataType index : {DT_INT32, DT_INT64}) {
    KernelRunner runner("UnsortedSegmentSum");
    runner.Input(data).Input(IntsOfShape(ids, ids_shape, index)).Input(IntScalar(num));
    auto out = runner.Run();
    AF_REQUIRE_OK(out.status());
    AF_REQUIRE_OK(CheckTensor((*out)[0], DataTypeToEnum<T>::value, want, sums, 1e-5, 1e-5));
  }
}

BOOST_AUTO_TEST_CASE(unsorted_segment_sum_matches_the_reference) {
  CheckSegmentSum<float>({6, 3}, 1, 4, 1);
  CheckSegmentSum<float>({2, 3, 4}, 2, 5, 2);
  CheckSegmentSum<double>({7}, 1, 3, 3);
  CheckSegmentSum<int32_t>({5, 2}, 1, 6, 4);
  CheckSegmentSum<int64_t>({0, 2}, 1, 2, 5);
  CheckSegmentSum<float>({4, 2}, 1, 0, 6);

  KernelRunner bad("UnsortedSegmentSum", "uss");
  bad.Input(Tensor::FromVector<float>({1, 2, 3})).Input(Ints({0, 5, 1})).Input(IntScalar(3));
  auto out = bad.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_MESSAGE(
      Contains(out.status().message(),
               "node 'uss' (op 'UnsortedSegmentSum'): segment_ids[1] = 5 is out of range [0, 3)"),
      out.status().ToString());

  KernelRunner prefix("UnsortedSegmentSum", "uss");
  prefix.Input(Tensor(DT_FLOAT, TensorShape{3, 2})).Input(Ints({0, 1})).Input(IntScalar(3));
  out = prefix.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_MESSAGE(Contains(out.status().message(),
                               "data.shape = [3,2] does not start with segment_ids.shape = [2]"),
                      out.status().ToString());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
