// Gradients of the TensorArray ops (and the statement that stack ops have
// none). The gradient of an array lives in its gradient array, made by
// TensorArrayGradV3 with the fixed source kGradSource: every gradient
// function of one step meets the same gradient array, whose writes to one
// index sum. (TensorFlow names the source after each gradients() call's
// name scope; one fixed source means two AddSymbolicGradients over the same
// array in one step would sum into one gradient array, so they must run in
// different steps.)
//
// Each forward op's gradient is its mirror on the gradient array: Read <->
// Write, Gather <-> Scatter, Concat <-> Split. Gradients reach an op only
// through its float flow; the gradient returned for flow_in is the flow of
// the gradient-array op, so the backward ops run after the ones they need.
#include "client/gradients/grad_helpers.h"
#include "client/gradients/grad_link.h"

namespace af {
namespace grad_link {
void TensorArrayGrad() {}
}  // namespace grad_link

namespace grad {
namespace {

using Grads = std::vector<Output>;

constexpr const char* kGradSource = "gradients";

// The flow a write-like op's gradient starts from, held back until the
// forward op itself has run: the gradient array copies the forward array's
// size and element shape when made, and reads of it must not overtake the
// forward writes.
Output WriteBarrier(const Scope& s, const Operation& op, const Output& flow_grad) {
  auto forward_done = ops::Identity(s.WithOpName("flow_out"), op.output(0));
  return ops::Identity(s.WithControlDependencies(forward_done).WithOpName("write_barrier"),
                       flow_grad);
}

// Read(handle, index, flow_in) -> value.
Status ReadGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  auto ga = ops::TensorArrayGradV3(s, op.input(0), op.input(2), kGradSource);
  auto w = ops::TensorArrayWriteV3(s, ga.grad_handle, op.input(1), g[0], ga.flow_out);
  out->push_back(NoGradient());
  out->push_back(NoGradient());
  out->push_back(w.flow_out);
  return s.status();
}

// Write(handle, index, value, flow_in) -> flow_out.
Status WriteGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  DataType dtype = DT_INVALID;
  AF_RETURN_IF_ERROR(GetAttr(op, "T", &dtype));
  const Output flow = WriteBarrier(s, op, g[0]);
  auto ga = ops::TensorArrayGradV3(s, op.input(0), flow, kGradSource);
  auto r = ops::TensorArrayReadV3(s, ga.grad_handle, op.input(1), ga.flow_out, dtype);
  out->push_back(NoGradient());
  out->push_back(NoGradient());
  out->push_back(r.value);
  out->push_back(flow);
  return s.status();
}

// Gather(handle, indices, flow_in) -> value.
Status GatherGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  auto ga = ops::TensorArrayGradV3(s, op.input(0), op.input(2), kGradSource);
  auto u = ops::TensorArrayScatterV3(s, ga.grad_handle, op.input(1), g[0], ga.flow_out);
  out->push_back(NoGradient());
  out->push_back(NoGradient());
  out->push_back(u.flow_out);
  return s.status();
}

// Scatter(handle, indices, value, flow_in) -> flow_out.
Status ScatterGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  DataType dtype = DT_INVALID;
  AF_RETURN_IF_ERROR(GetAttr(op, "T", &dtype));
  const Output flow = WriteBarrier(s, op, g[0]);
  auto ga = ops::TensorArrayGradV3(s, op.input(0), flow, kGradSource);
  // The forward value's element shape (rows of value) lets unwritten
  // gradient elements read as zeros even when the array's is unknown.
  ops::TensorArrayGatherV3::Attrs attrs;
  const PartialTensorShape value_shape = op.input(2).shape();
  if (!value_shape.unknown_rank() && value_shape.dims() >= 1) {
    PartialTensorShape element = PartialTensorShape::UnknownOfRank(0);
    for (int d = 1; d < value_shape.dims(); ++d) element.AddDim(value_shape.dim_size(d));
    attrs = attrs.ElementShape(element);
  }
  auto v = ops::TensorArrayGatherV3(s, ga.grad_handle, op.input(1), ga.flow_out, dtype, attrs);
  out->push_back(NoGradient());
  out->push_back(NoGradient());
  out->push_back(v.value);
  out->push_back(flow);
  return s.status();
}

// Concat(handle, flow_in) -> (value, lengths).
Status ConcatGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  auto ga = ops::TensorArrayGradV3(s, op.input(0), op.input(1), kGradSource);
  auto u = ops::TensorArraySplitV3(s, ga.grad_handle, g[0], op.output(1), ga.flow_out);
  out->push_back(NoGradient());
  out->push_back(u.flow_out);
  return s.status();
}

// Split(handle, value, lengths, flow_in) -> flow_out.
Status SplitGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  DataType dtype = DT_INVALID;
  AF_RETURN_IF_ERROR(GetAttr(op, "T", &dtype));
  const Output flow = WriteBarrier(s, op, g[0]);
  auto ga = ops::TensorArrayGradV3(s, op.input(0), flow, kGradSource);
  auto c = ops::TensorArrayConcatV3(s, ga.grad_handle, ga.flow_out, dtype);
  out->push_back(NoGradient());
  out->push_back(c.value);
  out->push_back(NoGradient());
  out->push_back(flow);
  return s.status();
}

REGISTER_GRADIENT_OP("TensorArrayReadV3", ReadGrad);
REGISTER_GRADIENT_OP("TensorArrayWriteV3", WriteGrad);
REGISTER_GRADIENT_OP("TensorArrayGatherV3", GatherGrad);
REGISTER_GRADIENT_OP("TensorArrayScatterV3", ScatterGrad);
REGISTER_GRADIENT_OP("TensorArrayConcatV3", ConcatGrad);
REGISTER_GRADIENT_OP("TensorArraySplitV3", SplitGrad);

REGISTER_NO_GRADIENT_OP("TensorArrayV3");
REGISTER_NO_GRADIENT_OP("TensorArrayGradV3");
REGISTER_NO_GRADIENT_OP("TensorArraySizeV3");
REGISTER_NO_GRADIENT_OP("TensorArrayCloseV3");

REGISTER_NO_GRADIENT_OP("StackV2");
REGISTER_NO_GRADIENT_OP("StackPushV2");
REGISTER_NO_GRADIENT_OP("StackPopV2");
REGISTER_NO_GRADIENT_OP("StackCloseV2");

}  // namespace
}  // namespace grad
}  // namespace af
