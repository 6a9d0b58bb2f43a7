// Instantiating a FunctionDef with a call's attrs: the types of its
// arguments and results, and body NodeDefs with attr placeholders ("$T")
// replaced by the call's values.
#pragma once

#include <string>

#include "core/status.h"
#include "core/types.h"
#include "proto/function.pb.h"
#include "proto/node_def.pb.h"

namespace af {

using AttrMap = google::protobuf::Map<std::string, tensorflow::AttrValue>;

struct FunctionSignatureTypes {
  DataTypeVector args;     // one per flat argument
  DataTypeVector results;  // one per flat result
  // The NodeDef the call amounts to (op = function name, the call's attrs
  // plus the signature's defaults), for resolving list lengths by arg name.
  tensorflow::NodeDef instance;
};

// INVALID_ARGUMENT naming the function when an attr the signature needs is
// missing or of the wrong kind.
Status InstantiateSignature(const tensorflow::FunctionDef& function, const AttrMap& call_attrs,
                            FunctionSignatureTypes* out);

// Replaces every placeholder attr of `node` (a body node) by the call's
// value; INVALID_ARGUMENT naming the function and node when the call lacks it.
Status SubstitutePlaceholders(const tensorflow::FunctionDef& function, const AttrMap& call_attrs,
                              tensorflow::NodeDef* node);

}  // namespace af
