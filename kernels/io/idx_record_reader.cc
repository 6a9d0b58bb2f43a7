// IdxRecordReader(V2), an Actorflow extension (docs/decisions.md): reads the
// IDX files of MNIST and Fashion-MNIST, gunzipping *.gz files (or files
// starting with the gzip magic) on the fly. One record per item along the
// first dimension: key "<file>:<index>" (from 0), value = the item's raw
// bytes (28*28 for an image of idx3-ubyte, 1 for a label of idx1-ubyte).
// Multi-byte element types stay big-endian, as stored: decode them with
// DecodeRaw(little_endian=false).
//
// IDX layout: magic 00 00 <type> <number of dims>, then one big-endian
// uint32 per dim, then the data. A bad magic, a short header, missing items
// or bytes after the last item are DATA_LOSS naming the file.
//
// Its saved state holds the index of the next item; a restore reads the
// header again and skips to the item (gzipped files are inflated from the
// start).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "core/io/input_stream.h"
#include "core/kernel_registry.h"
#include "kernels/io/reader_kernel.h"
#include "kernels/io/reader_state.h"

namespace af {
namespace {

constexpr uint64_t kMaxItemBytes = uint64_t{1} << 30;

// Bytes per element of an IDX type code; 0 for an unknown code.
int IdxElementSize(unsigned char type) {
  switch (type) {
    case 0x08: return 1;  // unsigned byte
    case 0x09: return 1;  // signed byte
    case 0x0B: return 2;  // short
    case 0x0C: return 4;  // int
    case 0x0D: return 4;  // float
    case 0x0E: return 8;  // double
    default: return 0;
  }
}

uint32_t BigEndian32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

class IdxRecordReader : public ReaderBase {
 public:
  explicit IdxRecordReader(const std::string& node)
      : ReaderBase("IdxRecordReader '" + node + "'", "IdxRecordReader") {}

 protected:
  Status OnWorkStartedLocked() override {
    ClearFile();
    AF_RETURN_IF_ERROR(OpenMaybeGzipped(current_work(), &in_));
    AF_RETURN_IF_ERROR(ReadHeader(in_.get(), &items_, &item_bytes_));
    header_bytes_ = in_->position();
    return Status::OK();
  }
  Status OnWorkFinishedLocked() override {
    ClearFile();
    return Status::OK();
  }
  Status ReadLocked(std::string* key, std::string* value, bool* produced,
                    bool* at_end) override {
    // The stream cannot go back: after an error every read repeats it.
    AF_RETURN_IF_ERROR(failed_);
    Status s = ReadItem(key, value, produced, at_end);
    if (!s.ok()) failed_ = s;
    return s;
  }
  Status ResetLocked() override {
    ClearFile();
    return ReaderBase::ResetLocked();
  }

  Status SavePositionLocked(ReaderPosition* position) override {
    if (in_ == nullptr) return errors::Internal(name(), ": no open file to save");
    position->record_index = index_;
    position->byte_offset = header_bytes_ + index_ * item_bytes_;  // for people reading it
    return Status::OK();
  }
  Status RestorePositionLocked(const std::string& work, const ReaderPosition& position) override {
    std::unique_ptr<InputStream> in;
    AF_RETURN_IF_ERROR(OpenMaybeGzipped(work, &in));
    uint64_t items = 0, item_bytes = 0;
    AF_RETURN_IF_ERROR(ReadHeader(in.get(), &items, &item_bytes));
    const uint64_t index = position.record_index;
    if (index > items)
      return errors::InvalidArgument(work, " holds ", items, " IDX items, the state is at item ",
                                     index, ": the file changed after the state was saved");
    const uint64_t header_bytes = in->position();
    AF_RETURN_IF_ERROR(SkipToSavedOffset(in.get(), header_bytes + index * item_bytes));
    ClearFile();
    in_ = std::move(in);
    items_ = items;
    item_bytes_ = item_bytes;
    header_bytes_ = header_bytes;
    index_ = index;
    return Status::OK();
  }

 private:
  void ClearFile() {
    in_.reset();
    items_ = 0;
    item_bytes_ = 0;
    header_bytes_ = 0;
    index_ = 0;
    failed_ = Status::OK();
  }

  // Reads the header of `in`, a fresh stream.
  Status ReadHeader(InputStream* in, uint64_t* items, uint64_t* item_bytes) {
    const std::string& file = in->path();
    unsigned char magic[4];
    size_t got = 0;
    AF_RETURN_IF_ERROR(in->Read(reinterpret_cast<char*>(magic), 4, &got));
    if (got < 4) return errors::DataLoss(file, ": truncated IDX header (", got, " bytes)");
    const int element_size = IdxElementSize(magic[2]);
    const int dims = magic[3];
    if (magic[0] != 0 || magic[1] != 0 || element_size == 0 || dims == 0) {
      char hex[11];
      std::snprintf(hex, sizeof hex, "0x%08x", BigEndian32(magic));
      return errors::DataLoss(file, ": not an IDX file (magic ", hex,
                              "; expected 0x00000801 labels, 0x00000803 images, or another "
                              "IDX type and rank)");
    }
    unsigned char sizes[255 * 4];
    AF_RETURN_IF_ERROR(in->Read(reinterpret_cast<char*>(sizes), 4 * dims, &got));
    if (got < static_cast<size_t>(4 * dims))
      return errors::DataLoss(file, ": truncated IDX header (", dims, " dimensions announced)");
    *items = BigEndian32(sizes);
    *item_bytes = static_cast<uint64_t>(element_size);
    for (int d = 1; d < dims; ++d) {
      *item_bytes *= BigEndian32(sizes + 4 * d);
      if (*item_bytes > kMaxItemBytes)
        return errors::DataLoss(file, ": IDX items over ", kMaxItemBytes, " bytes");
    }
    return Status::OK();
  }

  Status ReadItem(std::string* key, std::string* value, bool* produced, bool* at_end) {
    const std::string& file = current_work();
    if (index_ == items_) {
      char extra;
      size_t got = 0;
      AF_RETURN_IF_ERROR(in_->Read(&extra, 1, &got));
      if (got != 0)
        return errors::DataLoss(file, ": bytes after the last of ", items_, " IDX items");
      *at_end = true;
      return Status::OK();
    }
    value->clear();
    size_t got = 0;
    AF_RETURN_IF_ERROR(in_->ReadAppend(static_cast<size_t>(item_bytes_), value, &got));
    if (got < item_bytes_)
      return errors::DataLoss(file, ": truncated IDX data: item ", index_, " of ", items_,
                              " has ", got, " of ", item_bytes_, " bytes");
    *key = Key(index_++);
    *produced = true;
    return Status::OK();
  }

  std::unique_ptr<InputStream> in_;
  uint64_t items_ = 0, item_bytes_ = 0, index_ = 0;
  uint64_t header_bytes_ = 0;  // magic and dimension sizes
  Status failed_;
};

class IdxRecordReaderOp : public ReaderOpKernel {
 public:
  explicit IdxRecordReaderOp(OpKernelConstruction* ctx) : ReaderOpKernel(ctx, "IdxRecordReader") {
    const std::string node = name();
    SetFactory([node] { return new IdxRecordReader(node); });
  }
};

}  // namespace

AF_REGISTER_READER_KERNEL("IdxRecordReader", IdxRecordReaderOp);

}  // namespace af
