#include "core/bundle/bundle_merge.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <map>

#include "core/atomic_file_writer.h"
#include "core/bundle/bundle_format.h"
#include "core/bundle/bundle_reader.h"
#include "core/bundle/table.h"

namespace af::bundle {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string DirectoryOf(const std::string& prefix) {
  const size_t slash = prefix.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : prefix.substr(0, slash);
}

bool SameFullTensor(const tensorflow::BundleEntryProto& a, const tensorflow::BundleEntryProto& b) {
  if (a.dtype() != b.dtype() || a.shape().dim_size() != b.shape().dim_size()) return false;
  for (int d = 0; d < a.shape().dim_size(); ++d)
    if (a.shape().dim(d).size() != b.shape().dim(d).size()) return false;
  return true;
}

}  // namespace

Status MergeBundles(const std::vector<std::string>& prefixes, const std::string& dest,
                    bool delete_old_dirs, bool allow_missing_files) {
  struct Input {
    std::string prefix;
    int num_shards = 0;
    int first_shard = 0;  // in the merged bundle
  };
  std::vector<Input> inputs;
  std::map<std::string, tensorflow::BundleEntryProto> merged;
  int total_shards = 0;
  for (const std::string& prefix : prefixes) {
    if (!Exists(MetaFilename(prefix))) {
      if (allow_missing_files) continue;
      return errors::NotFound("MergeV2Checkpoints: no checkpoint at ", prefix, " (",
                              MetaFilename(prefix), " does not exist)");
    }
    tensorflow::BundleHeaderProto header;
    std::vector<IndexEntry> entries;
    AF_RETURN_IF_ERROR(ReadIndex(prefix, &header, &entries));
    Input in{prefix, header.num_shards(), total_shards};
    if (total_shards > kMaxShards - in.num_shards)
      return errors::InvalidArgument("MergeV2Checkpoints: more than ", kMaxShards, " data files");
    for (auto& [key, entry] : entries) {
      auto it = merged.find(key);
      if (entry.slices_size() > 0) {
        if (it == merged.end()) {
          merged.emplace(key, std::move(entry));
        } else if (it->second.slices_size() == 0 || !SameFullTensor(it->second, entry)) {
          return errors::InvalidArgument("MergeV2Checkpoints: tensor '", key, "' of ", prefix,
                                         " does not match what another input saved under it");
        } else {
          for (const auto& slice : entry.slices()) *it->second.add_slices() = slice;
        }
        continue;
      }
      if (it != merged.end())
        return errors::InvalidArgument("MergeV2Checkpoints: duplicate tensor keyed by '",
                                       key[0] == '\0' ? std::string("(a slice)") : key,
                                       "' when merging ", prefix);
      entry.set_shard_id(entry.shard_id() + in.first_shard);
      merged.emplace(key, std::move(entry));
    }
    total_shards += in.num_shards;
    inputs.push_back(std::move(in));
  }
  if (inputs.empty())
    return errors::NotFound("MergeV2Checkpoints: none of the ", prefixes.size(),
                            " checkpoints to merge exists");
  for (const Input& in : inputs)
    for (int j = 0; j < in.num_shards; ++j)
      if (!Exists(DataFilename(in.prefix, j, in.num_shards)))
        return errors::NotFound("MergeV2Checkpoints: data file ",
                                DataFilename(in.prefix, j, in.num_shards), " does not exist");
  AF_RETURN_IF_ERROR(CreateParentDirectories(MetaFilename(dest)));
  for (const Input& in : inputs) {
    for (int j = 0; j < in.num_shards; ++j) {
      const std::string from = DataFilename(in.prefix, j, in.num_shards);
      const std::string to = DataFilename(dest, in.first_shard + j, total_shards);
      if (std::rename(from.c_str(), to.c_str()) != 0)
        return IoError("MergeV2Checkpoints: cannot rename " + from + " to " + to, errno);
    }
  }
  TableBuilder table;
  std::string value;
  MakeHeader(total_shards).SerializeToString(&value);
  table.Add(kHeaderKey, value);
  for (const auto& [key, entry] : merged) {
    value.clear();
    entry.SerializeToString(&value);
    table.Add(key, value);
  }
  AF_RETURN_IF_ERROR(WriteFileAtomically(MetaFilename(dest), table.Finish()));
  for (const Input& in : inputs) {
    if (::unlink(MetaFilename(in.prefix).c_str()) != 0 && errno != ENOENT)
      return IoError("MergeV2Checkpoints: cannot delete " + MetaFilename(in.prefix), errno);
    if (delete_old_dirs) ::rmdir(DirectoryOf(in.prefix).c_str());  // fails unless empty: fine
  }
  return Status::OK();
}

}  // namespace af::bundle
