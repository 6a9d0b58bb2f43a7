// --export_dir: the trained classifier as a TensorFlow SavedModel, tag
// "serve", signature "serving_default" (predict): input "images" (the
// batch the model reads, float [N,28,28,1]) and output "logits" [N,10].
// TensorFlow Serving, saved_model_cli or `actorflow saved_model run` serve
// it; its variables are written by the Saver in its default format.
#pragma once

#include <string>

#include "client/client_session.h"
#include "client/ops.h"
#include "client/scope.h"
#include "core/status.h"

namespace af::fmnist {

Status ExportServingModel(const Scope& root, ClientSession& session, const Output& images,
                          const Output& logits, const std::string& export_dir);

}  // namespace af::fmnist
