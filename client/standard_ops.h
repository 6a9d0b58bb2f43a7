// Every op wrapper: the ones generated from the op registry at build time
// (client/gen/op_wrapper_gen.cc) and the hand-written Const/Placeholder.
#pragma once

#include "client/const_op.h"
#include "client/ops.h"
#include "client/ops/generated_ops.h"
#include "client/scope.h"
