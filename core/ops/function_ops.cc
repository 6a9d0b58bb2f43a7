// Arguments and return values of a function body or a feed/fetch-rewritten
// graph: they read from and write to the call frame, hence stateful.
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {

REGISTER_OP("_Arg")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .SetShapeFn(shape_fn::UnknownShape);

REGISTER_OP("_Retval")
    .Input("input: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .SetShapeFn(shape_fn::NoOutputs);

}  // namespace af
