// SavedModelBuilder: the variables through a Saver, the graph and its
// signatures into saved_model.pb.
#include "client/saved_model/builder.h"

#include <filesystem>
#include <set>

#include "client/saved_model/constants.h"
#include "client/saved_model/reader.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/atomic_file_writer.h"
#include "core/node_def_util.h"
#include "graph/graph.h"

namespace af {
namespace {

namespace fs = std::filesystem;

// Every dense tensor a signature names must be in the graph, so that the
// loader's Run cannot fail on a typo made at export.
Status CheckSignatures(const Graph& graph,
                       const std::map<std::string, tensorflow::SignatureDef>& signatures) {
  for (const auto& [key, sig] : signatures) {
    for (const auto* map : {&sig.inputs(), &sig.outputs()}) {
      for (const auto& [name, info] : *map) {
        if (info.encoding_case() != tensorflow::TensorInfo::kName) continue;
        TensorId id;
        Status s = ParseTensorName(info.name(), &id);
        const Node* node = s.ok() ? graph.FindNode(id.node) : nullptr;
        if (node == nullptr || id.index >= node->num_outputs() ||
            (id.is_control() && map == &sig.inputs()))
          return errors::InvalidArgument("signature '", key, "' key '", name, "' names tensor '",
                                         info.name(), "', which the graph does not have");
      }
    }
  }
  return Status::OK();
}

std::vector<std::string> SortedTags(const std::vector<std::string>& tags) {
  std::set<std::string> set(tags.begin(), tags.end());
  return {set.begin(), set.end()};
}

}  // namespace

SavedModelBuilder::SavedModelBuilder(std::string export_dir) : export_dir_(std::move(export_dir)) {
  saved_model_.set_saved_model_schema_version(kSavedModelSchemaVersion);
}

SavedModelBuilder::~SavedModelBuilder() = default;

Status SavedModelBuilder::BuildMetaGraph(
    const Scope& scope, const std::vector<std::string>& tags,
    const std::map<std::string, tensorflow::SignatureDef>& signatures,
    const MetaGraphOptions& options, tensorflow::MetaGraphDef* out) {
  if (tags.empty()) return errors::InvalidArgument("a MetaGraphDef needs at least one tag");
  const std::vector<std::string> sorted = SortedTags(tags);
  for (const auto& mg : saved_model_.meta_graphs()) {
    const auto& t = mg.meta_info_def().tags();
    if (SortedTags({t.begin(), t.end()}) == sorted)
      return errors::AlreadyExists("the SavedModel already has a MetaGraphDef tagged ",
                                   TagSetString(sorted));
  }
  AF_RETURN_IF_ERROR(scope.status());
  AF_RETURN_IF_ERROR(CheckSignatures(*scope.graph(), signatures));
  for (const std::string& tag : tags) out->mutable_meta_info_def()->add_tags(tag);
  out->mutable_meta_info_def()->set_meta_graph_version("actorflow");
  AF_RETURN_IF_ERROR(scope.ToGraphDef(out->mutable_graph_def()));
  if (saver_ != nullptr) *out->mutable_saver_def() = saver_def_;
  for (const auto& [key, sig] : signatures) (*out->mutable_signature_def())[key] = sig;
  if (options.main_op.valid()) {
    (*out->mutable_collection_def())[kSavedModelMainOpKey].mutable_node_list()->add_value(
        options.main_op.name());
  }
  std::error_code ec;
  for (const SavedModelAsset& asset : options.assets) {
    if (!asset.tensor.valid() || asset.tensor.type() != DT_STRING)
      return errors::InvalidArgument("asset '", asset.source_path,
                                     "' needs a string tensor to bind its path to");
    const std::string filename =
        asset.filename.empty() ? fs::path(asset.source_path).filename().string() : asset.filename;
    const fs::path dest = fs::path(export_dir_) / kSavedModelAssetsDirectory / filename;
    fs::create_directories(dest.parent_path(), ec);
    if (!fs::exists(dest, ec) &&
        !fs::copy_file(asset.source_path, dest, fs::copy_options::overwrite_existing, ec))
      return errors::NotFound("asset '", asset.source_path, "' cannot be copied to ", dest.string(),
                              ": ", ec.message());
    tensorflow::AssetFileDef* def = out->add_asset_file_def();
    def->mutable_tensor_info()->set_name(asset.tensor.name());
    def->mutable_tensor_info()->set_dtype(tensorflow::DT_STRING);
    def->set_filename(filename);
  }
  return Status::OK();
}

Status SavedModelBuilder::AddMetaGraphAndVariables(
    const Scope& scope, ClientSession& session, const std::vector<std::string>& tags,
    const std::map<std::string, tensorflow::SignatureDef>& signatures,
    const MetaGraphOptions& options) {
  const std::string context = "exporting SavedModel " + export_dir_;
  if (variables_added_)
    return errors::FailedPrecondition(context, ": AddMetaGraphAndVariables was already called; "
                                               "add more tag sets with AddMetaGraph");
  std::error_code ec;
  if (fs::exists(export_dir_, ec) && !fs::is_empty(export_dir_, ec))
    return errors::AlreadyExists(context, ": the directory exists and is not empty");
  if (!fs::create_directories(export_dir_, ec) && ec)
    return errors::PermissionDenied(context, ": cannot create the directory: ", ec.message());

  if (!GlobalVariables(scope).empty()) {
    // TensorFlow's SavedModelBuilder keeps every checkpoint it writes
    // (there is one), hence max_to_keep 0.
    SaverOptions saver_options;
    saver_options.max_to_keep = 0;
    saver_ = std::make_unique<Saver>(scope, saver_options);
    AF_RETURN_IF_ERROR(saver_->status().WithContext(context));
    // SaverDef.save_tensor_name is a tensor: the filename, computed after
    // the save op ran, as TensorFlow's Saver builds it.
    const std::string restore = saver_->restore_op().name();
    const std::string name_scope = restore.substr(0, restore.rfind('/'));
    Output save_tensor =
        ops::Identity(scope.WithOpName(name_scope + "/control_dependency")
                          .WithControlDependencies(std::vector<Operation>{saver_->save_op()}),
                      saver_->filename_tensor());
    AF_RETURN_IF_ERROR(scope.status().WithContext(context));
    saver_def_.set_filename_tensor_name(saver_->filename_tensor().name());
    saver_def_.set_save_tensor_name(save_tensor.name());
    saver_def_.set_restore_op_name(restore);
    saver_def_.set_max_to_keep(0);
    saver_def_.set_sharded(false);
    saver_def_.set_keep_checkpoint_every_n_hours(10000.0f);
    saver_def_.set_version(tensorflow::SaverDef::V2);

    const fs::path variables_dir = fs::path(export_dir_) / kSavedModelVariablesDirectory;
    fs::create_directories(variables_dir, ec);
    const std::string prefix = (variables_dir / kSavedModelVariablesFilename).string();
    AF_RETURN_IF_ERROR(session.status().WithContext(context));
    AF_RETURN_IF_ERROR(saver_->Save(session, prefix, -1, nullptr).WithContext(context));
    // The Saver also records the checkpoint in a `checkpoint` state file;
    // a SavedModel's variables folder has none.
    fs::remove(variables_dir / "checkpoint", ec);
  }
  tensorflow::MetaGraphDef meta_graph;
  AF_RETURN_IF_ERROR(
      BuildMetaGraph(scope, tags, signatures, options, &meta_graph).WithContext(context));
  *saved_model_.add_meta_graphs() = std::move(meta_graph);
  variables_added_ = true;
  return Status::OK();
}

Status SavedModelBuilder::AddMetaGraph(
    const Scope& scope, const std::vector<std::string>& tags,
    const std::map<std::string, tensorflow::SignatureDef>& signatures,
    const MetaGraphOptions& options) {
  const std::string context = "exporting SavedModel " + export_dir_;
  if (!variables_added_)
    return errors::FailedPrecondition(context, ": call AddMetaGraphAndVariables first");
  tensorflow::MetaGraphDef meta_graph;
  AF_RETURN_IF_ERROR(
      BuildMetaGraph(scope, tags, signatures, options, &meta_graph).WithContext(context));
  *saved_model_.add_meta_graphs() = std::move(meta_graph);
  return Status::OK();
}

Status SavedModelBuilder::Save() {
  const std::string context = "exporting SavedModel " + export_dir_;
  if (!variables_added_)
    return errors::FailedPrecondition(context, ": nothing to save; call AddMetaGraphAndVariables");
  std::string bytes;
  if (!saved_model_.SerializeToString(&bytes))
    return errors::Internal(context, ": the SavedModel does not serialize (over 2 GiB?)");
  const std::string path = (fs::path(export_dir_) / kSavedModelFilenamePb).string();
  std::unique_ptr<AtomicFileWriter> writer;
  AF_RETURN_IF_ERROR(AtomicFileWriter::Create(path, &writer).WithContext(context));
  AF_RETURN_IF_ERROR(writer->Append(bytes.data(), bytes.size()).WithContext(context));
  return writer->Commit().WithContext(context);
}

}  // namespace af
