// String ops that TensorFlow 2 SavedModels use in their save functions
// (the checkpoint's temporary file name is StringJoin'ed, the choice of a
// sharded prefix made by StaticRegexFullMatch on "s3://" style paths).
// TensorFlow's names, inputs, attrs and defaults.
#include <utility>

#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

// Scalars broadcast; every non-scalar input must have the same shape.
Status StringJoinShape(InferenceContext* c) {
  PartialTensorShape out = PartialTensorShape::UnknownOfRank(0);
  bool have_non_scalar = false;
  for (int i = 0; i < c->num_inputs(); ++i) {
    const PartialTensorShape& s = c->input(i);
    if (s.unknown_rank()) return shape_fn::UnknownShape(c);
    if (s.dims() == 0) continue;
    if (!have_non_scalar) {
      out = s;
      have_non_scalar = true;
      continue;
    }
    PartialTensorShape merged;
    AF_RETURN_IF_ERROR(c->Merge(out, s, &merged));
    out = std::move(merged);
  }
  c->set_output(0, std::move(out));
  return Status::OK();
}

}  // namespace

REGISTER_OP("StringJoin")
    .Input("inputs: N * string")
    .Output("output: string")
    .Attr("N: int >= 0")
    .Attr("separator: string = ''")
    .SetShapeFn(StringJoinShape)
    .Doc("Joins the strings of its inputs element by element with separator; scalar inputs "
         "broadcast to the others' shape.");

REGISTER_OP("StaticRegexFullMatch")
    .Input("input: string")
    .Output("output: bool")
    .Attr("pattern: string")
    .SetShapeFn(shape_fn::UnchangedShape)
    .Doc("Whether each string matches pattern as a whole. TensorFlow uses RE2 syntax; here "
         "the pattern is an ECMAScript std::regex, which agrees on the common subset.");

}  // namespace af
