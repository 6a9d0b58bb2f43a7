// Helpers for the tf.Example parsing tests: building Example protos with the
// generated classes, raw wire bytes for encodings the classes never write
// (unpacked lists, repeated fields, unknown fields), and running
// ParseExample / ParseExampleV2 / ParseSingleExample on a feature spec.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor_shape_proto.h"
#include "proto/example.pb.h"
#include "tests/kernels/op_test_util.h"

namespace af::test {

// A list(shape) attr value (KernelRunner::Attr finds this SetAttr by ADL;
// the using-declaration keeps af's overloads visible next to it).
using ::af::SetAttr;
struct ShapeList {
  std::vector<PartialTensorShape> shapes;
};
inline void SetAttr(tensorflow::NodeDef* node, const std::string& name, const ShapeList& list) {
  tensorflow::AttrValue& value = (*node->mutable_attr())[name];
  auto* l = value.mutable_list();
  for (const PartialTensorShape& s : list.shapes) ShapeToProto(s, l->add_shape());
}

class ExampleBuilder {
 public:
  ExampleBuilder& Floats(const std::string& key, const std::vector<float>& values) {
    auto* list = Feature(key).mutable_float_list();
    for (float v : values) list->add_value(v);
    return *this;
  }
  ExampleBuilder& Int64s(const std::string& key, const std::vector<int64_t>& values) {
    auto* list = Feature(key).mutable_int64_list();
    for (int64_t v : values) list->add_value(v);
    return *this;
  }
  ExampleBuilder& Bytes(const std::string& key, const std::vector<std::string>& values) {
    auto* list = Feature(key).mutable_bytes_list();
    for (const std::string& v : values) list->add_value(v);
    return *this;
  }
  // A feature present with no list set.
  ExampleBuilder& Empty(const std::string& key) {
    Feature(key);
    return *this;
  }
  std::string Serialize() const { return example_.SerializeAsString(); }

 private:
  tensorflow::Feature& Feature(const std::string& key) {
    return (*example_.mutable_features()->mutable_feature())[key];
  }
  tensorflow::Example example_;
};

// Protobuf wire pieces, for encodings the generated classes never write.
namespace wire {
inline std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
inline std::string Tag(uint32_t field, uint32_t wire_type) {
  return Varint((static_cast<uint64_t>(field) << 3) | wire_type);
}
inline std::string Len(uint32_t field, const std::string& payload) {
  return Tag(field, 2) + Varint(payload.size()) + payload;
}
inline std::string Fixed32(uint32_t field, float v) {
  std::string out = Tag(field, 5);
  out.append(reinterpret_cast<const char*>(&v), 4);
  return out;
}
// A Features map entry: key and Feature bytes.
inline std::string Entry(const std::string& key, const std::string& feature) {
  return Len(1, Len(1, key) + Len(2, feature));
}
// An Example holding one Features message with these entries.
inline std::string Example(const std::string& entries) { return Len(1, entries); }
}  // namespace wire

struct DenseSpec {
  std::string key;
  DataType dtype;
  PartialTensorShape shape;
  Tensor default_value;  // empty: required
};
struct ListSpec {
  std::string key;
  DataType dtype;
  DataType split_dtype = DT_INT64;  // ragged only
};
struct ParseSpec {
  std::vector<ListSpec> sparse;
  std::vector<DenseSpec> dense;
  std::vector<ListSpec> ragged;  // ParseExampleV2 only
};

// A known scalar shape ([]); PartialTensorShape{} is an unknown rank.
inline PartialTensorShape ScalarShape() { return PartialTensorShape(TensorShape{}); }

inline Tensor StringVector(const std::vector<std::string>& values) {
  return Tensor::FromVector<std::string>(values);
}
inline Tensor EmptyOf(DataType dtype) { return Tensor(dtype, TensorShape{0}); }

inline void SetCommonAttrs(const ParseSpec& spec, KernelRunner* r) {
  std::vector<DataType> sparse_types, tdense;
  ShapeList shapes;
  for (const ListSpec& s : spec.sparse) sparse_types.push_back(s.dtype);
  for (const DenseSpec& d : spec.dense) {
    tdense.push_back(d.dtype);
    shapes.shapes.push_back(d.shape);
  }
  r->Attr("sparse_types", sparse_types).Attr("Tdense", tdense).Attr("dense_shapes", shapes);
}

// ParseExample (v1): one scalar key input per feature.
inline StatusOr<std::vector<Tensor>> RunParseExample(const ParseSpec& spec, Tensor serialized,
                                                     Tensor names = EmptyOf(DT_STRING)) {
  KernelRunner r("ParseExample", "parse");
  SetCommonAttrs(spec, &r);
  r.Attr("Nsparse", static_cast<int64_t>(spec.sparse.size()))
      .Attr("Ndense", static_cast<int64_t>(spec.dense.size()));
  r.Input(std::move(serialized)).Input(std::move(names));
  for (const ListSpec& s : spec.sparse) r.Input(Tensor::Scalar<std::string>(s.key));
  for (const DenseSpec& d : spec.dense) r.Input(Tensor::Scalar<std::string>(d.key));
  for (const DenseSpec& d : spec.dense) r.Input(d.default_value);
  return r.Run();
}

// ParseExampleV2: one key vector per group, ragged features too.
inline StatusOr<std::vector<Tensor>> RunParseExampleV2(const ParseSpec& spec, Tensor serialized,
                                                       Tensor names = EmptyOf(DT_STRING)) {
  KernelRunner r("ParseExampleV2", "parse_v2");
  SetCommonAttrs(spec, &r);
  std::vector<DataType> value_types, split_types;
  std::vector<std::string> sparse_keys, dense_keys, ragged_keys;
  for (const ListSpec& s : spec.sparse) sparse_keys.push_back(s.key);
  for (const DenseSpec& d : spec.dense) dense_keys.push_back(d.key);
  for (const ListSpec& s : spec.ragged) {
    ragged_keys.push_back(s.key);
    value_types.push_back(s.dtype);
    split_types.push_back(s.split_dtype);
  }
  r.Attr("num_sparse", static_cast<int64_t>(spec.sparse.size()))
      .Attr("ragged_value_types", value_types)
      .Attr("ragged_split_types", split_types);
  r.Input(std::move(serialized)).Input(std::move(names));
  r.Input(StringVector(sparse_keys))
      .Input(StringVector(dense_keys))
      .Input(StringVector(ragged_keys));
  for (const DenseSpec& d : spec.dense) r.Input(d.default_value);
  return r.Run();
}

// ParseSingleExample: keys are attrs.
inline StatusOr<std::vector<Tensor>> RunParseSingleExample(const ParseSpec& spec,
                                                           Tensor serialized) {
  KernelRunner r("ParseSingleExample", "parse_single");
  SetCommonAttrs(spec, &r);
  std::vector<std::string> sparse_keys, dense_keys;
  for (const ListSpec& s : spec.sparse) sparse_keys.push_back(s.key);
  for (const DenseSpec& d : spec.dense) dense_keys.push_back(d.key);
  r.Attr("num_sparse", static_cast<int64_t>(spec.sparse.size()))
      .Attr("sparse_keys", sparse_keys)
      .Attr("dense_keys", dense_keys);
  r.Input(std::move(serialized));
  for (const DenseSpec& d : spec.dense) r.Input(d.default_value);
  return r.Run();
}

// The string values of a tensor, in order.
inline std::vector<std::string> StringsOf(const Tensor& t) {
  return {t.data<std::string>(), t.data<std::string>() + t.NumElements()};
}

}  // namespace af::test
