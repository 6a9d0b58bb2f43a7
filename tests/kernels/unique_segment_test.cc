// Unique, UniqueWithCounts, UnsortedSegmentMax and UnsortedSegmentMin
// against plain reference loops (exact: they only pick or compare values),
// with their error paths.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "tests/kernels/array_test_util.h"

namespace af::test {
namespace {

#define EXPECT_INVALID(out, text)                                                                 \
  do {                                                                                            \
    const auto& af_out_ = (out);                                                                  \
    BOOST_REQUIRE(!af_out_.ok());                                                                 \
    BOOST_CHECK_EQUAL(af_out_.status().code(), Code::INVALID_ARGUMENT);                           \
    BOOST_CHECK_MESSAGE(Contains(af_out_.status().message(), text), af_out_.status().ToString()); \
  } while (0)

// A vector of n values drawn from a few distinct ones, so that most repeat.
template <typename T>
Tensor FewDistinct(int64_t n, std::mt19937& rng) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape{n});
  for (int64_t i = 0; i < n; ++i) {
    const int v = static_cast<int>(rng() % 7) - 3;
    if constexpr (std::is_same_v<T, bool>)
      t.data<T>()[i] = v > 0;
    else if constexpr (std::is_floating_point_v<T>)
      t.data<T>()[i] = static_cast<T>(v) * static_cast<T>(0.5);
    else
      t.data<T>()[i] = static_cast<T>(v);
  }
  return t;
}

// y, idx and count by a quadratic scan: the first y equal to x[j] or a new
// one. Exact comparisons: the values are small integers or halves.
void ReferenceUnique(const Tensor& x, std::vector<double>* y, std::vector<double>* idx,
                     std::vector<double>* count) {
  for (int64_t j = 0; j < x.NumElements(); ++j) {
    const double v = ValueAsDouble(x, j);
    size_t k = 0;
    while (k < y->size() && (*y)[k] != v) ++k;
    if (k == y->size()) {
      y->push_back(v);
      count->push_back(0);
    }
    idx->push_back(static_cast<double>(k));
    ++(*count)[k];
  }
}

template <typename T>
void CheckUnique(std::mt19937& rng) {
  for (int64_t n : {0, 1, 5, 40}) {
    const Tensor x = FewDistinct<T>(n, rng);
    std::vector<double> y, idx, count;
    ReferenceUnique(x, &y, &idx, &count);
    const auto num_unique = static_cast<int64_t>(y.size());
    const DataType dt = DataTypeToEnum<T>::value;
    for (DataType out_idx : {DT_INT32, DT_INT64}) {
      KernelRunner unique("Unique");
      unique.Input(x).Attr("out_idx", out_idx);
      auto out = unique.Run();
      AF_REQUIRE_OK(out.status());
      AF_REQUIRE_OK(CheckTensor((*out)[0], dt, {num_unique}, y));
      AF_REQUIRE_OK(CheckTensor((*out)[1], out_idx, {n}, idx));

      KernelRunner counted("UniqueWithCounts");
      counted.Input(x).Attr("out_idx", out_idx);
      out = counted.Run();
      AF_REQUIRE_OK(out.status());
      BOOST_REQUIRE_EQUAL(out->size(), 3u);
      AF_REQUIRE_OK(CheckTensor((*out)[0], dt, {num_unique}, y));
      AF_REQUIRE_OK(CheckTensor((*out)[1], out_idx, {n}, idx));
      AF_REQUIRE_OK(CheckTensor((*out)[2], out_idx, {num_unique}, count));
    }
  }
}

BOOST_AUTO_TEST_SUITE(unique_segment)

BOOST_AUTO_TEST_CASE(unique_matches_the_reference_in_first_occurrence_order) {
  std::mt19937 rng(53);
  CheckUnique<float>(rng);
  CheckUnique<double>(rng);
  CheckUnique<int32_t>(rng);
  CheckUnique<int64_t>(rng);
  CheckUnique<bool>(rng);
}

BOOST_AUTO_TEST_CASE(unique_treats_signed_zeros_as_one_value_and_each_nan_as_its_own) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = RunKernel("UniqueWithCounts", {Tensor::FromVector<float>({0.f, -0.f, nan, 1.f, nan})});
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_FLOAT, {4}, {0.0, std::nan(""), 1.0, std::nan("")}));
  BOOST_CHECK(!std::signbit((*out)[0].data<float>()[0]));  // the first zero seen is kept
  AF_EXPECT_OK(CheckTensor((*out)[1], DT_INT32, {5}, {0, 0, 1, 2, 3}));
  AF_EXPECT_OK(CheckTensor((*out)[2], DT_INT32, {4}, {2, 1, 1, 1}));
}

BOOST_AUTO_TEST_CASE(unique_of_strings_keeps_first_occurrences) {
  Tensor x(DT_STRING, TensorShape{5});
  const std::vector<std::string> values = {"b", "a", "b", "c", "a"};
  for (int i = 0; i < 5; ++i) x.data<std::string>()[i] = values[static_cast<size_t>(i)];
  auto out = RunKernel("Unique", {x});
  AF_REQUIRE_OK(out.status());
  const Tensor& y = (*out)[0];
  BOOST_REQUIRE_EQUAL(y.NumElements(), 3);
  BOOST_CHECK_EQUAL(y.data<std::string>()[0], "b");
  BOOST_CHECK_EQUAL(y.data<std::string>()[1], "a");
  BOOST_CHECK_EQUAL(y.data<std::string>()[2], "c");
  AF_EXPECT_OK(CheckTensor((*out)[1], DT_INT32, {5}, {0, 1, 0, 2, 1}));
}

BOOST_AUTO_TEST_CASE(unique_rejects_a_non_vector_naming_the_op) {
  KernelRunner r("Unique", "u");
  r.Input(Tensor(DT_FLOAT, TensorShape{2, 2}));
  EXPECT_INVALID(r.Run(), "node 'u' (op 'Unique'): unique expects a 1D vector");
  KernelRunner c("UniqueWithCounts", "uc");
  c.Input(Tensor::Scalar<int32_t>(3));
  EXPECT_INVALID(c.Run(), "node 'uc' (op 'UniqueWithCounts'): unique expects a 1D vector");
}

// max (min) over the rows of each segment in double, the type's lowest
// (highest) value where no id names a segment; negative ids dropped.
template <typename T>
void CheckSegmentMinMax(const TensorShape& data_shape, int id_rank, int64_t num, uint32_t seed) {
  std::mt19937 rng(seed);
  TensorShape ids_shape;
  for (int d = 0; d < id_rank; ++d) ids_shape.AddDim(data_shape.dim_size(d));
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < ids_shape.num_elements(); ++i)
    ids.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(num + 1)) - 1);
  const Tensor data = RandomTensor<T>(data_shape, seed, -50, 50);
  int64_t inner = 1;
  for (int d = id_rank; d < data_shape.dims(); ++d) inner *= data_shape.dim_size(d);
  TensorShape want{num};
  for (int d = id_rank; d < data_shape.dims(); ++d) want.AddDim(data_shape.dim_size(d));
  const size_t size = static_cast<size_t>(want.num_elements());
  std::vector<double> maxima(size, static_cast<double>(std::numeric_limits<T>::lowest()));
  std::vector<double> minima(size, static_cast<double>(std::numeric_limits<T>::max()));
  for (size_t j = 0; j < ids.size(); ++j) {
    if (ids[j] < 0) continue;
    for (int64_t i = 0; i < inner; ++i) {
      const size_t o = static_cast<size_t>(ids[j] * inner + i);
      const double v = ValueAsDouble(data, static_cast<int64_t>(j) * inner + i);
      maxima[o] = std::max(maxima[o], v);
      minima[o] = std::min(minima[o], v);
    }
  }
  for (DataType index : {DT_INT32, DT_INT64}) {
    for (DataType num_type : {DT_INT32, DT_INT64}) {
      for (const char* op : {"UnsortedSegmentMax", "UnsortedSegmentMin"}) {
        KernelRunner runner(op);
        runner.Input(data)
            .Input(IntsOfShape(ids, ids_shape, index))
            .Input(IntScalar(num, num_type));
        auto out = runner.Run();
        AF_REQUIRE_OK(out.status());
        const bool is_max = std::string(op) == "UnsortedSegmentMax";
        AF_REQUIRE_OK(
            CheckTensor((*out)[0], DataTypeToEnum<T>::value, want, is_max ? maxima : minima));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(unsorted_segment_max_and_min_match_the_reference) {
  CheckSegmentMinMax<float>({9, 3}, 1, 5, 1);
  CheckSegmentMinMax<float>({2, 3, 4}, 2, 7, 2);
  CheckSegmentMinMax<double>({11}, 1, 4, 3);
  CheckSegmentMinMax<double>({3, 2}, 2, 3, 4);  // ids name single elements
  CheckSegmentMinMax<int32_t>({6, 2}, 1, 8, 5);
  CheckSegmentMinMax<int64_t>({5, 2, 2}, 1, 3, 6);
  CheckSegmentMinMax<int64_t>({0, 2}, 1, 2, 7);  // no rows: every segment empty
  CheckSegmentMinMax<float>({4, 2}, 1, 0, 8);    // no segments: every id is -1, dropped
}

BOOST_AUTO_TEST_CASE(unsorted_segment_max_and_min_reject_bad_ids_and_shapes) {
  for (const std::string op : {"UnsortedSegmentMax", "UnsortedSegmentMin"}) {
    const std::string prefix = "node 'seg' (op '" + op + "'): ";
    KernelRunner range(op, "seg");
    range.Input(Tensor::FromVector<float>({1, 2, 3})).Input(Ints({0, 5, 1})).Input(IntScalar(3));
    EXPECT_INVALID(range.Run(), prefix + "segment_ids[1] = 5 is out of range [0, 3)");

    KernelRunner shape(op, "seg");
    shape.Input(Tensor(DT_FLOAT, TensorShape{3, 2})).Input(Ints({0, 1})).Input(IntScalar(3));
    EXPECT_INVALID(shape.Run(),
                   prefix + "data.shape = [3,2] does not start with segment_ids.shape = [2]");

    KernelRunner num(op, "seg");
    num.Input(Tensor(DT_FLOAT, TensorShape{2})).Input(Ints({0, 1})).Input(Ints({2}));
    EXPECT_INVALID(num.Run(), prefix + "num_segments should be a scalar, not shape [1]");

    KernelRunner negative(op, "seg");
    negative.Input(Tensor(DT_FLOAT, TensorShape{2})).Input(Ints({0, 1})).Input(IntScalar(-1));
    EXPECT_INVALID(negative.Run(), prefix + "Input num_segments == -1 must not be negative.");
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
