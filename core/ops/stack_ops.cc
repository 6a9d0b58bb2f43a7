// Stack ops (TensorFlow's StackV2 family), the store of forward values
// that while-loop gradients pop in reverse order. A stack lives for one
// step; its handle is a scalar resource.
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

Status StackShape(InferenceContext* c) {
  PartialTensorShape max_size;
  AF_RETURN_IF_ERROR(c->WithRank(0, 0, &max_size));
  return shape_fn::ScalarShape(c);
}

Status StackHandleInput(InferenceContext* c) {
  PartialTensorShape handle;
  return c->WithRankAtMost(0, 1, &handle);
}

Status StackPushShape(InferenceContext* c) {
  AF_RETURN_IF_ERROR(StackHandleInput(c));
  c->set_output(0, c->input(1));
  return Status::OK();
}

Status StackPopShape(InferenceContext* c) {
  AF_RETURN_IF_ERROR(StackHandleInput(c));
  return shape_fn::UnknownShape(c);
}

Status StackCloseShape(InferenceContext* c) {
  AF_RETURN_IF_ERROR(StackHandleInput(c));
  return shape_fn::NoOutputs(c);
}

}  // namespace

REGISTER_OP("StackV2")
    .Input("max_size: int32")
    .Output("handle: resource")
    .Attr("elem_type: type")
    .Attr("stack_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(StackShape)
    .Doc("A stack for this step; max_size < 0 means unbounded.");

REGISTER_OP("StackPushV2")
    .Input("handle: resource")
    .Input("elem: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("swap_memory: bool = false")
    .SetIsStateful()
    .SetShapeFn(StackPushShape)
    .Doc("Pushes elem onto the stack and outputs it unchanged.");

REGISTER_OP("StackPopV2")
    .Input("handle: resource")
    .Output("elem: elem_type")
    .Attr("elem_type: type")
    .SetIsStateful()
    .SetShapeFn(StackPopShape)
    .Doc("Pops the element last pushed.");

REGISTER_OP("StackCloseV2")
    .Input("handle: resource")
    .SetIsStateful()
    .SetShapeFn(StackCloseShape)
    .Doc("Closes the stack, dropping its elements.");

}  // namespace af
