// Reading a SavedModel's saved_model.pb (or saved_model.pbtxt) and picking
// the MetaGraphDef of a tag set, as TensorFlow's reader.h does. Used by the
// loader and by `actorflow saved_model show`, which reads without running.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "core/status.h"
#include "proto/meta_graph.pb.h"
#include "proto/saved_model.pb.h"

namespace af {

// Reads EXPORT_DIR/saved_model.pb, else EXPORT_DIR/saved_model.pbtxt.
// NOT_FOUND when the directory or both files are missing; DATA_LOSS naming
// the file when its bytes are not a SavedModel.
Status ReadSavedModel(const std::string& export_dir, tensorflow::SavedModel* out);

// The MetaGraphDef whose tags are exactly `tags` (as sets: order and
// repeats do not matter). NOT_FOUND listing the tag sets there are.
Status FindMetaGraphDef(const tensorflow::SavedModel& saved_model,
                        const std::unordered_set<std::string>& tags,
                        const tensorflow::MetaGraphDef** out);

// ReadSavedModel + FindMetaGraphDef, copying the MetaGraphDef out.
Status ReadMetaGraphDefFromSavedModel(const std::string& export_dir,
                                      const std::unordered_set<std::string>& tags,
                                      tensorflow::MetaGraphDef* out);

// Every tag set of the SavedModel, in file order, each in its own order.
std::vector<std::vector<std::string>> GetTagSets(const tensorflow::SavedModel& saved_model);

// "{ serve, gpu }": a tag set for messages.
std::string TagSetString(const std::vector<std::string>& tags);

// The assets a MetaGraphDef binds to tensors: its asset_file_def, or for
// models written by TensorFlow 1's SavedModelBuilder before that field
// existed, the AssetFileDefs packed in the "saved_model_assets" collection.
// INVALID_ARGUMENT for a packed entry that is not an AssetFileDef, or an
// asset filename that would leave the assets folder.
Status GetAssetFileDefs(const tensorflow::MetaGraphDef& meta_graph,
                        std::vector<tensorflow::AssetFileDef>* out);

}  // namespace af
