#include "kernels/nn/unigram_weights.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string_view>

#include "core/file_access_policy.h"

namespace af::sampling {
namespace {

Status CheckShard(const UnigramTableOptions& options) {
  if (options.num_shards < 1 || options.shard < 0 || options.shard >= options.num_shards)
    return errors::InvalidArgument("shard must be in [0, num_shards), got shard ", options.shard,
                                   " of num_shards ", options.num_shards);
  if (options.num_reserved_ids < 0)
    return errors::InvalidArgument("num_reserved_ids must be >= 0, got ", options.num_reserved_ids);
  return Status::OK();
}

// Builds the table one id at a time, keeping this shard's ids only.
class TableBuilder {
 public:
  TableBuilder(const UnigramTableOptions& options, std::vector<double>* weights)
      : options_(options), weights_(weights) {
    weights_->clear();
    for (next_id_ = 0; next_id_ < options.num_reserved_ids; ++next_id_)
      if (Mine(next_id_)) weights_->push_back(0.0);
  }
  // `count` has been checked finite and non-negative.
  void AddCount(double count) {
    if (Mine(next_id_))
      weights_->push_back(std::pow(count, static_cast<double>(options_.distortion)));
    ++next_id_;
  }

 private:
  bool Mine(int64_t id) const { return id % options_.num_shards == options_.shard; }

  const UnigramTableOptions& options_;
  std::vector<double>* weights_;
  int64_t next_id_ = 0;
};

bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

std::string_view Trim(std::string_view s) {
  const size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const size_t last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

bool ParseCount(std::string_view text, double* count) {
  const std::string s(text);
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v) || v < 0) return false;
  *count = v;
  return true;
}

}  // namespace

Status UnigramWeightsFromCounts(const std::vector<float>& unigrams,
                                const UnigramTableOptions& options, std::vector<double>* weights) {
  AF_RETURN_IF_ERROR(CheckShard(options));
  TableBuilder table(options, weights);
  for (size_t k = 0; k < unigrams.size(); ++k) {
    const double count = unigrams[k];
    if (!std::isfinite(count) || count < 0)
      return errors::InvalidArgument("unigrams[", k, "] is ", count,
                                     "; counts must be finite and non-negative");
    table.AddCount(count);
  }
  return Status::OK();
}

Status UnigramWeightsFromVocabFile(const std::string& path, const UnigramTableOptions& options,
                                   std::vector<double>* weights) {
  AF_RETURN_IF_ERROR(CheckShard(options));
  AF_RETURN_IF_ERROR(CheckFileAccess(path));
  std::ifstream in(path);
  if (!in) return errors::NotFound("cannot open vocab_file '", path, "'");
  TableBuilder table(options, weights);
  std::string line;
  for (int64_t line_number = 1; std::getline(in, line); ++line_number) {
    if (IsBlank(line)) continue;
    const size_t comma = line.rfind(',');
    const std::string_view last =
        Trim(comma == std::string::npos ? std::string_view(line)
                                        : std::string_view(line).substr(comma + 1));
    double count = 0;
    if (!ParseCount(last, &count))
      return errors::InvalidArgument("vocab_file '", path, "' line ", line_number,
                                     ": the last column '", last,
                                     "' is not a non-negative count (line: '", line, "')");
    table.AddCount(count);
  }
  if (in.bad()) return errors::DataLoss("error reading vocab_file '", path, "'");
  return Status::OK();
}

}  // namespace af::sampling
