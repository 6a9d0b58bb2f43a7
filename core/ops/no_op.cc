#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {

REGISTER_OP("NoOp").SetShapeFn(shape_fn::NoOutputs).Doc("Does nothing; a control-edge anchor.");

}  // namespace af
