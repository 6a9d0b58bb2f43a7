// Running a SignatureDef of a loaded SavedModel by its keys: the input keys
// map to the tensors fed, the output keys to the tensors fetched, as
// TensorFlow Serving and saved_model_cli run signatures.
//
//   std::map<std::string, af::Tensor> out;
//   AF_RETURN_IF_ERROR(af::RunSignature(bundle, "serving_default", {{"x", x}}, {}, &out));
//   const af::Tensor& y = out.at("y");
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "client/saved_model/loader.h"
#include "core/status.h"
#include "core/tensor.h"
#include "proto/meta_graph.pb.h"

namespace af {

// What one Run of a signature feeds and fetches.
struct SignatureCall {
  std::vector<std::pair<std::string, Tensor>> feeds;  // tensor name, value
  std::vector<std::string> fetches;                   // tensor names
  std::vector<std::string> output_keys;               // the key of each fetch
};

// Resolves `inputs` (by input key) and `output_keys` (empty: every output,
// sorted by key) against `signature`. An input left out takes the
// signature's default when it has one. INVALID_ARGUMENT, naming the
// signature and the key, for an unknown key, a missing input, a dtype or a
// shape that does not match the TensorInfo; UNIMPLEMENTED for sparse or
// composite TensorInfos.
Status PrepareSignatureCall(const std::string& signature_key,
                            const tensorflow::SignatureDef& signature,
                            const std::map<std::string, Tensor>& inputs,
                            const std::vector<std::string>& output_keys, SignatureCall* call);

// Runs signature `signature_key` of `bundle` (NOT_FOUND listing the keys
// there are). `outputs` gets one tensor per output key.
Status RunSignature(const SavedModelBundle& bundle, const std::string& signature_key,
                    const std::map<std::string, Tensor>& inputs,
                    const std::vector<std::string>& output_keys,
                    std::map<std::string, Tensor>* outputs,
                    const RunOptions& run_options = RunOptions());

// The SignatureDef `key` of a MetaGraphDef; NOT_FOUND listing the keys.
Status FindSignatureDef(const tensorflow::MetaGraphDef& meta_graph, const std::string& key,
                        const tensorflow::SignatureDef** out);

}  // namespace af
