// Calls of FunctionDefs from a graph's library (TensorFlow 2 graphs keep
// their logic in functions). Calls never reach a kernel: every step plan
// inlines them into the step's graph (graph/function_inlining.h), so the
// body is placed and partitioned like any other nodes.
#include "core/node_def_util.h"
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

// The function's declared output shapes, where the caller carries them
// (TensorFlow writes `_output_shapes` on calls it exports); unknown
// otherwise. Inlining gives the body's own shapes later.
Status CallShape(InferenceContext* c) {
  std::vector<PartialTensorShape> shapes;
  if (GetNodeAttr(c->node_def(), "_output_shapes", &shapes).ok() &&
      static_cast<int>(shapes.size()) == c->num_outputs()) {
    for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, shapes[i]);
    return Status::OK();
  }
  return shape_fn::UnknownShape(c);
}

}  // namespace

#define AF_CALL_OP(name)                  \
  REGISTER_OP(name)                       \
      .Input("args: Tin")                 \
      .Output("output: Tout")             \
      .Attr("Tin: list(type) >= 0")       \
      .Attr("Tout: list(type) >= 0")      \
      .Attr("f: func")                    \
      .Attr("config: string = ''")        \
      .Attr("config_proto: string = ''")  \
      .Attr("executor_type: string = ''") \
      .SetShapeFn(CallShape)

AF_CALL_OP("PartitionedCall")
    .Doc("Calls the function `f` on `args`; its body runs partitioned across devices.");
AF_CALL_OP("StatefulPartitionedCall")
    .SetIsStateful()
    .Doc("PartitionedCall of a function with side effects: never pruned, merged or folded.");

REGISTER_OP("SymbolicGradient")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 1")
    .Attr("Tout: list(type) >= 1")
    .Attr("f: func")
    .SetShapeFn(shape_fn::UnknownShape)
    .Doc("The gradient of the function `f`: inputs are f's inputs then the gradients of "
         "f's outputs; outputs the gradients of f's inputs.");

// Functional control flow (TensorFlow 2's cond and while_loop): lowered to
// Switch/Merge and Enter/Exit/NextIteration around calls of the branch,
// cond and body functions when a step is planned
// (graph/functional_control_flow.h).
#define AF_IF_OP(name)               \
  REGISTER_OP(name)                  \
      .Input("cond: Tcond")          \
      .Input("input: Tin")           \
      .Output("output: Tout")        \
      .Attr("Tcond: type")           \
      .Attr("Tin: list(type) >= 0")  \
      .Attr("Tout: list(type) >= 0") \
      .Attr("then_branch: func")     \
      .Attr("else_branch: func")     \
      .Attr("output_shapes: list(shape) = []")

AF_IF_OP("If")
    .SetIsStateful()
    .SetShapeFn(shape_fn::UnknownShape)
    .Doc("then_branch(input) if cond else else_branch(input).");
AF_IF_OP("StatelessIf")
    .SetShapeFn(shape_fn::UnknownShape)
    .Doc("If whose branches have no side effects.");

// A condition of another type than bool, made bool as If reads it: a
// scalar is true when nonzero (numbers) or non-empty (strings); any other
// tensor is true when it has elements.
REGISTER_OP("ToBool")
    .Input("input: T")
    .Output("output: bool")
    .Attr("T: type")
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("The truth value of a condition, as If reads one.");

#define AF_CASE_OP(name)                    \
  REGISTER_OP(name)                         \
      .Input("branch_index: int32")         \
      .Input("input: Tin")                  \
      .Output("output: Tout")               \
      .Attr("Tin: list(type) >= 0")         \
      .Attr("Tout: list(type) >= 0")        \
      .Attr("branches: list(func) >= 1")    \
      .Attr("output_shapes: list(shape) = []")

AF_CASE_OP("Case")
    .SetIsStateful()
    .SetShapeFn(shape_fn::UnknownShape)
    .Doc("branches[branch_index](input); an index out of range runs the last branch.");
AF_CASE_OP("StatelessCase")
    .SetShapeFn(shape_fn::UnknownShape)
    .Doc("Case whose branches have no side effects.");

#define AF_WHILE_OP(name)                      \
  REGISTER_OP(name)                            \
      .Input("input: T")                       \
      .Output("output: T")                     \
      .Attr("T: list(type) >= 0")              \
      .Attr("cond: func")                      \
      .Attr("body: func")                      \
      .Attr("output_shapes: list(shape) = []") \
      .Attr("parallel_iterations: int = 10")

AF_WHILE_OP("While")
    .SetIsStateful()
    .SetShapeFn(shape_fn::UnknownShape)
    .Doc("Applies body to the loop variables while cond holds for them.");
AF_WHILE_OP("StatelessWhile")
    .SetShapeFn(shape_fn::UnknownShape)
    .Doc("While whose cond and body have no side effects.");

}  // namespace af
