// Exporting a model trained here as a TensorFlow SavedModel, as TensorFlow's
// SavedModelBuilder:
//
//   af::SavedModelBuilder builder("/models/mnist/1");
//   std::map<std::string, tensorflow::SignatureDef> signatures;
//   signatures[af::kDefaultServingSignatureDefKey] =
//       af::PredictSignatureDef({{"images", images}}, {{"scores", logits}});
//   AF_RETURN_IF_ERROR(builder.AddMetaGraphAndVariables(root, session,
//                                                       {af::kSavedModelTagServe}, signatures));
//   AF_RETURN_IF_ERROR(builder.Save());
//
// AddMetaGraphAndVariables adds a Saver over the scope's global variables
// to the graph (nodes "save/..."), runs it to write the variables' current
// values from `session` under EXPORT_DIR/variables/variables in the format
// the Saver writes, and records the graph with a SaverDef naming that
// saver's filename tensor, save tensor and restore op, the signatures, the
// main op and the assets. Save writes EXPORT_DIR/saved_model.pb. The
// result loads with LoadSavedModel here and with TensorFlow's loaders.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/ops.h"
#include "client/saver.h"
#include "client/scope.h"
#include "core/status.h"
#include "proto/meta_graph.pb.h"
#include "proto/saved_model.pb.h"

namespace af {

struct SavedModelAsset {
  Output tensor;            // a string Placeholder the loader feeds the asset's path
  std::string source_path;  // the file copied into EXPORT_DIR/assets/
  std::string filename;     // its name there; empty: source_path's file name
};

struct MetaGraphOptions {
  // Run by the loader after the variables are restored (TensorFlow's main
  // op, the "saved_model_main_op" collection); invalid: none.
  Operation main_op;
  std::vector<SavedModelAsset> assets;
};

class SavedModelBuilder {
 public:
  // `export_dir` must not exist yet, or be empty.
  explicit SavedModelBuilder(std::string export_dir);
  ~SavedModelBuilder();
  SavedModelBuilder(const SavedModelBuilder&) = delete;
  SavedModelBuilder& operator=(const SavedModelBuilder&) = delete;

  // The first MetaGraphDef, with the variables. ALREADY_EXISTS for a
  // non-empty export directory; FAILED_PRECONDITION when called twice;
  // INVALID_ARGUMENT for a signature naming a tensor the graph lacks; the
  // Saver's error for an uninitialized variable. A graph without variables
  // gets no saver and no variables folder.
  Status AddMetaGraphAndVariables(const Scope& scope, ClientSession& session,
                                  const std::vector<std::string>& tags,
                                  const std::map<std::string, tensorflow::SignatureDef>& signatures,
                                  const MetaGraphOptions& options = {});

  // Another MetaGraphDef over the same variables (another tag set, other
  // signatures), after AddMetaGraphAndVariables. ALREADY_EXISTS for a tag
  // set already added.
  Status AddMetaGraph(const Scope& scope, const std::vector<std::string>& tags,
                      const std::map<std::string, tensorflow::SignatureDef>& signatures,
                      const MetaGraphOptions& options = {});

  // Writes EXPORT_DIR/saved_model.pb (atomically). FAILED_PRECONDITION
  // before AddMetaGraphAndVariables.
  Status Save();

  const tensorflow::SavedModel& saved_model() const { return saved_model_; }

 private:
  Status BuildMetaGraph(const Scope& scope, const std::vector<std::string>& tags,
                        const std::map<std::string, tensorflow::SignatureDef>& signatures,
                        const MetaGraphOptions& options, tensorflow::MetaGraphDef* out);

  std::string export_dir_;
  std::unique_ptr<Saver> saver_;
  tensorflow::SaverDef saver_def_;
  bool variables_added_ = false;
  tensorflow::SavedModel saved_model_;
};

}  // namespace af
