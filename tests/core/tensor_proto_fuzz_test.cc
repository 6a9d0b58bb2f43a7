// Damaged serialized TensorProtos must decode to OK or a clean error, never
// crash (this also runs under ASan/UBSan) and, under a byte limit, never
// allocate past it.
#include <boost/test/unit_test.hpp>

#include <google/protobuf/stubs/logging.h>

#include "core/tensor_proto.h"
#include "serialization_test_util.h"

namespace af {
namespace {

using tensorflow::TensorProto;

// Varint and tag bytes that steer mutations toward plausible protos.
// (The sv literal keeps the embedded NUL.)
using namespace std::string_view_literals;
constexpr std::string_view kWireBytes =
    "\x00\x01\x02\x03\x04\x07\x08\x0a\x10\x12\x1a\x22\x2a\x3a\x42\x7f\x80\xff"sv;

std::vector<std::string> SeedProtos() {
  std::vector<std::string> seeds;
  const std::pair<DataType, TensorShape> tensors[] = {
      {DT_FLOAT, TensorShape{2, 3}},    {DT_STRING, TensorShape{3}},
      {DT_COMPLEX64, TensorShape{2}},   {DT_HALF, TensorShape{4}},
      {DT_INT8, TensorShape{2, 2}},     {DT_BOOL, TensorShape{3}},
      {DT_QUINT8, TensorShape{0, 2}},   {DT_UINT64, TensorShape{}},
  };
  for (const auto& [dtype, shape] : tensors) {
    const Tensor t = test::PatternTensor(dtype, shape);
    TensorProto p;
    TensorToProtoContent(t, &p);
    seeds.push_back(p.SerializeAsString());
    TensorToProtoField(t, &p);
    seeds.push_back(p.SerializeAsString());
  }
  // TensorFlow's string tensor_content encoding.
  TensorProto strings;
  strings.set_dtype(tensorflow::DT_STRING);
  strings.mutable_tensor_shape()->add_dim()->set_size(2);
  strings.set_tensor_content(std::string("\x01\x02" "abc", 5));
  seeds.push_back(strings.SerializeAsString());
  return seeds;
}

bool CleanDecodeError(const Status& s) {
  return s.ok() || s.code() == Code::INVALID_ARGUMENT ||
         s.code() == Code::RESOURCE_EXHAUSTED || s.code() == Code::UNIMPLEMENTED;
}

BOOST_AUTO_TEST_SUITE(tensor_proto_fuzz)

BOOST_AUTO_TEST_CASE(mutated_protos_decode_cleanly_within_limits) {
  constexpr int64_t kLimit = 1 << 20;
  TensorProtoLimits limits;
  limits.max_tensor_bytes = kLimit;
  test::Rng rng(0x70726f746f);
  test::RecordingAllocator alloc;
  int decoded = 0;
  int rejected = 0;
  int unparsable = 0;
  // Damaged strings make protobuf log invalid UTF-8 on every parse.
  google::protobuf::LogSilencer quiet;
  for (const std::string& seed : SeedProtos()) {
    for (int i = 0; i < 3000; ++i) {
      const std::string mutated = test::Mutate(seed, rng, kWireBytes);
      TensorProto proto;
      if (!proto.ParseFromString(mutated)) {
        ++unparsable;
        continue;
      }
      alloc.Reset();
      Tensor t;
      const Status s = TensorFromProto(proto, limits, &t, &alloc);
      if (!CleanDecodeError(s)) BOOST_FAIL("unexpected status " << s);
      if (alloc.largest() > static_cast<size_t>(kLimit))
        BOOST_FAIL("allocated " << alloc.largest() << " bytes, limit " << kLimit);
      if (!s.ok()) {
        ++rejected;
        continue;
      }
      ++decoded;
      // Whatever decoded re-encodes (both ways) to the same tensor.
      for (bool content : {true, false}) {
        TensorProto again;
        if (content) TensorToProtoContent(t, &again);
        else TensorToProtoField(t, &again);
        Tensor back;
        BOOST_REQUIRE(TensorFromProto(again, &back).ok());
        BOOST_REQUIRE(test::SameTensor(back, t));
      }
    }
  }
  BOOST_TEST_MESSAGE("proto fuzz: " << decoded << " decoded, " << rejected << " rejected, "
                                    << unparsable << " not protos");
  BOOST_TEST(decoded > 0);
  BOOST_TEST(rejected > 0);
}

// Field-level damage the byte mutator rarely reaches: arbitrary dtypes,
// dims, value counts and content sizes, combined.
BOOST_AUTO_TEST_CASE(random_field_combinations_decode_cleanly) {
  TensorProtoLimits limits;
  limits.max_tensor_bytes = 1 << 16;
  test::Rng rng(0x6669656c64);
  test::RecordingAllocator alloc;
  const int64_t dims[] = {0, 1, 2, 3, 7, -1, -2, int64_t{1} << 31, int64_t{1} << 62,
                          std::numeric_limits<int64_t>::max(),
                          std::numeric_limits<int64_t>::min()};
  for (int i = 0; i < 20000; ++i) {
    TensorProto p;
    p.set_dtype(static_cast<tensorflow::DataType>(static_cast<int>(rng.Below(130)) - 3));
    const int rank = static_cast<int>(rng.Below(4));
    for (int d = 0; d < rank; ++d)
      p.mutable_tensor_shape()->add_dim()->set_size(dims[rng.Below(std::size(dims))]);
    if (rng.Below(16) == 0) p.mutable_tensor_shape()->set_unknown_rank(true);
    const int values = static_cast<int>(rng.Below(10));
    switch (rng.Below(8)) {
      case 0: p.set_tensor_content(std::string(rng.Below(64), '\x05')); break;
      case 1: for (int v = 0; v < values; ++v) p.add_float_val(1.5f); break;
      case 2: for (int v = 0; v < values; ++v) p.add_int_val(-v); break;
      case 3: for (int v = 0; v < values; ++v) p.add_scomplex_val(0.5f); break;
      case 4: for (int v = 0; v < values; ++v) p.add_string_val(std::string(v * 100, 'q')); break;
      case 5: for (int v = 0; v < values; ++v) p.add_half_val(0x3c00); break;
      case 6: for (int v = 0; v < values; ++v) p.add_bool_val(v % 2 == 0); break;
      default: break;
    }
    alloc.Reset();
    Tensor t;
    const Status s = TensorFromProto(p, limits, &t, &alloc);
    if (!CleanDecodeError(s)) BOOST_FAIL("unexpected status " << s);
    BOOST_REQUIRE(alloc.largest() <= size_t{1} << 16);
    if (s.ok()) BOOST_REQUIRE(t.shape().num_elements() >= 0);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
