// Reading saved_model.pb and choosing a MetaGraphDef by tags.
#include "client/saved_model/reader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>

#include "client/saved_model/constants.h"

namespace af {
namespace {

namespace fs = std::filesystem;

Status ReadWholeFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::PermissionDenied(path, ": cannot open for reading");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return errors::DataLoss(path, ": read failed");
  *out = std::move(buffer).str();
  return Status::OK();
}

// Keeps the first text-format error instead of letting protobuf log it.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (first_.empty())
      first_ = internal::StrCat("line ", line + 1, ", column ", column + 1, ": ", message);
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

bool IsFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

}  // namespace

Status ReadSavedModel(const std::string& export_dir, tensorflow::SavedModel* out) {
  out->Clear();
  std::error_code ec;
  if (!fs::is_directory(export_dir, ec))
    return errors::NotFound("SavedModel directory '", export_dir, "' does not exist");
  const fs::path binary = fs::path(export_dir) / kSavedModelFilenamePb;
  const fs::path text = fs::path(export_dir) / kSavedModelFilenamePbTxt;
  std::string bytes;
  if (IsFile(binary)) {
    AF_RETURN_IF_ERROR(ReadWholeFile(binary.string(), &bytes));
    // A damaged file makes protobuf log a line per bad string field to
    // stderr; the Status below says what matters.
    google::protobuf::LogSilencer quiet;
    if (!out->ParseFromString(bytes)) {
      out->Clear();
      return errors::DataLoss(binary.string(), ": not a SavedModel protobuf (", bytes.size(),
                              " bytes that do not parse)");
    }
    return Status::OK();
  }
  if (IsFile(text)) {
    AF_RETURN_IF_ERROR(ReadWholeFile(text.string(), &bytes));
    google::protobuf::TextFormat::Parser parser;
    FirstError error;
    parser.RecordErrorsTo(&error);
    if (!parser.ParseFromString(bytes, out)) {
      out->Clear();
      return errors::DataLoss(text.string(),
                              ": not a SavedModel in protobuf text format: ", error.first());
    }
    return Status::OK();
  }
  return errors::NotFound("SavedModel directory '", export_dir, "' holds neither ",
                          kSavedModelFilenamePb, " nor ", kSavedModelFilenamePbTxt);
}

std::vector<std::vector<std::string>> GetTagSets(const tensorflow::SavedModel& saved_model) {
  std::vector<std::vector<std::string>> sets;
  for (const auto& mg : saved_model.meta_graphs())
    sets.emplace_back(mg.meta_info_def().tags().begin(), mg.meta_info_def().tags().end());
  return sets;
}

std::string TagSetString(const std::vector<std::string>& tags) {
  std::string s = "{";
  for (size_t i = 0; i < tags.size(); ++i) s += (i ? ", " : " ") + tags[i];
  return s + " }";
}

Status FindMetaGraphDef(const tensorflow::SavedModel& saved_model,
                        const std::unordered_set<std::string>& tags,
                        const tensorflow::MetaGraphDef** out) {
  for (const auto& mg : saved_model.meta_graphs()) {
    const auto& t = mg.meta_info_def().tags();
    if (std::unordered_set<std::string>(t.begin(), t.end()) == tags) {
      *out = &mg;
      return Status::OK();
    }
  }
  std::vector<std::string> wanted(tags.begin(), tags.end());
  std::sort(wanted.begin(), wanted.end());
  std::string available;
  for (const auto& set : GetTagSets(saved_model)) available += " " + TagSetString(set);
  if (available.empty()) available = " none (the SavedModel holds no MetaGraphDef)";
  return errors::NotFound("no MetaGraphDef in the SavedModel matches the tags ",
                          TagSetString(wanted), "; its tag sets:", available);
}

Status ReadMetaGraphDefFromSavedModel(const std::string& export_dir,
                                      const std::unordered_set<std::string>& tags,
                                      tensorflow::MetaGraphDef* out) {
  tensorflow::SavedModel saved_model;
  AF_RETURN_IF_ERROR(ReadSavedModel(export_dir, &saved_model));
  const tensorflow::MetaGraphDef* found = nullptr;
  AF_RETURN_IF_ERROR(FindMetaGraphDef(saved_model, tags, &found).WithContext(export_dir));
  *out = *found;
  return Status::OK();
}

Status GetAssetFileDefs(const tensorflow::MetaGraphDef& meta_graph,
                        std::vector<tensorflow::AssetFileDef>* out) {
  out->clear();
  if (meta_graph.asset_file_def_size() > 0) {
    out->assign(meta_graph.asset_file_def().begin(), meta_graph.asset_file_def().end());
  } else if (auto it = meta_graph.collection_def().find(kSavedModelAssetsKey);
             it != meta_graph.collection_def().end()) {
    for (const auto& any : it->second.any_list().value()) {
      tensorflow::AssetFileDef asset;
      if (any.type_url() != kAssetFileDefTypeUrl || !asset.ParseFromString(any.value()))
        return errors::InvalidArgument("collection '", kSavedModelAssetsKey, "' holds a '",
                                       any.type_url(), "' where an AssetFileDef belongs");
      out->push_back(std::move(asset));
    }
  }
  for (const auto& asset : *out) {
    // The file is joined under assets/: an absolute path or ".." would read
    // outside the model, which no TensorFlow writer produces.
    const fs::path p(asset.filename());
    bool escapes = asset.filename().empty() || p.is_absolute();
    for (const auto& part : p) escapes = escapes || part == "..";
    if (escapes)
      return errors::InvalidArgument("asset filename '", asset.filename(),
                                     "' is not a file name inside the assets folder");
    if (asset.tensor_info().name().empty())
      return errors::InvalidArgument("asset '", asset.filename(), "' names no tensor to feed");
  }
  return Status::OK();
}

}  // namespace af
