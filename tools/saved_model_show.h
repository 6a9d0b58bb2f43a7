// What `actorflow saved_model show` prints, in saved_model_cli's words and
// layout, so that scripts and people used to one read the other: the tag
// sets, a MetaGraphDef's signature keys, one signature's inputs and outputs
// (dtype, shape, tensor name) and method name, or all of them, plus a TF 2
// model's concrete functions from its object graph.
#pragma once

#include <ostream>
#include <string>

#include "core/status.h"
#include "proto/saved_model.pb.h"

namespace af::tools {

// "The given SavedModel contains the following tag-sets:" and one line per
// tag set ('serve'; several tags sorted and joined by ", ").
void ShowTagSets(const tensorflow::SavedModel& saved_model, std::ostream& out);

// The signature keys of the MetaGraphDef tagged `tag_set` ("serve" or
// "serve,gpu"). NOT_FOUND for a tag set the model lacks.
Status ShowSignatureKeys(const tensorflow::SavedModel& saved_model, const std::string& tag_set,
                         std::ostream& out);

// One signature's inputs, outputs and method name. NOT_FOUND for an
// unknown tag set or key.
Status ShowSignature(const tensorflow::SavedModel& saved_model, const std::string& tag_set,
                     const std::string& signature_key, std::ostream& out);

// Every tag set's every signature, then the concrete functions.
void ShowAll(const tensorflow::SavedModel& saved_model, std::ostream& out);

// The MetaGraphDef of a comma-separated tag set; NOT_FOUND as
// saved_model_cli words it.
Status FindByTagSetFlag(const tensorflow::SavedModel& saved_model, const std::string& tag_set,
                        const tensorflow::MetaGraphDef** out);

}  // namespace af::tools
