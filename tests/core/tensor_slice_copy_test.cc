// CopyTensorRegion against an element-by-element reference over random
// shapes and boxes (every rank up to 4, boxes touching the edges, whole
// trailing dims that merge into longer runs), for fixed-size dtypes and
// strings; and the slice spec parser and its canonical text.
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "core/tensor_slice_copy.h"
#include "core/tensor_slice_spec.h"

namespace af {
namespace {

// Flat row-major index of `index` in `shape`.
int64_t Flat(const TensorShape& shape, const std::vector<int64_t>& index) {
  int64_t flat = 0;
  for (int d = 0; d < shape.dims(); ++d) flat = flat * shape.dim_size(d) + index[d];
  return flat;
}

// The reference: one element at a time, visiting every index of the box.
template <typename T>
void NaiveCopy(const Tensor& src, const std::vector<int64_t>& src_offset, Tensor* dst,
               const std::vector<int64_t>& dst_offset, const std::vector<int64_t>& length) {
  int64_t count = 1;
  for (int64_t l : length) count *= l;
  const size_t rank = length.size();
  std::vector<int64_t> index(rank, 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t rest = n;
    for (size_t d = rank; d-- > 0;) {
      index[d] = rest % length[d];
      rest /= length[d];
    }
    std::vector<int64_t> from(rank), to(rank);
    for (size_t d = 0; d < rank; ++d) {
      from[d] = src_offset[d] + index[d];
      to[d] = dst_offset[d] + index[d];
    }
    dst->data<T>()[Flat(dst->shape(), to)] = src.data<T>()[Flat(src.shape(), from)];
  }
}

struct Box {
  TensorShape src_shape, dst_shape;
  std::vector<int64_t> src_offset, dst_offset, length;
};

// A random box that fits both tensors; now and then a dim is taken whole
// in both, so that the copy can merge it into the run before it.
Box RandomBox(std::mt19937& rng) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  Box b;
  const int rank = static_cast<int>(pick(0, 4));
  for (int d = 0; d < rank; ++d) {
    const int64_t len = pick(0, 5) == 0 ? 0 : pick(1, 5);
    int64_t src_dim = len + pick(0, 3), dst_dim = len + pick(0, 3);
    if (pick(0, 2) == 0) src_dim = dst_dim = len;
    b.length.push_back(len);
    b.src_offset.push_back(pick(0, src_dim - len));
    b.dst_offset.push_back(pick(0, dst_dim - len));
    b.src_shape.AddDim(src_dim);
    b.dst_shape.AddDim(dst_dim);
  }
  return b;
}

BOOST_AUTO_TEST_SUITE(tensor_slice_copy)

BOOST_AUTO_TEST_CASE(matches_the_element_by_element_reference) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 2000; ++trial) {
    const Box b = RandomBox(rng);
    Tensor src(DT_INT32, b.src_shape);
    for (int64_t i = 0; i < src.NumElements(); ++i)
      src.data<int32_t>()[i] = static_cast<int32_t>(i);
    Tensor got(DT_INT32, b.dst_shape), want(DT_INT32, b.dst_shape);
    for (int64_t i = 0; i < got.NumElements(); ++i)
      got.data<int32_t>()[i] = want.data<int32_t>()[i] = -1 - static_cast<int32_t>(i);
    Status s = CopyTensorRegion(src, b.src_offset, &got, b.dst_offset, b.length);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    NaiveCopy<int32_t>(src, b.src_offset, &want, b.dst_offset, b.length);
    BOOST_TEST_REQUIRE((got.tensor_data() == want.tensor_data()),
                       "trial " << trial << ": src " << b.src_shape.DebugString() << " dst "
                                << b.dst_shape.DebugString());
  }
}

BOOST_AUTO_TEST_CASE(every_element_size_and_strings) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 200; ++trial) {
    const Box b = RandomBox(rng);
    Tensor bytes(DT_UINT8, b.src_shape), doubles(DT_DOUBLE, b.src_shape),
        strings(DT_STRING, b.src_shape);
    for (int64_t i = 0; i < bytes.NumElements(); ++i) {
      bytes.data<uint8_t>()[i] = static_cast<uint8_t>(i * 7);
      doubles.data<double>()[i] = 0.5 * static_cast<double>(i);
      strings.data<std::string>()[i] =
          std::string(static_cast<size_t>(i % 5), 'a') + "#" + std::to_string(i);
    }
    Tensor got_b(DT_UINT8, b.dst_shape), want_b(DT_UINT8, b.dst_shape);
    Tensor got_d(DT_DOUBLE, b.dst_shape), want_d(DT_DOUBLE, b.dst_shape);
    Tensor got_s(DT_STRING, b.dst_shape), want_s(DT_STRING, b.dst_shape);
    std::memset(got_b.raw_data(), 0, got_b.TotalBytes());
    std::memset(want_b.raw_data(), 0, want_b.TotalBytes());
    std::memset(got_d.raw_data(), 0, got_d.TotalBytes());
    std::memset(want_d.raw_data(), 0, want_d.TotalBytes());
    BOOST_TEST_REQUIRE(CopyTensorRegion(bytes, b.src_offset, &got_b, b.dst_offset, b.length).ok());
    BOOST_TEST_REQUIRE(
        CopyTensorRegion(doubles, b.src_offset, &got_d, b.dst_offset, b.length).ok());
    BOOST_TEST_REQUIRE(
        CopyTensorRegion(strings, b.src_offset, &got_s, b.dst_offset, b.length).ok());
    NaiveCopy<uint8_t>(bytes, b.src_offset, &want_b, b.dst_offset, b.length);
    NaiveCopy<double>(doubles, b.src_offset, &want_d, b.dst_offset, b.length);
    NaiveCopy<std::string>(strings, b.src_offset, &want_s, b.dst_offset, b.length);
    BOOST_TEST((got_b.tensor_data() == want_b.tensor_data()));
    BOOST_TEST((got_d.tensor_data() == want_d.tensor_data()));
    for (int64_t i = 0; i < got_s.NumElements(); ++i)
      BOOST_TEST_REQUIRE((got_s.data<std::string>()[i] == want_s.data<std::string>()[i]));
  }
}

BOOST_AUTO_TEST_CASE(boxes_outside_a_tensor_are_refused_and_copy_nothing) {
  Tensor src = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape{2, 3});
  Tensor dst = Tensor::FromVector<float>({0, 0, 0, 0}, TensorShape{2, 2});
  Status s = CopyTensorRegion(src, {0, 2}, &dst, {0, 0}, {2, 2});  // past column 2
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s.ToString());
  BOOST_TEST(s.message().find("source") != std::string::npos, s.ToString());
  s = CopyTensorRegion(src, {0, 0}, &dst, {1, 0}, {2, 2});
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s.ToString());
  BOOST_TEST(s.message().find("destination") != std::string::npos, s.ToString());
  s = CopyTensorRegion(src, {0}, &dst, {0, 0}, {1, 1});
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s.ToString());
  Tensor ints(DT_INT32, TensorShape{2, 2});
  BOOST_TEST(CopyTensorRegion(src, {0, 0}, &ints, {0, 0}, {1, 1}).code() == Code::INVALID_ARGUMENT);
  for (int i = 0; i < 4; ++i) BOOST_TEST(dst.data<float>()[i] == 0.0f);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(tensor_slice_spec)

BOOST_AUTO_TEST_CASE(parses_tensorflows_syntax_and_prints_it_canonically) {
  TensorSliceSpec s;
  BOOST_TEST_REQUIRE(ParseTensorSliceSpec("10 4 4,3:-", &s).ok());
  BOOST_TEST(s.full_shape == (std::vector<int64_t>{10, 4}));
  BOOST_TEST(s.offset == (std::vector<int64_t>{4, 0}));
  BOOST_TEST(s.length == (std::vector<int64_t>{3, 4}));
  BOOST_TEST(s.NumElements() == 12);
  BOOST_TEST(TensorSliceSpecString(s) == "10 4 4,3:0,4");
  TensorSliceSpec again;
  BOOST_TEST_REQUIRE(ParseTensorSliceSpec(TensorSliceSpecString(s), &again).ok());
  BOOST_TEST((again == s));
  BOOST_TEST_REQUIRE(ParseTensorSliceSpec("7 -", &s).ok());
  BOOST_TEST(TensorSliceSpecString(s) == "7 0,7");
  BOOST_TEST_REQUIRE(ParseTensorSliceSpec("5 3 2 0,0:1,2:-", &s).ok());
  BOOST_TEST(s.NumElements() == 0);
  BOOST_TEST(TensorSliceRegionString({4, 0}, {3, 4}) == "[4,7)x[0,4)");
}

BOOST_AUTO_TEST_CASE(refuses_malformed_and_out_of_range_specs) {
  const char* bad[] = {"",
                       "10",
                       "10 ",
                       " 0,1",
                       "10 4 0,1",
                       "10 0,11",
                       "10 11,0",
                       "10 -1,2",
                       "10 0,-1",
                       "10 a,1",
                       "10 0,1,2",
                       "10 0;1",
                       "10 +1,2",
                       "10 1 ,1",
                       "10 4 0,1::0,1",
                       "x 0,1",
                       "10 0,1 ",
                       "10  0,1",
                       "99999999999999999999 -",
                       "4611686018427387904 4611686018427387904 -:-"};
  for (const char* spec : bad) {
    TensorSliceSpec s;
    Status st = ParseTensorSliceSpec(spec, &s);
    BOOST_TEST(st.code() == Code::INVALID_ARGUMENT, "'" << spec << "': " << st.ToString());
    if (*spec != '\0') BOOST_TEST(st.message().find(spec) != std::string::npos, st.ToString());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
