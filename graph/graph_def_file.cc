// Reading GraphDefs from bytes and files, binary or protobuf text format.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include "graph/graph_def_import.h"

namespace af {

namespace {

// Keeps the first text-format error instead of letting protobuf log it.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (first_.empty()) first_ = internal::StrCat("line ", line + 1, ", column ", column + 1, ": ", message);
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Status ParseGraphDefBytes(const std::string& bytes, bool text, tensorflow::GraphDef* out) {
  out->Clear();
  if (!text) {
    if (out->ParseFromString(bytes)) return Status::OK();
    out->Clear();
    return errors::DataLoss("bytes are not a binary GraphDef protobuf");
  }
  google::protobuf::TextFormat::Parser parser;
  FirstErrorCollector errors_seen;
  parser.RecordErrorsTo(&errors_seen);
  if (parser.ParseFromString(bytes, out)) return Status::OK();
  out->Clear();
  return errors::InvalidArgument("text is not a GraphDef in protobuf text format: ",
                                 errors_seen.first());
}

Status ReadGraphDefFile(const std::string& path, tensorflow::GraphDef* out) {
  std::error_code ec;
  const auto kind = std::filesystem::status(path, ec).type();
  if (kind == std::filesystem::file_type::not_found) {
    return errors::NotFound(path, ": no such file");
  }
  if (kind == std::filesystem::file_type::directory) {
    return errors::InvalidArgument(path, ": is a directory, not a GraphDef file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::InvalidArgument(path, ": cannot open: ", std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return errors::DataLoss(path, ": read failed");
  const std::string bytes = std::move(buffer).str();

  Status s;
  if (EndsWith(path, ".pbtxt") || EndsWith(path, ".pbtext") || EndsWith(path, ".txt")) {
    s = ParseGraphDefBytes(bytes, /*text=*/true, out);
  } else if (EndsWith(path, ".pb")) {
    s = ParseGraphDefBytes(bytes, /*text=*/false, out);
  } else {
    s = ParseGraphDefBytes(bytes, /*text=*/false, out);
    if (!s.ok()) s = ParseGraphDefBytes(bytes, /*text=*/true, out);
  }
  return s.WithContext(path);
}

}  // namespace af
