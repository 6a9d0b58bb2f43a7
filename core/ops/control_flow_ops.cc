// Control-flow primitives: conditionals (Switch/Merge) and loop frames
// (Enter/Exit/NextIteration/LoopCond). None is stateful, as in TensorFlow.
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

// Both branches carry the data; pred must be a scalar.
Status SwitchShape(InferenceContext* c) {
  PartialTensorShape pred;
  AF_RETURN_IF_ERROR(c->WithRank(1, 0, &pred));
  c->set_output(0, c->input(0));
  c->set_output(1, c->input(0));
  return Status::OK();
}

// Only one input arrives at run time, so the output keeps just what all
// inputs agree on: a common rank and the dims equal everywhere.
Status MergeShape(InferenceContext* c) {
  PartialTensorShape out = c->num_inputs() > 0 ? c->input(0) : PartialTensorShape::Unknown();
  for (int i = 1; i < c->num_inputs() && !out.unknown_rank(); ++i) {
    const PartialTensorShape& in = c->input(i);
    if (in.unknown_rank() || in.dims() != out.dims()) {
      out = PartialTensorShape::Unknown();
      break;
    }
    std::vector<int64_t> dims(out.dim_sizes().begin(), out.dim_sizes().end());
    for (int d = 0; d < out.dims(); ++d)
      if (dims[d] != in.dim_size(d)) dims[d] = -1;
    out = PartialTensorShape(dims);
  }
  c->set_output(0, std::move(out));
  c->set_output(1, PartialTensorShape(TensorShape{}));
  return Status::OK();
}

// Every output may carry the data; the index must be a scalar.
Status SwitchNShape(InferenceContext* c) {
  PartialTensorShape index;
  AF_RETURN_IF_ERROR(c->WithRank(1, 0, &index));
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, c->input(0));
  return Status::OK();
}

Status ScalarInScalarOut(InferenceContext* c) {
  PartialTensorShape in;
  AF_RETURN_IF_ERROR(c->WithRank(0, 0, &in));
  c->set_output(0, std::move(in));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Switch")
    .Input("data: T")
    .Input("pred: bool")
    .Output("output_false: T")
    .Output("output_true: T")
    .Attr("T: type")
    .SetShapeFn(SwitchShape);

REGISTER_OP("RefSwitch")
    .Input("data: Ref(T)")
    .Input("pred: bool")
    .Output("output_false: Ref(T)")
    .Output("output_true: Ref(T)")
    .Attr("T: type")
    .SetAllowsUninitializedInput()
    .SetShapeFn(SwitchShape);

// Switch with N outputs (TensorFlow's internal op for lowering Case): data
// goes to output `output_index`, or to the last output when the index is
// out of range; the others are dead.
REGISTER_OP("_SwitchN")
    .Input("data: T")
    .Input("output_index: int32")
    .Output("outputs: num_outs * T")
    .Attr("num_outs: int >= 1")
    .Attr("T: type")
    .SetShapeFn(SwitchNShape);

REGISTER_OP("Merge")
    .Input("inputs: N * T")
    .Output("output: T")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1")
    .SetShapeFn(MergeShape);

REGISTER_OP("RefMerge")
    .Input("inputs: Ref(N * T)")
    .Output("output: Ref(T)")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1")
    .SetAllowsUninitializedInput()
    .SetShapeFn(MergeShape);

REGISTER_OP("Enter")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("frame_name: string")
    .Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(shape_fn::UnchangedShape);

REGISTER_OP("RefEnter")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .Attr("frame_name: string")
    .Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(shape_fn::UnchangedShape);

REGISTER_OP("Exit")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fn::UnchangedShape);

REGISTER_OP("RefExit")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .SetShapeFn(shape_fn::UnchangedShape);

REGISTER_OP("NextIteration")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fn::UnchangedShape);

REGISTER_OP("RefNextIteration")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .SetShapeFn(shape_fn::UnchangedShape);

REGISTER_OP("LoopCond")
    .Input("input: bool")
    .Output("output: bool")
    .SetShapeFn(ScalarInScalarOut);

REGISTER_OP("ControlTrigger").SetShapeFn(shape_fn::NoOutputs);

}  // namespace af
