// The inputs of `actorflow saved_model run`, given as saved_model_cli takes
// them: --inputs 'key=file.npy;...', --input_exprs 'key=[[1],[2]];...' (a
// Python literal: nested lists or tuples of numbers, strings or booleans)
// and --input_examples 'key=[{"x":[3.0]}];...' (a list of dicts, each
// serialized as a tf.Example: float values become a float_list, integers
// an int64_list, strings a bytes_list, by the first value as
// saved_model_cli decides). Expressions take the dtype of the signature's
// input, as a feed_dict converts a numpy array to the placeholder's dtype.
#pragma once

#include <map>
#include <string>

#include "core/status.h"
#include "core/tensor.h"
#include "proto/meta_graph.pb.h"

namespace af::tools {

// Adds to `inputs` what the three flags give (each may be empty).
// INVALID_ARGUMENT naming the flag and the key for malformed text, a key
// given twice, a file that does not read, or a value that does not fit the
// input's dtype.
Status ParseSignatureInputs(const tensorflow::SignatureDef& signature,
                            const std::string& inputs_flag, const std::string& exprs_flag,
                            const std::string& examples_flag,
                            std::map<std::string, Tensor>* inputs);

}  // namespace af::tools
