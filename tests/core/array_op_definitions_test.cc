// The array ops' signatures and attr defaults are TensorFlow's, so that
// GraphDefs written by TensorFlow validate against them.
#include <boost/test/unit_test.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/attr_value_util.h"
#include "core/op_registry.h"
#include "registry_test_util.h"

namespace af {
namespace {

using tensorflow::OpDef;
using test::RegisteredOp;

// "values:N*T,axis:Tidx->output:T".
std::string ArraySignature(const OpDef& op) {
  auto arg = [](const OpDef::ArgDef& a) {
    std::string t = a.type_list_attr().empty() ? a.type_attr() : a.type_list_attr();
    if (t.empty()) t = DataTypeString(static_cast<DataType>(a.type()));
    if (!a.number_attr().empty()) t = a.number_attr() + "*" + t;
    return a.name() + ":" + t;
  };
  std::string out;
  for (int i = 0; i < op.input_arg_size(); ++i) out += (i ? "," : "") + arg(op.input_arg(i));
  out += "->";
  for (int i = 0; i < op.output_arg_size(); ++i) out += (i ? "," : "") + arg(op.output_arg(i));
  return out;
}

// "name=default" for every attr with a default, "name" otherwise, in order.
std::string ArrayAttrs(const OpDef& op) {
  std::string out;
  for (const auto& a : op.attr()) {
    if (!out.empty()) out += ",";
    out += a.name();
    if (!a.has_default_value()) continue;
    const auto& v = a.default_value();
    out += "=";
    if (v.value_case() == tensorflow::AttrValue::kType)
      out += DataTypeString(static_cast<DataType>(v.type()));
    else if (v.value_case() == tensorflow::AttrValue::kI)
      out += std::to_string(v.i());
    else if (v.value_case() == tensorflow::AttrValue::kB)
      out += v.b() ? "true" : "false";
    else if (v.value_case() == tensorflow::AttrValue::kList)
      out += "[" + std::to_string(v.list().i_size()) + "]";
  }
  return out;
}

BOOST_AUTO_TEST_CASE(array_op_signatures_and_defaults_match_tensorflow) {
  const std::string masks =
      "begin_mask=0,end_mask=0,ellipsis_mask=0,new_axis_mask=0,shrink_axis_mask=0";
  struct Expected {
    std::string op, signature, attrs;
  };
  const std::vector<Expected> expected = {
      {"Shape", "input:T->output:out_type", "T,out_type=int32"},
      {"ShapeN", "input:N*T->output:N*out_type", "N,T,out_type=int32"},
      {"Size", "input:T->output:out_type", "T,out_type=int32"},
      {"Rank", "input:T->output:int32", "T"},
      {"Reshape", "tensor:T,shape:Tshape->output:T", "T,Tshape=int32"},
      {"ExpandDims", "input:T,dim:Tdim->output:T", "T,Tdim=int32"},
      {"Squeeze", "input:T->output:T", "T,squeeze_dims=[0]"},
      {"Fill", "dims:index_type,value:T->output:T", "T,index_type=int32"},
      {"ZerosLike", "x:T->y:T", "T"},
      {"OnesLike", "x:T->y:T", "T"},
      {"Range", "start:Tidx,limit:Tidx,delta:Tidx->output:Tidx", "Tidx=int32"},
      {"Transpose", "x:T,perm:Tperm->y:T", "T,Tperm=int32"},
      {"InvertPermutation", "x:T->y:T", "T=int32"},
      {"Concat", "concat_dim:int32,values:N*T->output:T", "N,T"},
      {"ConcatV2", "values:N*T,axis:Tidx->output:T", "N,T,Tidx=int32"},
      {"ConcatOffset", "concat_dim:int32,shape:N*shape_type->offset:N*shape_type",
       "N,shape_type=int32"},
      {"Split", "split_dim:int32,value:T->output:num_split*T", "num_split,T"},
      {"SplitV", "value:T,size_splits:Tlen,split_dim:int32->output:num_split*T",
       "num_split,T,Tlen=int64"},
      {"Pack", "values:N*T->output:T", "N,T,axis=0"},
      {"Unpack", "value:T->output:num*T", "num,T,axis=0"},
      {"Slice", "input:T,begin:Index,size:Index->output:T", "T,Index"},
      {"StridedSlice", "input:T,begin:Index,end:Index,strides:Index->output:T", "T,Index," + masks},
      {"StridedSliceGrad", "shape:Index,begin:Index,end:Index,strides:Index,dy:T->output:T",
       "T,Index," + masks},
      {"Tile", "input:T,multiples:Tmultiples->output:T", "T,Tmultiples=int32"},
      {"Pad", "input:T,paddings:Tpaddings->output:T", "T,Tpaddings=int32"},
      {"PadV2", "input:T,paddings:Tpaddings,constant_values:T->output:T", "T,Tpaddings=int32"},
      {"Gather", "params:Tparams,indices:Tindices->output:Tparams",
       "validate_indices=true,Tparams,Tindices"},
      {"GatherV2", "params:Tparams,indices:Tindices,axis:Taxis->output:Tparams",
       "batch_dims=0,Tparams,Tindices,Taxis"},
      {"OneHot", "indices:TI,depth:int32,on_value:T,off_value:T->output:T", "axis=-1,T,TI=int64"},
      {"BroadcastTo", "input:T,shape:Tidx->output:T", "T,Tidx=int32"},
      {"BroadcastGradientArgs", "s0:T,s1:T->r0:T,r1:T", "T=int32"},
      {"UnsortedSegmentSum", "data:T,segment_ids:Tindices,num_segments:Tnumsegments->output:T",
       "T,Tindices,Tnumsegments=int32"},
      {"UnsortedSegmentMax", "data:T,segment_ids:Tindices,num_segments:Tnumsegments->output:T",
       "T,Tindices,Tnumsegments=int32"},
      {"UnsortedSegmentMin", "data:T,segment_ids:Tindices,num_segments:Tnumsegments->output:T",
       "T,Tindices,Tnumsegments=int32"},
      {"DynamicPartition", "data:T,partitions:int32->outputs:num_partitions*T", "num_partitions,T"},
      {"DynamicStitch", "indices:N*int32,data:N*T->merged:T", "N,T"},
      {"ParallelDynamicStitch", "indices:N*int32,data:N*T->merged:T", "N,T"},
      {"Unique", "x:T->y:T,idx:out_idx", "T,out_idx=int32"},
      {"UniqueWithCounts", "x:T->y:T,idx:out_idx,count:out_idx", "T,out_idx=int32"},
  };
  for (const Expected& e : expected) {
    const OpDef& op = RegisteredOp(e.op);
    BOOST_CHECK_MESSAGE(ArraySignature(op) == e.signature,
                        e.op << ": " << ArraySignature(op) << " vs. " << e.signature);
    BOOST_CHECK_MESSAGE(ArrayAttrs(op) == e.attrs,
                        e.op << ": " << ArrayAttrs(op) << " vs. " << e.attrs);
    BOOST_CHECK_MESSAGE(!op.is_stateful(), e.op << " must not be stateful");
  }
  // Minimums that GraphDef validation relies on.
  for (const auto& [op, attr, minimum] : std::vector<std::tuple<std::string, std::string, int>>{
           {"Concat", "N", 2},
           {"ConcatV2", "N", 2},
           {"Pack", "N", 1},
           {"Unpack", "num", 0},
           {"Split", "num_split", 1},
           {"SplitV", "num_split", 1},
           {"ShapeN", "N", 1},
           {"DynamicPartition", "num_partitions", 1},
           {"DynamicStitch", "N", 1},
           {"ParallelDynamicStitch", "N", 1}}) {
    bool found = false;
    for (const auto& a : RegisteredOp(op).attr()) {
      if (a.name() != attr) continue;
      found = true;
      BOOST_CHECK_MESSAGE(a.has_minimum() && a.minimum() == minimum, op << "." << attr);
    }
    BOOST_CHECK_MESSAGE(found, op << " has no attr " << attr);
  }
}

}  // namespace
}  // namespace af
