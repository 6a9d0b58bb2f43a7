#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>

#include "core/tensor_proto.h"
#include "proto/graph.pb.h"
#include "serialization_test_util.h"
#include "tests/test_util.h"

namespace af {
namespace {

using test::PatternTensor;
using test::SameTensor;
using tensorflow::TensorProto;

TensorProto MakeProto(DataType dtype, std::initializer_list<int64_t> dims) {
  TensorProto p;
  p.set_dtype(static_cast<tensorflow::DataType>(dtype));
  for (int64_t d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  return p;
}

Tensor MustDecode(const TensorProto& p) {
  Tensor t;
  Status s = TensorFromProto(p, &t);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return t;
}

Status DecodeStatus(const TensorProto& p) {
  Tensor t;
  return TensorFromProto(p, &t);
}

using testing::Contains;

BOOST_AUTO_TEST_SUITE(tensor_proto)

BOOST_AUTO_TEST_CASE(every_type_round_trips_through_both_encodings) {
  const std::vector<TensorShape> shapes = {TensorShape{}, TensorShape{0}, TensorShape{7},
                                           TensorShape{2, 3}, TensorShape{3, 0, 2}};
  for (DataType dtype : test::AllTensorTypes()) {
    for (const TensorShape& shape : shapes) {
      BOOST_TEST_CONTEXT(DataTypeString(dtype) << " " << shape.DebugString()) {
        const Tensor original = PatternTensor(dtype, shape, 17);
        for (bool content : {true, false}) {
          TensorProto proto;
          if (content) TensorToProtoContent(original, &proto);
          else TensorToProtoField(original, &proto);
          BOOST_TEST(static_cast<int>(proto.dtype()) == static_cast<int>(dtype));
          Tensor decoded = MustDecode(proto);
          BOOST_TEST(SameTensor(decoded, original));
          // Encoding the decoded tensor gives the identical wire bytes.
          TensorProto again;
          if (content) TensorToProtoContent(decoded, &again);
          else TensorToProtoField(decoded, &again);
          BOOST_TEST(again.SerializeAsString() == proto.SerializeAsString());
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(content_encoding_is_raw_little_endian_bytes) {
  TensorProto p;
  TensorToProtoContent(Tensor::FromVector<int32_t>({1, 0x01020304}), &p);
  BOOST_TEST(p.tensor_content() == std::string("\x01\0\0\0\x04\x03\x02\x01", 8));
  BOOST_TEST(p.tensor_shape().dim_size() == 1);
  BOOST_TEST(p.tensor_shape().dim(0).size() == 2);
  BOOST_TEST(p.float_val_size() == 0);
  // Strings have no raw form; they go to string_val.
  TensorToProtoContent(Tensor::FromVector<std::string>({"ab", ""}), &p);
  BOOST_TEST(p.tensor_content().empty());
  BOOST_TEST(p.string_val_size() == 2);
  BOOST_TEST(p.string_val(0) == "ab");
}

BOOST_AUTO_TEST_CASE(field_encoding_uses_tensorflows_fields) {
  TensorProto p;
  TensorToProtoField(Tensor::FromVector<int8_t>({-3, 4}), &p);
  BOOST_TEST(p.int_val_size() == 2);
  BOOST_TEST(p.int_val(0) == -3);
  TensorToProtoField(Tensor::FromVector<uint8_t>({200}), &p);
  BOOST_TEST(p.int_val(0) == 200);
  TensorToProtoField(Tensor::FromVector<uint16_t>({65535}), &p);
  BOOST_TEST(p.int_val(0) == 65535);
  TensorToProtoField(Tensor::FromVector<half>({FloatToHalf(-2.0f)}), &p);
  BOOST_TEST(p.half_val(0) == 0xc000);  // bits, zero-extended
  TensorToProtoField(Tensor::FromVector<bfloat16>({FloatToBFloat16(1.0f)}), &p);
  BOOST_TEST(p.half_val(0) == 0x3f80);
  TensorToProtoField(Tensor::FromVector<complex64>({{1.5f, -2.5f}}), &p);
  BOOST_TEST(p.scomplex_val_size() == 2);
  BOOST_TEST(p.scomplex_val(1) == -2.5f);
  TensorToProtoField(Tensor::FromVector<qint8>({qint8{-5}}), &p);
  BOOST_TEST(p.int_val(0) == -5);
  TensorToProtoField(Tensor::FromVector<uint64_t>({~0ull}), &p);
  BOOST_TEST(p.uint64_val(0) == ~0ull);
  TensorToProtoField(Tensor::FromVector<bool>({true, false}), &p);
  BOOST_TEST(p.bool_val_size() == 2);
  BOOST_TEST(p.tensor_content().empty());
}

BOOST_AUTO_TEST_CASE(one_value_fills_the_whole_shape) {
  TensorProto p = MakeProto(DT_FLOAT, {2, 3});
  p.add_float_val(7.5f);
  Tensor t = MustDecode(p);
  BOOST_TEST(t.shape() == (TensorShape{2, 3}));
  for (int i = 0; i < 6; ++i) BOOST_TEST(t.data<float>()[i] == 7.5f);

  p = MakeProto(DT_HALF, {4});
  p.add_half_val(FloatToHalf(3.0f).bits);
  t = MustDecode(p);
  for (int i = 0; i < 4; ++i) BOOST_TEST(HalfToFloat(t.data<half>()[i]) == 3.0f);

  p = MakeProto(DT_COMPLEX128, {3});
  p.add_dcomplex_val(1.0);
  p.add_dcomplex_val(-1.0);
  t = MustDecode(p);
  for (int i = 0; i < 3; ++i) BOOST_TEST((t.data<complex128>()[i] == complex128(1, -1)));

  p = MakeProto(DT_STRING, {3});
  p.add_string_val("x");
  t = MustDecode(p);
  for (int i = 0; i < 3; ++i) BOOST_TEST(t.data<std::string>()[i] == "x");
}

BOOST_AUTO_TEST_CASE(last_value_fills_the_rest) {
  TensorProto p = MakeProto(DT_INT32, {5});
  for (int v : {1, 2, 3}) p.add_int_val(v);
  Tensor t = MustDecode(p);
  const std::vector<int32_t> want = {1, 2, 3, 3, 3};
  BOOST_TEST(std::vector<int32_t>(t.data<int32_t>(), t.data<int32_t>() + 5) == want,
             boost::test_tools::per_element());

  p = MakeProto(DT_UINT8, {4});
  p.add_int_val(9);
  p.add_int_val(255);
  t = MustDecode(p);
  BOOST_TEST(t.data<uint8_t>()[3] == 255);

  p = MakeProto(DT_INT64, {2, 2});
  p.add_int64_val(-1);
  p.add_int64_val(int64_t{1} << 40);
  t = MustDecode(p);
  BOOST_TEST(t.data<int64_t>()[0] == -1);
  BOOST_TEST(t.data<int64_t>()[3] == int64_t{1} << 40);

  p = MakeProto(DT_BOOL, {3});
  p.add_bool_val(false);
  p.add_bool_val(true);
  t = MustDecode(p);
  BOOST_TEST(!t.data<bool>()[0]);
  BOOST_TEST(t.data<bool>()[2]);

  p = MakeProto(DT_STRING, {4});
  p.add_string_val("a");
  p.add_string_val("bc");
  t = MustDecode(p);
  BOOST_TEST(t.data<std::string>()[0] == "a");
  BOOST_TEST(t.data<std::string>()[3] == "bc");

  p = MakeProto(DT_UINT32, {3});
  p.add_uint32_val(4000000000u);
  t = MustDecode(p);
  BOOST_TEST(t.data<uint32_t>()[2] == 4000000000u);
}

BOOST_AUTO_TEST_CASE(no_values_mean_zeros) {
  for (DataType dtype : test::AllTensorTypes()) {
    BOOST_TEST_CONTEXT(DataTypeString(dtype)) {
      Tensor t = MustDecode(MakeProto(dtype, {3}));
      BOOST_TEST(t.NumElements() == 3);
      if (dtype == DT_STRING) {
        for (int i = 0; i < 3; ++i) BOOST_TEST(t.data<std::string>()[i].empty());
      } else {
        BOOST_TEST(t.tensor_data() == std::string(t.TotalBytes(), '\0'));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(empty_tensors_decode_to_zero_elements) {
  Tensor t = MustDecode(MakeProto(DT_FLOAT, {0}));
  BOOST_TEST(t.NumElements() == 0);
  BOOST_TEST(t.IsInitialized());
  t = MustDecode(MakeProto(DT_STRING, {2, 0}));
  BOOST_TEST(t.shape() == (TensorShape{2, 0}));
  TensorProto p = MakeProto(DT_FLOAT, {0});
  p.add_float_val(1.0f);
  BOOST_TEST(errors::IsInvalidArgument(DecodeStatus(p)));  // a value, but no element
}

BOOST_AUTO_TEST_CASE(quantized_types_decode_from_int_val_and_content) {
  TensorProto p = MakeProto(DT_QINT8, {3});
  p.add_int_val(-128);
  p.add_int_val(127);
  Tensor t = MustDecode(p);
  BOOST_TEST(t.data<qint8>()[0].value == -128);
  BOOST_TEST(t.data<qint8>()[2].value == 127);

  p = MakeProto(DT_QUINT16, {2});
  p.set_tensor_content(std::string("\xff\xff\x01\x00", 4));
  t = MustDecode(p);
  BOOST_TEST(t.data<quint16>()[0].value == 65535);
  BOOST_TEST(t.data<quint16>()[1].value == 1);

  p = MakeProto(DT_QINT32, {2});
  p.add_int_val(-70000);
  t = MustDecode(p);
  BOOST_TEST(t.data<qint32>()[1].value == -70000);
}

BOOST_AUTO_TEST_CASE(tensorflow_string_content_encoding_decodes) {
  // TensorFlow's AsProtoTensorContent for strings: varint lengths, then bytes.
  TensorProto p = MakeProto(DT_STRING, {3});
  std::string content;
  content += '\x02';
  content += '\x00';
  content += '\x81';  // 129 as a two-byte varint
  content += '\x01';
  content += "hi" + std::string(129, 'z');
  p.set_tensor_content(content);
  Tensor t = MustDecode(p);
  BOOST_TEST(t.data<std::string>()[0] == "hi");
  BOOST_TEST(t.data<std::string>()[1].empty());
  BOOST_TEST(t.data<std::string>()[2] == std::string(129, 'z'));

  p.set_tensor_content(content.substr(0, content.size() - 1));
  Status s = DecodeStatus(p);
  BOOST_TEST(errors::IsInvalidArgument(s));
  BOOST_TEST(Contains(s, "lengths add up to 131 bytes but 130"), s.ToString());
}

BOOST_AUTO_TEST_CASE(bool_content_bytes_other_than_zero_are_true) {
  TensorProto p = MakeProto(DT_BOOL, {3});
  p.set_tensor_content(std::string("\x00\x02\xff", 3));
  Tensor t = MustDecode(p);
  BOOST_TEST(!t.data<bool>()[0]);
  BOOST_TEST(t.data<bool>()[1]);
  BOOST_TEST(t.data<bool>()[2]);
  BOOST_TEST(t.tensor_data() == std::string("\x00\x01\x01", 3));
}

BOOST_AUTO_TEST_CASE(content_size_mismatch_names_both_sizes) {
  TensorProto p = MakeProto(DT_FLOAT, {2, 2});
  p.set_tensor_content(std::string(15, 'x'));
  Status s = DecodeStatus(p);
  BOOST_TEST(errors::IsInvalidArgument(s));
  BOOST_TEST(Contains(s, "holds 15 bytes"), s.ToString());
  BOOST_TEST(Contains(s, "need 16 bytes"), s.ToString());
  BOOST_TEST(Contains(s, "[2,2]"), s.ToString());
  p.set_tensor_content(std::string(17, 'x'));
  BOOST_TEST(errors::IsInvalidArgument(DecodeStatus(p)));
  // A shape no memory could hold, with a few bytes of content: still a
  // mismatch, reported without trying to allocate.
  p = MakeProto(DT_COMPLEX128, {int64_t{1} << 61});
  p.set_tensor_content("abcde");
  s = DecodeStatus(p);
  BOOST_TEST(errors::IsInvalidArgument(s));
  BOOST_TEST(Contains(s, "more than 2^63"), s.ToString());
}

BOOST_AUTO_TEST_CASE(more_values_than_elements_is_an_error) {
  TensorProto p = MakeProto(DT_DOUBLE, {2});
  for (double v : {1.0, 2.0, 3.0}) p.add_double_val(v);
  Status s = DecodeStatus(p);
  BOOST_TEST(errors::IsInvalidArgument(s));
  BOOST_TEST(Contains(s, "double_val has 3 values"), s.ToString());

  p = MakeProto(DT_COMPLEX64, {1});
  for (float v : {1.f, 2.f, 3.f, 4.f}) p.add_scomplex_val(v);
  BOOST_TEST(errors::IsInvalidArgument(DecodeStatus(p)));
}

BOOST_AUTO_TEST_CASE(odd_complex_component_count_is_an_error) {
  TensorProto p = MakeProto(DT_COMPLEX64, {2});
  for (float v : {1.f, 2.f, 3.f}) p.add_scomplex_val(v);
  Status s = DecodeStatus(p);
  BOOST_TEST(errors::IsInvalidArgument(s));
  BOOST_TEST(Contains(s, "(real, imag) pairs"), s.ToString());
}

BOOST_AUTO_TEST_CASE(bad_shapes_are_invalid_argument) {
  TensorProto p = MakeProto(DT_FLOAT, {2, -1});
  Status s = DecodeStatus(p);
  BOOST_TEST(errors::IsInvalidArgument(s));
  BOOST_TEST(Contains(s, "unknown"), s.ToString());
  p = MakeProto(DT_FLOAT, {-5});
  BOOST_TEST(errors::IsInvalidArgument(DecodeStatus(p)));
  p = MakeProto(DT_FLOAT, {});
  p.mutable_tensor_shape()->set_unknown_rank(true);
  s = DecodeStatus(p);
  BOOST_TEST(errors::IsInvalidArgument(s));
  BOOST_TEST(Contains(s, "unknown rank"), s.ToString());
  p = MakeProto(DT_FLOAT, {int64_t{1} << 62, 4});  // element count overflows
  BOOST_TEST(errors::IsInvalidArgument(DecodeStatus(p)));
}

BOOST_AUTO_TEST_CASE(bad_dtypes_are_rejected) {
  for (int value : {0, 24, 99, 200, -1}) {
    TensorProto p;
    p.set_dtype(static_cast<tensorflow::DataType>(value));
    Status s = DecodeStatus(p);
    BOOST_TEST(errors::IsInvalidArgument(s), value);
    BOOST_TEST(Contains(s, "invalid dtype"), s.ToString());
  }
  TensorProto ref;
  ref.set_dtype(static_cast<tensorflow::DataType>(DT_FLOAT + kDataTypeRefOffset));
  BOOST_TEST(errors::IsInvalidArgument(DecodeStatus(ref)));
  TensorProto resource;
  resource.set_dtype(static_cast<tensorflow::DataType>(DT_RESOURCE));
  BOOST_TEST(DecodeStatus(resource).code() == Code::UNIMPLEMENTED);
}

BOOST_AUTO_TEST_CASE(limits_stop_expansion_before_allocating) {
  test::RecordingAllocator alloc;
  TensorProtoLimits limits;
  limits.max_tensor_bytes = 1 << 20;
  TensorProto p = MakeProto(DT_FLOAT, {1 << 20});
  p.add_float_val(1.0f);
  Tensor t;
  Status s = TensorFromProto(p, limits, &t, &alloc);
  BOOST_TEST(s.code() == Code::RESOURCE_EXHAUSTED);
  BOOST_TEST(Contains(s, "4194304 bytes"), s.ToString());
  BOOST_TEST(alloc.largest() == 0u);

  // String payload counts: one long string filled many times.
  p = MakeProto(DT_STRING, {1000});
  p.add_string_val(std::string(4096, 's'));
  BOOST_TEST(TensorFromProto(p, limits, &t, &alloc).code() == Code::RESOURCE_EXHAUSTED);

  // A size no memory could hold fails cleanly even without limits.
  p = MakeProto(DT_COMPLEX128, {int64_t{1} << 61});
  s = TensorFromProto(p, &t, &alloc);
  BOOST_TEST(s.code() == Code::RESOURCE_EXHAUSTED, s.ToString());
  BOOST_TEST(alloc.largest() == 0u);

  // Within the limit it decodes.
  p = MakeProto(DT_FLOAT, {1000});
  p.add_float_val(2.0f);
  BOOST_TEST(TensorFromProto(p, limits, &t, &alloc).ok());
  BOOST_TEST(alloc.largest() == 4000u);
}

BOOST_AUTO_TEST_CASE(shape_protos_round_trip) {
  tensorflow::TensorShapeProto proto;
  ShapeToProto(PartialTensorShape({2, -1, 3}), &proto);
  BOOST_TEST(proto.dim_size() == 3);
  BOOST_TEST(proto.dim(1).size() == -1);
  PartialTensorShape partial;
  BOOST_TEST(ShapeFromProto(proto, &partial).ok());
  BOOST_TEST(partial == PartialTensorShape({2, -1, 3}));
  TensorShape full;
  BOOST_TEST(errors::IsInvalidArgument(ShapeFromProto(proto, &full)));

  ShapeToProto(PartialTensorShape::Unknown(), &proto);
  BOOST_TEST(proto.unknown_rank());
  BOOST_TEST(proto.dim_size() == 0);
  BOOST_TEST(ShapeFromProto(proto, &partial).ok());
  BOOST_TEST(partial.unknown_rank());
  BOOST_TEST(errors::IsInvalidArgument(ShapeFromProto(proto, &full)));

  ShapeToProto(TensorShape{4, 0}, &proto);
  BOOST_TEST(ShapeFromProto(proto, &full).ok());
  BOOST_TEST(full == (TensorShape{4, 0}));
  ShapeToProto(TensorShape{}, &proto);
  BOOST_TEST(ShapeFromProto(proto, &full).ok());
  BOOST_TEST(full.dims() == 0);
}

BOOST_AUTO_TEST_CASE(malformed_shape_protos_are_invalid_argument) {
  tensorflow::TensorShapeProto proto;
  proto.set_unknown_rank(true);
  proto.add_dim()->set_size(2);
  PartialTensorShape partial;
  BOOST_TEST(errors::IsInvalidArgument(ShapeFromProto(proto, &partial)));
  proto.Clear();
  proto.add_dim()->set_size(-2);
  Status s = ShapeFromProto(proto, &partial);
  BOOST_TEST(errors::IsInvalidArgument(s));
  BOOST_TEST(Contains(s, "-2"), s.ToString());
  proto.Clear();
  for (int i = 0; i < kMaxShapeRank + 1; ++i) proto.add_dim()->set_size(1);
  BOOST_TEST(errors::IsInvalidArgument(ShapeFromProto(proto, &partial)));
  proto.Clear();
  proto.add_dim()->set_size(int64_t{1} << 40);
  proto.add_dim()->set_size(-1);
  proto.add_dim()->set_size(int64_t{1} << 40);
  BOOST_TEST(errors::IsInvalidArgument(ShapeFromProto(proto, &partial)));
}

// Const tensors in GraphDefs exported by real TensorFlow decode, and survive
// a round trip through both encodings.
BOOST_AUTO_TEST_CASE(tensorflow_exported_constants_decode) {
  int decoded = 0;
  for (const char* name : {"tf2onnx_fc_layers_frozen.pb", "tf2onnx_regression_frozen.pb",
                           "chaow94_mnist_mlp_frozen.pb"}) {
    std::ifstream in(std::string(AF_TEST_DATA_DIR) + "/" + name, std::ios::binary);
    if (!in) continue;
    std::stringstream bytes;
    bytes << in.rdbuf();
    tensorflow::GraphDef graph;
    BOOST_REQUIRE(graph.ParseFromString(bytes.str()));
    for (const auto& node : graph.node()) {
      if (node.op() != "Const") continue;
      const auto it = node.attr().find("value");
      BOOST_REQUIRE(it != node.attr().end());
      Tensor t;
      Status s = TensorFromProto(it->second.tensor(), &t);
      BOOST_REQUIRE_MESSAGE(s.ok(), node.name() << ": " << s);
      BOOST_TEST(static_cast<int>(t.dtype()) == static_cast<int>(it->second.tensor().dtype()));
      for (bool content : {true, false}) {
        TensorProto p;
        if (content) TensorToProtoContent(t, &p);
        else TensorToProtoField(t, &p);
        Tensor again;
        BOOST_REQUIRE(TensorFromProto(p, &again).ok());
        BOOST_TEST(SameTensor(again, t), node.name());
      }
      ++decoded;
    }
  }
  BOOST_TEST_MESSAGE("decoded " << decoded << " TensorFlow constants");
  BOOST_TEST(decoded > 0);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
