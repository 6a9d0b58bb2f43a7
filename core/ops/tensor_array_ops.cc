// TensorArray ops (TensorFlow's V3 family): an array of tensors living for
// one step, written and read once per index, with a float `flow` value
// threaded through the ops that use it so that the graph orders them and
// gradients have an edge to travel along. The handle is a scalar resource.
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

Status CheckHandle(InferenceContext* c, int input) {
  PartialTensorShape handle;
  return c->WithRankAtMost(input, 1, &handle);
}

Status CheckScalar(InferenceContext* c, int input) {
  PartialTensorShape s;
  return c->WithRank(input, 0, &s);
}

Status TensorArrayShape(InferenceContext* c) {
  AF_RETURN_IF_ERROR(CheckScalar(c, 0));
  c->set_output(0, PartialTensorShape({}));
  c->set_output(1, PartialTensorShape({}));
  return Status::OK();
}

Status WriteShape(InferenceContext* c) {
  AF_RETURN_IF_ERROR(CheckHandle(c, 0));
  AF_RETURN_IF_ERROR(CheckScalar(c, 1));
  AF_RETURN_IF_ERROR(CheckScalar(c, 3));
  return shape_fn::ScalarShape(c);
}

Status ReadShape(InferenceContext* c) {
  AF_RETURN_IF_ERROR(CheckHandle(c, 0));
  AF_RETURN_IF_ERROR(CheckScalar(c, 1));
  AF_RETURN_IF_ERROR(CheckScalar(c, 2));
  return shape_fn::UnknownShape(c);
}

// [number of indices] + element_shape.
Status GatherShape(InferenceContext* c) {
  AF_RETURN_IF_ERROR(CheckHandle(c, 0));
  PartialTensorShape indices;
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &indices));
  AF_RETURN_IF_ERROR(CheckScalar(c, 2));
  PartialTensorShape element_shape;
  AF_RETURN_IF_ERROR(c->GetAttr("element_shape", &element_shape));
  if (element_shape.unknown_rank()) return shape_fn::UnknownShape(c);
  PartialTensorShape out({indices.dims() == 1 ? indices.dim_size(0) : -1});
  for (int d = 0; d < element_shape.dims(); ++d) out.AddDim(element_shape.dim_size(d));
  c->set_output(0, out);
  return Status::OK();
}

Status ScatterShape(InferenceContext* c) {
  AF_RETURN_IF_ERROR(CheckHandle(c, 0));
  PartialTensorShape indices, value;
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &indices));
  AF_RETURN_IF_ERROR(c->WithRankAtLeast(2, 1, &value));
  AF_RETURN_IF_ERROR(CheckScalar(c, 3));
  if (indices.dims() == 1 && value.dims() >= 1 && indices.dim_size(0) >= 0 &&
      value.dim_size(0) >= 0 && indices.dim_size(0) != value.dim_size(0))
    return c->InvalidArgument("indices has ", indices.dim_size(0), " elements but value has ",
                              value.dim_size(0), " rows");
  return shape_fn::ScalarShape(c);
}

// value: [?] + element_shape_except0; lengths: [?].
Status ConcatShape(InferenceContext* c) {
  AF_RETURN_IF_ERROR(CheckHandle(c, 0));
  AF_RETURN_IF_ERROR(CheckScalar(c, 1));
  PartialTensorShape except0;
  AF_RETURN_IF_ERROR(c->GetAttr("element_shape_except0", &except0));
  if (except0.unknown_rank()) {
    c->set_output(0, PartialTensorShape());
  } else {
    PartialTensorShape out({-1});
    for (int d = 0; d < except0.dims(); ++d) out.AddDim(except0.dim_size(d));
    c->set_output(0, out);
  }
  c->set_output(1, PartialTensorShape({-1}));
  return Status::OK();
}

Status SplitShape(InferenceContext* c) {
  AF_RETURN_IF_ERROR(CheckHandle(c, 0));
  PartialTensorShape value, lengths;
  AF_RETURN_IF_ERROR(c->WithRankAtLeast(1, 1, &value));
  AF_RETURN_IF_ERROR(c->WithRank(2, 1, &lengths));
  AF_RETURN_IF_ERROR(CheckScalar(c, 3));
  return shape_fn::ScalarShape(c);
}

Status SizeShape(InferenceContext* c) {
  AF_RETURN_IF_ERROR(CheckHandle(c, 0));
  AF_RETURN_IF_ERROR(CheckScalar(c, 1));
  return shape_fn::ScalarShape(c);
}

Status CloseShape(InferenceContext* c) {
  AF_RETURN_IF_ERROR(CheckHandle(c, 0));
  return shape_fn::NoOutputs(c);
}

Status GradShape(InferenceContext* c) {
  AF_RETURN_IF_ERROR(CheckHandle(c, 0));
  AF_RETURN_IF_ERROR(CheckScalar(c, 1));
  c->set_output(0, PartialTensorShape({}));
  c->set_output(1, PartialTensorShape({}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("TensorArrayV3")
    .Input("size: int32")
    .Output("handle: resource")
    .Output("flow: float")
    .Attr("dtype: type")
    .Attr("element_shape: shape = { unknown_rank: true }")
    .Attr("dynamic_size: bool = false")
    .Attr("clear_after_read: bool = true")
    .Attr("identical_element_shapes: bool = false")
    .Attr("tensor_array_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(TensorArrayShape)
    .Doc("An array of `size` tensors for this step.");

REGISTER_OP("TensorArrayGradV3")
    .Input("handle: resource")
    .Input("flow_in: float")
    .Output("grad_handle: resource")
    .Output("flow_out: float")
    .Attr("source: string")
    .SetIsStateful()
    .SetShapeFn(GradShape)
    .Doc("The gradient array of a tensor array for `source`, made on first use.");

REGISTER_OP("TensorArrayWriteV3")
    .Input("handle: resource")
    .Input("index: int32")
    .Input("value: T")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(WriteShape)
    .Doc("Writes element `index`.");

REGISTER_OP("TensorArrayReadV3")
    .Input("handle: resource")
    .Input("index: int32")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(ReadShape)
    .Doc("Reads element `index`.");

REGISTER_OP("TensorArrayGatherV3")
    .Input("handle: resource")
    .Input("indices: int32")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Attr("dtype: type")
    .Attr("element_shape: shape = { unknown_rank: true }")
    .SetIsStateful()
    .SetShapeFn(GatherShape)
    .Doc("The elements at `indices` stacked along a new axis 0.");

REGISTER_OP("TensorArrayScatterV3")
    .Input("handle: resource")
    .Input("indices: int32")
    .Input("value: T")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(ScatterShape)
    .Doc("Writes row i of `value` to element indices[i].");

REGISTER_OP("TensorArrayConcatV3")
    .Input("handle: resource")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Output("lengths: int64")
    .Attr("dtype: type")
    .Attr("element_shape_except0: shape = { unknown_rank: true }")
    .SetIsStateful()
    .SetShapeFn(ConcatShape)
    .Doc("Every element concatenated along axis 0, and each element's dim 0.");

REGISTER_OP("TensorArraySplitV3")
    .Input("handle: resource")
    .Input("value: T")
    .Input("lengths: int64")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(SplitShape)
    .Doc("Writes consecutive row blocks of `value`, `lengths` rows each, to the elements.");

REGISTER_OP("TensorArraySizeV3")
    .Input("handle: resource")
    .Input("flow_in: float")
    .Output("size: int32")
    .SetIsStateful()
    .SetShapeFn(SizeShape)
    .Doc("The number of elements.");

REGISTER_OP("TensorArrayCloseV3")
    .Input("handle: resource")
    .SetIsStateful()
    .SetShapeFn(CloseShape)
    .Doc("Closes the array, dropping its elements.");

}  // namespace af
