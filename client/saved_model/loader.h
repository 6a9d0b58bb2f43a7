// Loading a SavedModel into a Session, as TensorFlow's C++ LoadSavedModel:
//
//   af::SavedModelBundle bundle;
//   AF_RETURN_IF_ERROR(af::LoadSavedModel(af::SessionOptions{}, af::RunOptions{},
//                                         "/models/half_plus_two/00000123",
//                                         {af::kSavedModelTagServe}, &bundle));
//   const tensorflow::SignatureDef& sig = bundle.GetSignatures().at("serving_default");
//   std::vector<af::Tensor> y;
//   AF_RETURN_IF_ERROR(bundle.session->Run({{sig.inputs().at("x").name(), x}},
//                                          {sig.outputs().at("y").name()}, {}, &y));
//
// (client/saved_model/signature_runner.h runs a signature by its keys.)
//
// Loading reads saved_model.pb, picks the MetaGraphDef whose tags are the
// ones asked for, extends a new session with its graph (function library
// included), restores the variables by running the SaverDef's restore op
// with the filename tensor fed EXPORT_DIR/variables/variables, then runs the
// init op: the "__saved_model_init_op" signature (TF 2), else the
// "saved_model_main_op" collection, else "legacy_init_op" (TF 1). Every
// asset's tensor is fed the asset file's full path in both runs. TF 2
// models restore through the same path: their SaverDef's restore op calls
// the restore function of the graph's library.
#pragma once

#include <memory>
#include <string>
#include <unordered_set>

#include "client/session.h"
#include "core/status.h"
#include "proto/meta_graph.pb.h"

namespace af {

struct SavedModelBundle {
  std::unique_ptr<Session> session;
  tensorflow::MetaGraphDef meta_graph_def;
  std::string export_dir;

  Session* GetSession() const { return session.get(); }
  // The SignatureDefs of the loaded MetaGraphDef, by key.
  const google::protobuf::Map<std::string, tensorflow::SignatureDef>& GetSignatures() const {
    return meta_graph_def.signature_def();
  }
};

// Errors name the export directory and the step that failed: NOT_FOUND for
// a missing directory or saved_model.pb and for tags no MetaGraphDef has
// (listing the tag sets there are), DATA_LOSS for a saved_model.pb that does
// not parse, and whatever importing the graph, restoring the variables or
// running the init op returned. On error `bundle` holds no session.
Status LoadSavedModel(const SessionOptions& session_options, const RunOptions& run_options,
                      const std::string& export_dir, const std::unordered_set<std::string>& tags,
                      SavedModelBundle* bundle);

// Whether `export_dir` looks like a SavedModel (holds saved_model.pb or
// saved_model.pbtxt); cheap, reads nothing.
bool MaybeSavedModelDirectory(const std::string& export_dir);

// The checkpoint prefix of the model's variables, EXPORT_DIR/variables/variables.
std::string SavedModelVariablesPrefix(const std::string& export_dir);

}  // namespace af
