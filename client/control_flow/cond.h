// Cond: tf.cond for the C++ API, built as TensorFlow 1 builds it
// (whitepaper §4.4): a Switch of the predicate on itself gives the pivots
// cond/switch_t and cond/switch_f; every tensor a branch reads from outside
// passes through a Switch on cond/pred_id, the branch taking its true or
// false output; each result is a Merge of the false and true values
// (cond/Merge). Only the taken branch runs: the other one's tensors are
// dead and the Merge forwards the live value.
//
//   std::vector<Output> out;
//   AF_RETURN_IF_ERROR(Cond(root, ops::Less(root, x, y),
//       [&](const Scope& s, std::vector<Output>* r) { *r = {ops::Mul(s, x, 2.f)}; return s.status(); },
//       [&](const Scope& s, std::vector<Output>* r) { *r = {ops::Add(s, y, 1.f)}; return s.status(); },
//       &out));
//
// Both branches must return as many tensors, of the same dtypes. The
// common case of one tensor each, as tf.cond(p, lambda: a, lambda: b):
//
//   Output z;
//   AF_RETURN_IF_ERROR(Cond(root, pred, [&](const Scope& s) { return ops::Mul(s, x, 2.f); },
//                           [&](const Scope& s) { return ops::Add(s, y, 1.f); }, &z));
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "client/ops.h"
#include "client/scope.h"
#include "core/status.h"

namespace af {

using CondBranchFn = std::function<Status(const Scope& scope, std::vector<Output>* outputs)>;

Status Cond(const Scope& scope, const Output& pred, const CondBranchFn& true_fn,
            const CondBranchFn& false_fn, std::vector<Output>* outputs,
            const std::string& name = "cond");

using CondValueFn = std::function<Output(const Scope& scope)>;

Status Cond(const Scope& scope, const Output& pred, const CondValueFn& true_fn,
            const CondValueFn& false_fn, Output* output, const std::string& name = "cond");

}  // namespace af
