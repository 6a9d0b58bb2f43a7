#include "core/checkpoint_shards.h"

#include <cstdio>

#include "core/bundle/bundle_reader.h"
#include "core/checkpoint_format.h"
#include "core/checkpoint_writer.h"
#include "core/file_access_policy.h"

namespace af {
namespace {

std::string DirectoryPart(const std::string& prefix) {
  const size_t slash = prefix.rfind('/');
  return slash == std::string::npos ? std::string() : prefix.substr(0, slash + 1);
}

std::string BasePart(const std::string& prefix) {
  const size_t slash = prefix.rfind('/');
  return slash == std::string::npos ? prefix : prefix.substr(slash + 1);
}

// The shard prefixes an index lists, relative to its directory (so that a
// checkpoint directory can be moved whole).
Status ReadShardList(const CheckpointReader& index, const std::string& prefix,
                     std::vector<std::string>* shards) {
  Tensor list;
  AF_RETURN_IF_ERROR(index.Read(kShardListKey, &list));
  if (list.dtype() != DT_STRING || list.dims() != 1) {
    return errors::DataLoss("checkpoint ", index.path(), ": '", kShardListKey,
                            "' is not a list of shard names");
  }
  for (int64_t i = 0; i < list.NumElements(); ++i) {
    const std::string& name = list.data<std::string>()[i];
    if (name.empty() || name.find('/') != std::string::npos) {
      return errors::DataLoss("checkpoint ", index.path(), ": bad shard name '", name, "'");
    }
    shards->push_back(DirectoryPart(prefix) + name);
  }
  return Status::OK();
}

}  // namespace

std::string ShardedPrefix(std::string_view prefix, int shard, int num_shards) {
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "-%05d-of-%05d", shard, num_shards);
  return std::string(prefix) + suffix;
}

Status WriteShardIndex(const std::string& prefix, int num_shards) {
  if (num_shards < 1) {
    return errors::InvalidArgument("a sharded checkpoint needs at least one shard, got ",
                                   num_shards);
  }
  std::vector<std::string> names;
  for (int i = 0; i < num_shards; ++i) {
    const std::string shard = ShardedPrefix(prefix, i, num_shards);
    std::unique_ptr<CheckpointReader> reader;
    AF_RETURN_IF_ERROR(CheckpointReader::Open(checkpoint::DataFilePath(shard), &reader)
                           .WithContext("shard " + std::to_string(i) + " of " + prefix));
    names.push_back(BasePart(shard));
  }
  std::unique_ptr<CheckpointWriter> writer;
  AF_RETURN_IF_ERROR(CheckpointWriter::Create(checkpoint::DataFilePath(prefix), &writer));
  AF_RETURN_IF_ERROR(writer->Add(std::string(kShardListKey), Tensor::FromVector<std::string>(names)));
  return writer->Finish();
}

Status CheckpointSet::Open(const std::string& prefix, std::unique_ptr<CheckpointSet>* out) {
  AF_RETURN_IF_ERROR(CheckFileAccess(prefix));
  auto set = std::make_unique<CheckpointSet>();
  std::string file;
  AF_RETURN_IF_ERROR(ResolveCheckpointFile(prefix, &file));
  std::unique_ptr<CheckpointReader> index;
  AF_RETURN_IF_ERROR(CheckpointReader::Open(file, &index));
  set->path_ = file;
  // A tensor bundle holds all its data shards itself.
  if (index->bundle() != nullptr || index->Find(kShardListKey) == nullptr) {
    set->readers_.push_back(std::move(index));
  } else {
    AF_RETURN_IF_ERROR(ReadShardList(*index, prefix, &set->shard_prefixes_));
    for (const std::string& shard : set->shard_prefixes_) {
      std::unique_ptr<CheckpointReader> reader;
      AF_RETURN_IF_ERROR(CheckpointReader::Open(checkpoint::DataFilePath(shard), &reader)
                             .WithContext("a shard of checkpoint " + file));
      set->readers_.push_back(std::move(reader));
    }
  }
  *out = std::move(set);
  return Status::OK();
}

const checkpoint::TensorEntry* CheckpointSet::Find(std::string_view name,
                                                   const CheckpointReader** reader) const {
  for (const auto& r : readers_) {
    if (const checkpoint::TensorEntry* e = r->Find(name)) {
      *reader = r.get();
      return e;
    }
  }
  return nullptr;
}

std::vector<CheckpointSet::Found> CheckpointSet::FindWithPrefix(std::string_view prefix) const {
  std::vector<Found> found;
  for (const auto& r : readers_)
    for (const checkpoint::TensorEntry* e : r->FindWithPrefix(prefix))
      found.push_back({r.get(), e});
  return found;
}

Status CheckpointFiles(const std::string& prefix, std::vector<std::string>* files) {
  std::string file;
  AF_RETURN_IF_ERROR(ResolveCheckpointFile(prefix, &file));
  if (std::string_view(file).ends_with(".index"))
    return bundle::BundleFiles(file.substr(0, file.size() - 6), files);
  std::unique_ptr<CheckpointReader> index;
  if (CheckpointReader::Open(file, &index).ok() && index->Find(kShardListKey) != nullptr) {
    std::vector<std::string> shards;
    AF_RETURN_IF_ERROR(ReadShardList(*index, prefix, &shards));
    for (const std::string& shard : shards) files->push_back(checkpoint::DataFilePath(shard));
  }
  files->push_back(file);
  return Status::OK();
}

}  // namespace af
