// Automatic differentiation (whitepaper §4.1): AddSymbolicGradients adds
// to the graph the nodes that compute d(sum of ys · grad_ys)/d(xs). It
// finds the nodes on a path from the xs to the ys, visits them from the ys
// back in reverse topological order, calls each op's registered gradient
// function and sums (AddN) the partial gradients reaching each output.
//
// Gradients flow only along floating-point and complex edges; integer and
// bool edges (shapes, indices, masks) carry none. StopGradient ends a
// path; PreventGradient on a path is an error; an op on a path without a
// gradient function is NOT_FOUND naming the op. An x no y depends on gets
// zeros.
//
// An x may be a resource variable's handle (a VarHandleOp's output): the
// gradients of its ReadVariableOps and ResourceGathers flow to it, as
// TensorFlow differentiates with respect to a resource variable (a gather
// alone gives IndexedSlices). A handle no y depends on gets zeros shaped
// like the variable's value.
//
// Control flow: a Cond's Merge sends its gradient back through a Switch on
// the predicate (only the branch that ran gets it); a while loop is
// differentiated as a whole by a backward loop that runs its iterations in
// reverse, reading the forward values it needs from per-step stacks the
// forward loop fills (client/control_flow/while_gradient.cc). ys and xs
// must lie outside loops (UNIMPLEMENTED otherwise). Conds inside loops are
// differentiable too.
//
//   std::vector<Output> grads;
//   AF_RETURN_IF_ERROR(AddSymbolicGradients(root, {loss}, {w, b}, &grads));
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "client/indexed_slices.h"
#include "client/ops.h"
#include "client/scope.h"
#include "core/status.h"

namespace af {

// A gradient function gets the gradients of the op's outputs (`grad_inputs`,
// one per output; outputs nothing depends on get zeros) and appends one
// gradient per data input of the op to `grad_outputs`: NoGradient() for an
// input that has none (an index, a shape).
using GradFunc = std::function<Status(const Scope& scope, const Operation& op,
                                      const std::vector<Output>& grad_inputs,
                                      std::vector<Output>* grad_outputs)>;

// A gradient function that may answer IndexedSlices for some inputs (a
// gather's params get the gathered rows only). It sees its op's output
// gradients as tensors, like a GradFunc.
using SparseGradFunc = std::function<Status(const Scope& scope, const Operation& op,
                                            const std::vector<Output>& grad_inputs,
                                            std::vector<GradientValue>* grad_outputs)>;

// "No gradient flows into this input."
inline Output NoGradient() { return Output(); }

class GradOpRegistry {
 public:
  static GradOpRegistry* Global();
  // Returns true so it can initialize a static; a second registration of
  // the same op replaces the first.
  bool Register(const std::string& op, GradFunc func);
  // NOT_FOUND if `op` has no gradient function.
  Status Lookup(const std::string& op, GradFunc* func) const;
  // A sparse gradient function serves instead of the op's GradFunc.
  bool RegisterSparse(const std::string& op, SparseGradFunc func);
  // False when `op` has none.
  bool LookupSparse(const std::string& op, SparseGradFunc* func) const;
  std::vector<std::string> ListOps() const;

 private:
  mutable std::mutex mu_;  // guards funcs_
  std::map<std::string, GradFunc> funcs_;
  std::map<std::string, SparseGradFunc> sparse_funcs_;
};

// The gradient function of ops whose inputs get no gradient (StopGradient,
// comparisons, shape queries).
Status NoGradientFunc(const Scope& scope, const Operation& op,
                      const std::vector<Output>& grad_inputs,
                      std::vector<Output>* grad_outputs);

// `grad_inputs` are the gradients of the ys (same count, dtype and shape);
// `grad_outputs` receives one gradient per x.
Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& outputs,
                            const std::vector<Output>& inputs,
                            const std::vector<Output>& grad_inputs,
                            std::vector<Output>* grad_outputs);
// With ones as the gradients of the ys: d(sum(ys))/d(xs).
Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& outputs,
                            const std::vector<Output>& inputs,
                            std::vector<Output>* grad_outputs);
// The same, keeping sparse gradients sparse: an x read only by gathers
// (directly or through Identity) gets IndexedSlices, the rows it gave;
// every other x gets a tensor. The overloads above convert (ToDense).
Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& outputs,
                            const std::vector<Output>& inputs,
                            const std::vector<Output>& grad_inputs,
                            std::vector<GradientValue>* grad_outputs);
Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& outputs,
                            const std::vector<Output>& inputs,
                            std::vector<GradientValue>* grad_outputs);

}  // namespace af

#define AF_GRAD_CONCAT_INNER(a, b) a##b
#define AF_GRAD_CONCAT(a, b) AF_GRAD_CONCAT_INNER(a, b)
#define REGISTER_GRADIENT_OP(name, fn)                                           \
  static const bool AF_GRAD_CONCAT(af_grad_registered_, __COUNTER__) [[maybe_unused]] = \
      ::af::GradOpRegistry::Global()->Register(name, fn)
#define REGISTER_SPARSE_GRADIENT_OP(name, fn)                                    \
  static const bool AF_GRAD_CONCAT(af_grad_registered_, __COUNTER__) [[maybe_unused]] = \
      ::af::GradOpRegistry::Global()->RegisterSparse(name, fn)
#define REGISTER_NO_GRADIENT_OP(name) REGISTER_GRADIENT_OP(name, ::af::NoGradientFunc)
