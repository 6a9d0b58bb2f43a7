// Random ops: stateful, seeded by (seed, seed2) as in TensorFlow.
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

Status ShapeFromInput0(InferenceContext* c) {
  PartialTensorShape shape;
  AF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &shape));
  c->set_output(0, std::move(shape));
  return Status::OK();
}

Status RandomUniformIntShape(InferenceContext* c) {
  PartialTensorShape unused;
  AF_RETURN_IF_ERROR(c->WithRankAtMost(1, 1, &unused));
  AF_RETURN_IF_ERROR(c->WithRankAtMost(2, 1, &unused));
  return ShapeFromInput0(c);
}

}  // namespace

REGISTER_OP("RandomUniform")
    .Input("shape: T")
    .SetIsStateful()
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half, bfloat16, float, double}")
    .Attr("T: {int32, int64}")
    .SetShapeFn(ShapeFromInput0)
    .Doc("Uniform values in [0, 1).");

REGISTER_OP("RandomStandardNormal")
    .Input("shape: T")
    .SetIsStateful()
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half, bfloat16, float, double}")
    .Attr("T: {int32, int64}")
    .SetShapeFn(ShapeFromInput0)
    .Doc("Normal values with mean 0 and standard deviation 1.");

REGISTER_OP("TruncatedNormal")
    .Input("shape: T")
    .SetIsStateful()
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half, bfloat16, float, double}")
    .Attr("T: {int32, int64}")
    .SetShapeFn(ShapeFromInput0)
    .Doc("Standard normal values, redrawn when more than 2 standard deviations from 0.");

REGISTER_OP("RandomUniformInt")
    .Input("shape: T")
    .Input("minval: Tout")
    .Input("maxval: Tout")
    .SetIsStateful()
    .Output("output: Tout")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("Tout: {int32, int64}")
    .Attr("T: {int32, int64}")
    .SetShapeFn(RandomUniformIntShape)
    .Doc("Uniform integers in [minval, maxval).");

REGISTER_OP("RandomShuffle")
    .Input("value: T")
    .SetIsStateful()
    .Output("output: T")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("T: type")
    .SetShapeFn(shape_fn::UnchangedShape)
    .Doc("The value with its first dimension randomly permuted.");

}  // namespace af
