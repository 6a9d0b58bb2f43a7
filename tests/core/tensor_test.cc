#include <boost/test/unit_test.hpp>

#include <limits>

#include "core/tensor.h"

namespace af {
namespace {

BOOST_AUTO_TEST_CASE(tensor_allocates_aligned_and_counts_bytes) {
  auto* alloc = static_cast<CpuAllocator*>(GetCpuAllocator());
  const int64_t before = alloc->GetStats().bytes_in_use;
  {
    Tensor t(DT_FLOAT, TensorShape{3, 5});
    BOOST_TEST(t.NumElements() == 15);
    BOOST_TEST(t.TotalBytes() == 60u);
    BOOST_TEST(t.IsAligned());
    BOOST_TEST(alloc->GetStats().bytes_in_use == before + 60);
    BOOST_TEST(alloc->GetStats().peak_bytes_in_use >= before + 60);
  }
  BOOST_TEST(alloc->GetStats().bytes_in_use == before);
}

BOOST_AUTO_TEST_CASE(slice_shares_buffer_without_copy) {
  Tensor t(DT_INT32, TensorShape{4, 2});
  for (int i = 0; i < 8; ++i) t.data<int32_t>()[i] = i;
  Tensor s = t.Slice(1, 3);
  BOOST_TEST(s.shape() == (TensorShape{2, 2}));
  BOOST_TEST(s.SharesBufferWith(t));
  BOOST_TEST(s.data<int32_t>() == t.data<int32_t>() + 2);
  BOOST_TEST(s.data<int32_t>()[0] == 2);
  Tensor keep = s;  // the slice keeps the parent alive
  t = Tensor();
  BOOST_TEST(keep.data<int32_t>()[3] == 5);
}

BOOST_AUTO_TEST_CASE(copy_shares_and_deep_copy_does_not) {
  Tensor a = Tensor::FromVector<float>({1, 2, 3});
  Tensor b = a;
  BOOST_TEST(b.SharesBufferWith(a));
  Tensor c = a.DeepCopy();
  BOOST_TEST(!c.SharesBufferWith(a));
  c.data<float>()[0] = 9;
  BOOST_TEST(a.data<float>()[0] == 1.0f);
}

BOOST_AUTO_TEST_CASE(string_tensors_construct_and_destroy_elements) {
  Tensor t(DT_STRING, TensorShape{3});
  t.data<std::string>()[1] = std::string(1000, 'x');
  BOOST_TEST(t.data<std::string>()[0].empty());
  Tensor d = t.DeepCopy();
  BOOST_TEST(d.data<std::string>()[1].size() == 1000u);
  BOOST_TEST(t.tensor_data().empty());
}

BOOST_AUTO_TEST_CASE(reshape_checks_element_count) {
  Tensor t(DT_FLOAT, TensorShape{2, 6});
  Tensor r;
  BOOST_TEST(t.Reshaped(TensorShape{3, 4}, &r).ok());
  BOOST_TEST(r.SharesBufferWith(t));
  Status s = t.Reshaped(TensorShape{5}, &r);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(shape_build_rejects_negative_and_overflow) {
  TensorShape s;
  BOOST_TEST(TensorShape::Build({2, -1}, &s).code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(TensorShape::Build({int64_t{1} << 40, int64_t{1} << 40}, &s).code() ==
             Code::INVALID_ARGUMENT);
  BOOST_TEST(TensorShape::Build({2, 0, 7}, &s).ok());
  BOOST_TEST(s.num_elements() == 0);
}

BOOST_AUTO_TEST_CASE(dim_vector_grows_past_inline_storage_and_back) {
  TensorShape s;
  for (int i = 1; i <= 9; ++i) s.AddDim(i % 3 + 1);
  BOOST_TEST(s.dims() == 9);
  TensorShape copy = s;
  BOOST_TEST(copy == s);
  for (int i = 0; i < 7; ++i) s.RemoveDim(0);
  BOOST_TEST(s.dims() == 2);
  BOOST_TEST(s.dim_size(0) == copy.dim_size(7));
  BOOST_TEST(s.dim_size(1) == copy.dim_size(8));
}

BOOST_AUTO_TEST_CASE(partial_shapes_merge_and_check_compatibility) {
  PartialTensorShape a{-1, 3};
  PartialTensorShape b{2, -1};
  PartialTensorShape m;
  BOOST_TEST(a.MergeWith(b, &m).ok());
  BOOST_TEST(m.DebugString() == "[2,3]");
  BOOST_TEST(m.IsFullyDefined());
  BOOST_TEST(a.IsCompatibleWith(TensorShape{7, 3}));
  BOOST_TEST(!a.IsCompatibleWith(TensorShape{7, 4}));
  BOOST_TEST(PartialTensorShape().DebugString() == "<unknown>");
  PartialTensorShape c{2, 4};
  BOOST_TEST(a.MergeWith(c, &m).code() == Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(half_and_bfloat16_round_trip) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f}) {
    BOOST_TEST(HalfToFloat(FloatToHalf(f)) == f);
  }
  BOOST_TEST(HalfToFloat(FloatToHalf(1e6f)) == std::numeric_limits<float>::infinity());
  for (float f : {0.0f, 1.0f, -3.0f, 0.15625f}) BOOST_TEST(BFloat16ToFloat(FloatToBFloat16(f)) == f);
}

BOOST_AUTO_TEST_CASE(data_type_names_match_tensorflow) {
  BOOST_TEST(DataTypeString(DT_FLOAT) == "float");
  BOOST_TEST(DataTypeString(MakeRefType(DT_INT32)) == "int32_ref");
  DataType dt;
  BOOST_TEST(DataTypeFromString("DT_BFLOAT16", &dt));
  BOOST_TEST(dt == DT_BFLOAT16);
  BOOST_TEST(DataTypeFromString("complex128", &dt));
  BOOST_TEST(dt == DT_COMPLEX128);
  BOOST_TEST(!DataTypeFromString("float33", &dt));
  BOOST_TEST(static_cast<int>(DT_UINT64) == 23);
  BOOST_TEST(DataTypeSize(DT_COMPLEX128) == 16);
}

BOOST_AUTO_TEST_CASE(status_carries_code_and_context) {
  Status s = errors::NotFound("node '", "x", "' missing");
  BOOST_TEST(s.ToString() == "NOT_FOUND: node 'x' missing");
  Status c = s.WithContext("importing graph");
  BOOST_TEST(c.code() == Code::NOT_FOUND);
  BOOST_TEST(c.message() == "importing graph: node 'x' missing");
  BOOST_TEST(Status().ok());
  BOOST_TEST(static_cast<int>(Code::DATA_LOSS) == 15);
}

}  // namespace
}  // namespace af
