#include "core/bundle/table.h"

#include <algorithm>

#include "core/bundle/coding.h"
#include "core/bundle/snappy.h"
#include "core/crc32c.h"

namespace af::bundle {
namespace {

Status Corrupt(const std::string& what) { return errors::DataLoss("corrupt table: ", what); }

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;
};

bool DecodeHandle(std::string_view* in, BlockHandle* h) {
  return GetVarint64(in, &h->offset) && GetVarint64(in, &h->size);
}

// The block's contents after checking its trailer and uncompressing.
Status ReadBlock(std::string_view file, const BlockHandle& h, const char* what,
                 std::string* contents) {
  const uint64_t limit = file.size() - kTableFooterSize;
  if (h.offset > limit || h.size > limit - h.offset ||
      kBlockTrailerSize > limit - h.offset - h.size)
    return Corrupt(std::string(what) + " block lies outside the file");
  const std::string_view raw = file.substr(h.offset, h.size + 1);  // with the type byte
  const uint32_t stored = DecodeFixed32(file.data() + h.offset + h.size + 1);
  if (crc32c::Unmask(stored) != crc32c::Value(raw))
    return Corrupt(std::string(what) + " block checksum mismatch");
  const char type = raw.back();
  if (type == kNoCompression) {
    contents->assign(raw.data(), h.size);
    return Status::OK();
  }
  if (type == kSnappyCompression) {
    Status s = SnappyUncompress(raw.substr(0, h.size), contents);
    if (!s.ok()) return Corrupt(std::string(what) + " block: " + std::string(s.message()));
    return Status::OK();
  }
  return Corrupt(std::string(what) + " block has unknown compression type " +
                 std::to_string(static_cast<unsigned char>(type)));
}

}  // namespace

TableBuilder::TableBuilder(TableOptions options)
    : options_(options), data_block_(options.restart_interval), index_block_(1) {}

void ShortestSeparator(std::string* start, std::string_view limit) {
  const size_t n = std::min(start->size(), limit.size());
  size_t diff = 0;
  while (diff < n && (*start)[diff] == limit[diff]) ++diff;
  if (diff >= n) return;  // one is a prefix of the other
  const auto byte = static_cast<unsigned char>((*start)[diff]);
  if (byte < 0xff && byte + 1 < static_cast<unsigned char>(limit[diff])) {
    (*start)[diff] = static_cast<char>(byte + 1);
    start->resize(diff + 1);
  }
}

void ShortSuccessor(std::string* key) {
  for (size_t i = 0; i < key->size(); ++i) {
    const auto byte = static_cast<unsigned char>((*key)[i]);
    if (byte != 0xff) {
      (*key)[i] = static_cast<char>(byte + 1);
      key->resize(i + 1);
      return;
    }
  }
  // All 0xff: the key is its own shortest successor.
}

void TableBuilder::WriteBlock(BlockBuilder* block, uint64_t* offset, uint64_t* size) {
  const std::string_view raw = block->Finish();
  *offset = out_.size();
  *size = raw.size();
  out_.append(raw);
  out_.push_back(kNoCompression);
  const uint32_t crc = crc32c::Value(out_.data() + *offset, raw.size() + 1);
  PutFixed32(&out_, crc32c::Mask(crc));
  block->Reset();
}

void TableBuilder::FlushDataBlock() {
  if (data_block_.empty()) return;
  WriteBlock(&data_block_, &pending_offset_, &pending_size_);
  pending_index_entry_ = true;
}

void TableBuilder::Add(std::string_view key, std::string_view value) {
  if (pending_index_entry_) {
    // The index key only has to separate this block from the next one.
    ShortestSeparator(&last_key_, key);
    std::string handle;
    PutVarint64(&handle, pending_offset_);
    PutVarint64(&handle, pending_size_);
    index_block_.Add(last_key_, handle);
    pending_index_entry_ = false;
  }
  last_key_.assign(key.data(), key.size());
  data_block_.Add(key, value);
  if (data_block_.CurrentSizeEstimate() >= options_.block_size) FlushDataBlock();
}

std::string TableBuilder::Finish() {
  FlushDataBlock();
  BlockBuilder metaindex(options_.restart_interval);
  uint64_t meta_offset, meta_size, index_offset, index_size;
  WriteBlock(&metaindex, &meta_offset, &meta_size);
  if (pending_index_entry_) {
    ShortSuccessor(&last_key_);
    std::string handle;
    PutVarint64(&handle, pending_offset_);
    PutVarint64(&handle, pending_size_);
    index_block_.Add(last_key_, handle);
    pending_index_entry_ = false;
  }
  WriteBlock(&index_block_, &index_offset, &index_size);
  std::string footer;
  PutVarint64(&footer, meta_offset);
  PutVarint64(&footer, meta_size);
  PutVarint64(&footer, index_offset);
  PutVarint64(&footer, index_size);
  footer.resize(kTableFooterSize - 8, '\0');
  PutFixed64(&footer, kTableMagic);
  out_ += footer;
  return std::move(out_);
}

Status ReadTable(std::string_view file, std::vector<KeyValue>* out) {
  if (file.size() < kTableFooterSize)
    return Corrupt("file of " + std::to_string(file.size()) + " bytes is shorter than a footer");
  const std::string_view footer = file.substr(file.size() - kTableFooterSize);
  if (DecodeFixed64(footer.data() + kTableFooterSize - 8) != kTableMagic)
    return Corrupt("bad magic number (not a table, or truncated)");
  std::string_view handles = footer.substr(0, kTableFooterSize - 8);
  BlockHandle meta, index;
  if (!DecodeHandle(&handles, &meta) || !DecodeHandle(&handles, &index))
    return Corrupt("bad block handles in the footer");
  std::string contents;
  AF_RETURN_IF_ERROR(ReadBlock(file, meta, "metaindex", &contents));
  AF_RETURN_IF_ERROR(ReadBlock(file, index, "index", &contents));
  std::vector<KeyValue> index_entries;
  AF_RETURN_IF_ERROR(DecodeBlock(contents, &index_entries));
  out->clear();
  uint64_t next_free = 0;  // data blocks are sequential and disjoint
  for (const KeyValue& entry : index_entries) {
    std::string_view value = entry.second;
    BlockHandle h;
    if (!DecodeHandle(&value, &h) || !value.empty())
      return Corrupt("bad block handle in the index");
    if (h.offset < next_free) return Corrupt("data blocks overlap");
    AF_RETURN_IF_ERROR(ReadBlock(file, h, "data", &contents));
    next_free = h.offset + h.size + kBlockTrailerSize;  // in the file: no overflow
    const size_t before = out->size();
    AF_RETURN_IF_ERROR(DecodeBlock(contents, out));
    if (before > 0 && out->size() > before && (*out)[before].first <= (*out)[before - 1].first)
      return Corrupt("keys out of order across blocks");
    if (out->size() > before && out->back().first > entry.first)
      return Corrupt("a data block holds keys beyond its index key");
  }
  return Status::OK();
}

}  // namespace af::bundle
