// LoadSavedModel: read, pick by tags, import, restore, init.
#include "client/saved_model/loader.h"

#include <chrono>
#include <filesystem>
#include <utility>
#include <vector>

#include "client/saved_model/constants.h"
#include "client/saved_model/reader.h"
#include "core/logging.h"

namespace af {
namespace {

namespace fs = std::filesystem;

using Feeds = std::vector<std::pair<std::string, Tensor>>;

// Every asset's tensor fed the asset's full path, as TensorFlow binds them.
Status AssetFeeds(const std::string& export_dir, const tensorflow::MetaGraphDef& meta_graph,
                  Feeds* feeds) {
  std::vector<tensorflow::AssetFileDef> assets;
  AF_RETURN_IF_ERROR(GetAssetFileDefs(meta_graph, &assets));
  const fs::path dir = fs::path(export_dir) / kSavedModelAssetsDirectory;
  for (const auto& asset : assets)
    feeds->emplace_back(asset.tensor_info().name(),
                        Tensor::Scalar<std::string>((dir / asset.filename()).string()));
  return Status::OK();
}

// The checkpoint TensorFlow wrote (variables.index), or one this
// runtime's own Saver format wrote (variables.afckpt).
bool HasVariables(const std::string& prefix) {
  std::error_code ec;
  return fs::exists(prefix + ".index", ec) || fs::exists(prefix + ".afckpt", ec);
}

// A node name from an op name that may carry a port ("group_deps:0").
std::string NodeName(const std::string& name) {
  std::string node = name.substr(!name.empty() && name.front() == '^' ? 1 : 0);
  if (const size_t colon = node.rfind(':'); colon != std::string::npos) node.resize(colon);
  return node;
}

// The init op, TensorFlow's order: the init signature (TF 2), the main op
// collection, the legacy init op collection. Empty when there is none.
Status GetInitOp(const tensorflow::MetaGraphDef& meta_graph, std::string* init_op) {
  init_op->clear();
  const auto& signatures = meta_graph.signature_def();
  if (auto it = signatures.find(kSavedModelInitOpSignatureKey); it != signatures.end()) {
    const auto& outputs = it->second.outputs();
    auto out = outputs.find(kSavedModelInitOpSignatureKey);
    if (out == outputs.end() || out->second.name().empty())
      return errors::InvalidArgument("signature '", kSavedModelInitOpSignatureKey,
                                     "' has no output '", kSavedModelInitOpSignatureKey,
                                     "' naming the init op");
    *init_op = NodeName(out->second.name());
    return Status::OK();
  }
  for (const char* key : {kSavedModelMainOpKey, kSavedModelLegacyInitOpKey}) {
    auto it = meta_graph.collection_def().find(key);
    if (it == meta_graph.collection_def().end()) continue;
    const auto& nodes = it->second.node_list().value();
    if (nodes.size() != 1 || nodes[0].empty())
      return errors::FailedPrecondition("collection '", key,
                                        "' must name exactly one op, it names ", nodes.size());
    *init_op = NodeName(nodes[0]);
    return Status::OK();
  }
  return Status::OK();
}

Status RestoreVariables(const RunOptions& run_options, const std::string& export_dir,
                        const tensorflow::MetaGraphDef& meta_graph, const Feeds& asset_feeds,
                        Session* session) {
  const tensorflow::SaverDef& saver = meta_graph.saver_def();
  const std::string prefix = SavedModelVariablesPrefix(export_dir);
  if (saver.restore_op_name().empty()) return Status::OK();
  if (!HasVariables(prefix)) {
    AF_LOG(INFO) << "SavedModel " << export_dir << " has no variables (no " << prefix
                 << ".index); none restored";
    return Status::OK();
  }
  if (saver.filename_tensor_name().empty())
    return errors::InvalidArgument("the SaverDef names restore op '", saver.restore_op_name(),
                                   "' but no filename tensor");
  Feeds feeds = asset_feeds;
  feeds.emplace_back(saver.filename_tensor_name(), Tensor::Scalar<std::string>(prefix));
  std::vector<Tensor> none;
  return session->Run(run_options, feeds, {}, {NodeName(saver.restore_op_name())}, &none)
      .WithContext("restoring the variables from " + prefix + " (restore op '" +
                   saver.restore_op_name() + "')");
}

}  // namespace

std::string SavedModelVariablesPrefix(const std::string& export_dir) {
  return (fs::path(export_dir) / kSavedModelVariablesDirectory / kSavedModelVariablesFilename)
      .string();
}

bool MaybeSavedModelDirectory(const std::string& export_dir) {
  std::error_code ec;
  return fs::exists(fs::path(export_dir) / kSavedModelFilenamePb, ec) ||
         fs::exists(fs::path(export_dir) / kSavedModelFilenamePbTxt, ec);
}

Status LoadSavedModel(const SessionOptions& session_options, const RunOptions& run_options,
                      const std::string& export_dir, const std::unordered_set<std::string>& tags,
                      SavedModelBundle* bundle) {
  const auto start = std::chrono::steady_clock::now();
  bundle->session.reset();
  bundle->meta_graph_def.Clear();
  bundle->export_dir = export_dir;
  const std::string context = "loading SavedModel " + export_dir;
  tensorflow::SavedModel saved_model;
  AF_RETURN_IF_ERROR(ReadSavedModel(export_dir, &saved_model).WithContext(context));
  const tensorflow::MetaGraphDef* found = nullptr;
  AF_RETURN_IF_ERROR(FindMetaGraphDef(saved_model, tags, &found).WithContext(context));
  tensorflow::MetaGraphDef& meta_graph = bundle->meta_graph_def;
  for (auto& candidate : *saved_model.mutable_meta_graphs()) {
    if (&candidate == found) meta_graph.Swap(&candidate);
  }

  Feeds asset_feeds;
  AF_RETURN_IF_ERROR(AssetFeeds(export_dir, meta_graph, &asset_feeds).WithContext(context));
  std::string init_op;
  AF_RETURN_IF_ERROR(GetInitOp(meta_graph, &init_op).WithContext(context));

  std::unique_ptr<Session> session;
  AF_RETURN_IF_ERROR(Session::Create(session_options, &session).WithContext(context));
  AF_RETURN_IF_ERROR(
      session->Extend(meta_graph.graph_def()).WithContext(context + ": importing the graph"));
  AF_RETURN_IF_ERROR(
      RestoreVariables(run_options, export_dir, meta_graph, asset_feeds, session.get())
          .WithContext(context));
  if (!init_op.empty()) {
    std::vector<Tensor> none;
    AF_RETURN_IF_ERROR(session->Run(run_options, asset_feeds, {}, {init_op}, &none)
                           .WithContext(context + ": running the init op '" + init_op + "'"));
  }
  bundle->session = std::move(session);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  AF_LOG(INFO) << "SavedModel " << export_dir << " loaded in " << ms << " ms ("
               << meta_graph.graph_def().node_size() << " nodes, "
               << meta_graph.signature_def_size() << " signatures)";
  return Status::OK();
}

}  // namespace af
