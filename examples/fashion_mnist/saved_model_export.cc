#include "examples/fashion_mnist/saved_model_export.h"

#include <map>

#include "client/saved_model/builder.h"
#include "client/saved_model/constants.h"
#include "client/saved_model/signature_def_utils.h"

namespace af::fmnist {

Status ExportServingModel(const Scope& root, ClientSession& session, const Output& images,
                          const Output& logits, const std::string& export_dir) {
  // The whole training graph goes in (input queues, optimizer, summaries):
  // a signature's Run prunes to what the logits need once images are fed.
  std::map<std::string, tensorflow::SignatureDef> signatures;
  signatures[kDefaultServingSignatureDefKey] =
      PredictSignatureDef({{"images", images}}, {{"logits", logits}});
  SavedModelBuilder builder(export_dir);
  AF_RETURN_IF_ERROR(
      builder.AddMetaGraphAndVariables(root, session, {kSavedModelTagServe}, signatures));
  return builder.Save();
}

}  // namespace af::fmnist
