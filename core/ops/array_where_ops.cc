// Where: the coordinates of the true (non-zero) elements of a tensor, as
// TensorFlow's op of that name. BooleanMask is built from it (Where, then
// a Gather of the rows it names), and so is the training loop's report of
// uninitialized variables (client/training/report_uninitialized_variables.h).
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

// [number of true elements (known only when the step runs), rank of input].
Status WhereShape(InferenceContext* c) {
  const PartialTensorShape& input = c->input(0);
  if (input.unknown_rank()) {
    c->set_output(0, PartialTensorShape({-1, -1}));
  } else {
    c->set_output(0, PartialTensorShape({-1, static_cast<int64_t>(input.dims())}));
  }
  return Status::OK();
}

}  // namespace

REGISTER_OP("Where")
    .Input("input: T")
    .Output("index: int64")
    .Attr("T: {numbertype, bool} = DT_BOOL")
    .SetShapeFn(WhereShape)
    .Doc("Row i holds the coordinates of the i-th true (non-zero) element of input, in "
         "row-major order.");

}  // namespace af
