// WhileLoop: a tf.while_loop for the C++ API, built as TensorFlow 1 builds
// it (whitepaper §4.4): per loop variable an Enter, a Merge of the Enter
// and a NextIteration, a Switch on the LoopCond, an Identity the body
// reads and an Exit the caller gets — named as TensorFlow names them
// ("while/Enter", "while/Merge_1", "while/LoopCond", ...) in the frame
// "<name scope>/while_context".
//
// `cond` gets the loop variables and returns a bool scalar; `body` gets
// them and returns their next values (same count and dtypes). Both may read
// any tensor built outside the loop: it enters through a constant Enter,
// made once per tensor. Ops that read nothing (constants) run once per
// iteration. Loops nest: call WhileLoop (or Cond) from a body.
//
//   std::vector<Output> out;
//   AF_RETURN_IF_ERROR(WhileLoop(root, {i0, x0},
//       [](const Scope& s, const std::vector<Output>& v, Output* c) {
//         *c = ops::Less(s, v[0], 10);
//         return s.status();
//       },
//       [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
//         *next = {ops::Add(s, v[0], 1), ops::Mul(s, v[1], w)};  // w from outside
//         return s.status();
//       },
//       &out));
//
// Errors are INVALID_ARGUMENT naming the loop: a body returning the wrong
// number or types of values, a value whose shape leaves its shape
// invariant, a non-bool condition; and (from the frame tracker) a tensor of
// the loop read outside it other than through `outputs`.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "client/ops.h"
#include "client/scope.h"
#include "core/status.h"
#include "core/tensor_shape.h"

namespace af {

using WhileCondFn =
    std::function<Status(const Scope& scope, const std::vector<Output>& inputs, Output* output)>;
using WhileBodyFn = std::function<Status(const Scope& scope, const std::vector<Output>& inputs,
                                         std::vector<Output>* outputs)>;

struct WhileLoopOptions {
  // Iterations that may run at once (TensorFlow's default).
  int parallel_iterations = 10;
  // Stop after this many iterations even if `cond` still holds (an int32
  // scalar; TensorFlow adds an iteration counter and ANDs it into the
  // condition). Unset: no limit.
  std::optional<Input> maximum_iterations;
  // One per loop variable: the shapes a variable may take across
  // iterations. Empty: each variable keeps the shape it enters with.
  std::vector<PartialTensorShape> shape_invariants;
  // The name scope of the loop's nodes (made unique: while, while_1, ...).
  std::string name = "while";
};

Status WhileLoop(const Scope& scope, const std::vector<Output>& loop_vars,
                 const WhileCondFn& cond, const WhileBodyFn& body, std::vector<Output>* outputs,
                 const WhileLoopOptions& options = WhileLoopOptions());

}  // namespace af
