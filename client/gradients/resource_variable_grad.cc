// Gradients of resource-variable reads, with TensorFlow's convention: the
// gradient of what a ReadVariableOp or a ResourceGather returned flows on to
// the variable's handle, so AddSymbolicGradients(scope, {loss}, {handle})
// answers the gradient with respect to the variable (a tensor for a read,
// IndexedSlices, the rows read, for a gather). The indices get none.
#include "client/gradients/grad_helpers.h"
#include "client/gradients/grad_link.h"

namespace af {
namespace grad_link {
void ResourceVariableGrad() {}
}  // namespace grad_link

namespace grad {
namespace {

Status ReadVariableOpGrad(const Scope& s, const Operation& op, const std::vector<Output>& g,
                          std::vector<Output>* out) {
  out->push_back(g[0]);
  return s.status();
}
REGISTER_GRADIENT_OP("ReadVariableOp", ReadVariableOpGrad);

// The rows of g, one per index, into a tensor shaped like the variable
// (its shape read at run time: the handle does not carry it here).
Status ResourceGatherGrad(const Scope& s, const Operation& op, const std::vector<Output>& g,
                          std::vector<GradientValue>* out) {
  int64_t batch_dims = 0;
  AF_RETURN_IF_ERROR(GetAttr(op, "batch_dims", &batch_dims));
  if (batch_dims != 0)
    return errors::Unimplemented("the gradient of ResourceGather with batch_dims ", batch_dims);
  const Output indices = op.input(1);
  auto params_shape = ops::VariableShape(s, op.input(0));
  auto row_shape =
      ops::Slice(s, params_shape, IndexVector(s, DT_INT32, {1}), IndexVector(s, DT_INT32, {-1}));
  IndexedSlices rows;
  rows.values =
      ops::Reshape(s, g[0], ops::ConcatV2(s, {IndexVector(s, DT_INT32, {-1}), row_shape}, 0));
  rows.indices = ops::Reshape(s, indices, IndexVector(s, indices.type(), {-1}));
  rows.dense_shape = params_shape;
  out->push_back(rows);
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_SPARSE_GRADIENT_OP("ResourceGather", ResourceGatherGrad);

}  // namespace
}  // namespace grad
}  // namespace af
