// Helpers for the hooks that follow the graph's global step.
#pragma once

#include <cstdint>

#include "client/client_session.h"
#include "client/ops.h"
#include "client/scope.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af {

// The graph's global step variable (variables.h's GetOrCreateGlobalStep
// made it); FAILED_PRECONDITION naming `who` if the graph has none, as
// TensorFlow's hooks that need one fail.
Status FindGlobalStep(const Scope& scope, const char* who, Output* global_step);

// Reads the global step's value in `session`.
Status ReadGlobalStep(ClientSession& session, const Output& global_step, int64_t* value);

// The value of a fetched global step (int32 or int64 scalar).
int64_t GlobalStepValue(const Tensor& t);

}  // namespace af
