// Parsing ops: turn the strings that readers produce into tensors
// (TensorFlow's names, inputs, outputs, attrs and defaults, so that imported
// TensorFlow graphs run). Kernels: kernels/io/decode_raw_op.cc and
// kernels/parsing/.
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

// The input's shape plus one data-dependent dimension.
Status DecodeRawShape(InferenceContext* c) {
  PartialTensorShape out = c->input(0);
  if (!out.unknown_rank()) out.AddDim(-1);
  c->set_output(0, std::move(out));
  return Status::OK();
}

// `prefix` followed by `suffix`; unknown when either rank is.
PartialTensorShape Concat(const PartialTensorShape& prefix, const PartialTensorShape& suffix) {
  if (prefix.unknown_rank() || suffix.unknown_rank()) return PartialTensorShape::Unknown();
  PartialTensorShape out = prefix;
  for (int i = 0; i < suffix.dims(); ++i) out.AddDim(suffix.dim_size(i));
  return out;
}

// Sets the sparse (indices, values, dense_shape) and dense outputs of the
// Example parsers from `records`, the shape of `serialized`: a sparse
// tensor's rank is the records' rank plus one, a dense value is the records'
// shape followed by its dense shape.
Status SetExampleOutputs(InferenceContext* c, const PartialTensorShape& records, int num_sparse,
                         int* next) {
  std::vector<PartialTensorShape> dense_shapes;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("dense_shapes", &dense_shapes)));
  DataTypeVector sparse_types, tdense;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("sparse_types", &sparse_types)));
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("Tdense", &tdense)));
  if (static_cast<int>(sparse_types.size()) != num_sparse)
    return c->InvalidArgument("len(sparse_types) = ", sparse_types.size(),
                              " differs from the number of sparse keys ", num_sparse);
  if (dense_shapes.size() != tdense.size())
    return c->InvalidArgument("len(dense_shapes) = ", dense_shapes.size(),
                              " differs from len(Tdense) = ", tdense.size());
  const int64_t rank = records.unknown_rank() ? -1 : records.dims() + 1;
  for (int i = 0; i < num_sparse; ++i) c->set_output((*next)++, PartialTensorShape{-1, rank});
  for (int i = 0; i < num_sparse; ++i) c->set_output((*next)++, PartialTensorShape{-1});
  for (int i = 0; i < num_sparse; ++i) c->set_output((*next)++, PartialTensorShape{rank});
  for (const PartialTensorShape& s : dense_shapes) c->set_output((*next)++, Concat(records, s));
  return Status::OK();
}

Status ParseExampleShape(InferenceContext* c) {
  PartialTensorShape records, names;
  AF_RETURN_IF_ERROR(c->WithRank(0, 1, &records));
  AF_RETURN_IF_ERROR(c->WithRankAtMost(1, 1, &names));
  int64_t num_sparse = 0;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("Nsparse", &num_sparse)));
  int next = 0;
  return SetExampleOutputs(c, records, static_cast<int>(num_sparse), &next);
}

Status ParseExampleV2Shape(InferenceContext* c) {
  PartialTensorShape records, unused;
  AF_RETURN_IF_ERROR(c->WithRankAtMost(0, 1, &records));
  for (int i = 1; i <= 4; ++i) AF_RETURN_IF_ERROR(c->WithRankAtMost(i, 1, &unused));
  int64_t num_sparse = 0;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("num_sparse", &num_sparse)));
  DataTypeVector value_types, split_types;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("ragged_value_types", &value_types)));
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("ragged_split_types", &split_types)));
  if (value_types.size() != split_types.size())
    return c->InvalidArgument("len(ragged_value_types) = ", value_types.size(),
                              " differs from len(ragged_split_types) = ", split_types.size());
  int next = 0;
  AF_RETURN_IF_ERROR(SetExampleOutputs(c, records, static_cast<int>(num_sparse), &next));
  // row_splits: one more than the records (unknown for a scalar, as in TF).
  int64_t splits = -1;
  if (!records.unknown_rank() && records.dims() == 1 && records.dim_size(0) >= 0)
    splits = records.dim_size(0) + 1;
  for (size_t i = 0; i < value_types.size(); ++i) c->set_output(next++, PartialTensorShape{-1});
  for (size_t i = 0; i < value_types.size(); ++i) c->set_output(next++, PartialTensorShape{splits});
  return Status::OK();
}

Status ParseSingleExampleShape(InferenceContext* c) {
  PartialTensorShape records;
  AF_RETURN_IF_ERROR(c->WithRank(0, 0, &records));
  int64_t num_sparse = 0;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("num_sparse", &num_sparse)));
  std::vector<std::string> sparse_keys, dense_keys;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("sparse_keys", &sparse_keys)));
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("dense_keys", &dense_keys)));
  if (static_cast<int64_t>(sparse_keys.size()) != num_sparse)
    return c->InvalidArgument("len(sparse_keys) = ", sparse_keys.size(),
                              " differs from num_sparse = ", num_sparse);
  if (static_cast<int>(dense_keys.size()) != c->num_inputs() - 1)
    return c->InvalidArgument("len(dense_keys) = ", dense_keys.size(), " differs from the ",
                              c->num_inputs() - 1, " dense_defaults");
  int next = 0;
  return SetExampleOutputs(c, records, static_cast<int>(num_sparse), &next);
}

// Every output has the records' shape; a default is a scalar or holds at
// most one element.
Status DecodeCSVShape(InferenceContext* c) {
  for (int i = 1; i < c->num_inputs(); ++i) {
    PartialTensorShape d;
    AF_RETURN_IF_ERROR(c->WithRankAtMost(i, 1, &d));
    if (d.dims() == 1 && d.dim_size(0) > 1)
      return c->InvalidArgument("record_defaults[", i - 1, "] has shape ", d.DebugString(),
                                "; a default must be a scalar or hold at most one element");
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, c->input(0));
  return Status::OK();
}

}  // namespace

REGISTER_OP("DecodeRaw")
    .Input("bytes: string")
    .Output("output: out_type")
    .Attr("out_type: {half,float,double,int32,uint16,uint8,int16,int8,int64,complex64,"
          "complex128,bool,bfloat16}")
    .Attr("little_endian: bool = true")
    .SetShapeFn(DecodeRawShape)
    .Doc("Reinterprets the bytes of each string (all of one length) as a vector of out_type.");

REGISTER_OP("ParseExample")
    .Input("serialized: string")
    .Input("names: string")
    .Input("sparse_keys: Nsparse * string")
    .Input("dense_keys: Ndense * string")
    .Input("dense_defaults: Tdense")
    .Output("sparse_indices: Nsparse * int64")
    .Output("sparse_values: sparse_types")
    .Output("sparse_shapes: Nsparse * int64")
    .Output("dense_values: Tdense")
    .Attr("Nsparse: int >= 0")
    .Attr("Ndense: int >= 0")
    .Attr("sparse_types: list({float,int64,string}) >= 0")
    .Attr("Tdense: list({float,int64,string}) >= 0")
    .Attr("dense_shapes: list(shape) >= 0")
    .SetShapeFn(ParseExampleShape)
    .Doc("Parses a vector of serialized tf.Example protos into sparse and dense tensors.");

REGISTER_OP("ParseExampleV2")
    .Input("serialized: string")
    .Input("names: string")
    .Input("sparse_keys: string")
    .Input("dense_keys: string")
    .Input("ragged_keys: string")
    .Input("dense_defaults: Tdense")
    .Output("sparse_indices: num_sparse * int64")
    .Output("sparse_values: sparse_types")
    .Output("sparse_shapes: num_sparse * int64")
    .Output("dense_values: Tdense")
    .Output("ragged_values: ragged_value_types")
    .Output("ragged_row_splits: ragged_split_types")
    .Attr("Tdense: list({float,int64,string}) >= 0")
    .Attr("num_sparse: int >= 0")
    .Attr("sparse_types: list({float,int64,string}) >= 0")
    .Attr("ragged_value_types: list({float,int64,string}) >= 0")
    .Attr("ragged_split_types: list({int32,int64}) >= 0")
    .Attr("dense_shapes: list(shape) >= 0")
    .SetShapeFn(ParseExampleV2Shape)
    .Doc("Parses a scalar or vector of serialized tf.Example protos into sparse, dense and "
         "ragged tensors.");

REGISTER_OP("ParseSingleExample")
    .Input("serialized: string")
    .Input("dense_defaults: Tdense")
    .Output("sparse_indices: num_sparse * int64")
    .Output("sparse_values: sparse_types")
    .Output("sparse_shapes: num_sparse * int64")
    .Output("dense_values: Tdense")
    .Attr("num_sparse: int >= 0")
    .Attr("sparse_keys: list(string) >= 0")
    .Attr("dense_keys: list(string) >= 0")
    .Attr("sparse_types: list({float,int64,string}) >= 0")
    .Attr("Tdense: list({float,int64,string}) >= 0")
    .Attr("dense_shapes: list(shape) >= 0")
    .SetShapeFn(ParseSingleExampleShape)
    .Doc("Parses one serialized tf.Example proto into sparse and dense tensors.");

REGISTER_OP("DecodeCSV")
    .Input("records: string")
    .Input("record_defaults: OUT_TYPE")
    .Output("output: OUT_TYPE")
    .Attr("OUT_TYPE: list({float,double,int32,int64,string})")
    .Attr("field_delim: string = ','")
    .Attr("use_quote_delim: bool = true")
    .Attr("na_value: string = ''")
    .Attr("select_cols: list(int) = []")
    .SetShapeFn(DecodeCSVShape)
    .Doc("Converts CSV records to tensors, one per column.");

}  // namespace af
