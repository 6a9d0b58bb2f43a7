// FixedLengthRecordReader(V2): after header_bytes, record k is the
// record_bytes starting at header_bytes + k * hop_bytes (hop 0 = record_bytes,
// so records are back to back), for every record that ends before the last
// footer_bytes. Leftover bytes too few for a record are skipped, as in
// TensorFlow. Key "<file>:<record number>". With encoding "ZLIB"/"GZIP" the
// offsets count decompressed bytes. Its saved state holds the record number
// k; a restore skips to header_bytes + k * hop and checks that the records
// already read are still in the file.
#include <algorithm>
#include <memory>
#include <string>

#include "core/io/input_stream.h"
#include "core/kernel_registry.h"
#include "kernels/io/reader_kernel.h"
#include "kernels/io/reader_state.h"

namespace af {
namespace {

constexpr size_t kReadChunk = 64 << 10;

struct FixedLengthLayout {
  int64_t header = 0, record = 0, footer = 0, hop = 0;
  Compression compression = Compression::kNone;
};

class FixedLengthRecordReader : public ReaderBase {
 public:
  FixedLengthRecordReader(const std::string& node, FixedLengthLayout layout)
      : ReaderBase("FixedLengthRecordReader '" + node + "'", "FixedLengthRecordReader"),
        layout_(layout) {}

 protected:
  Status OnWorkStartedLocked() override {
    ClearFile();
    AF_RETURN_IF_ERROR(OpenInputStream(current_work(), layout_.compression, &in_));
    uint64_t skipped = 0;
    AF_RETURN_IF_ERROR(in_->Skip(static_cast<uint64_t>(layout_.header), &skipped));
    eof_ = skipped < static_cast<uint64_t>(layout_.header);
    return Status::OK();
  }
  Status OnWorkFinishedLocked() override {
    ClearFile();
    return Status::OK();
  }
  Status ReadLocked(std::string* key, std::string* value, bool* produced,
                    bool* at_end) override {
    // A record counts only if the footer still fits after it.
    const size_t need = static_cast<size_t>(layout_.record + layout_.footer);
    AF_RETURN_IF_ERROR(Fill(need));
    if (buf_.size() - pos_ < need) {
      *at_end = true;
      return Status::OK();
    }
    value->assign(buf_, pos_, static_cast<size_t>(layout_.record));
    *key = Key(record_number_++);
    *produced = true;
    pos_ += static_cast<size_t>(layout_.hop > 0 ? layout_.hop : layout_.record);
    return Status::OK();
  }
  Status ResetLocked() override {
    ClearFile();
    return ReaderBase::ResetLocked();
  }

  std::string StateOptions() const override {
    return "header_bytes=" + std::to_string(layout_.header) +
           ",record_bytes=" + std::to_string(layout_.record) +
           ",footer_bytes=" + std::to_string(layout_.footer) +
           ",hop_bytes=" + std::to_string(layout_.hop) +
           ",encoding=" + CompressionName(layout_.compression);
  }
  Status SavePositionLocked(ReaderPosition* position) override {
    if (in_ == nullptr) return errors::Internal(name(), ": no open file to save");
    position->record_index = record_number_;
    // For people reading the state; a restore computes it from the index.
    position->byte_offset = static_cast<uint64_t>(layout_.header) + record_number_ * Step();
    return Status::OK();
  }
  Status RestorePositionLocked(const std::string& work, const ReaderPosition& position) override {
    // Record k starts at header + k * step; the k records read before must
    // all be there, footer included.
    const uint64_t k = position.record_index, step = Step();
    const uint64_t header = static_cast<uint64_t>(layout_.header);
    if (k > (uint64_t{1} << 62) / step)
      return errors::InvalidArgument("record number ", k, " is out of range");
    const uint64_t start = header + k * step;
    uint64_t read_end = 0;
    if (k > 0)
      read_end = start - step + static_cast<uint64_t>(layout_.record) +
                 static_cast<uint64_t>(layout_.footer);
    std::unique_ptr<InputStream> in;
    AF_RETURN_IF_ERROR(OpenInputStream(work, layout_.compression, &in));
    uint64_t skipped = 0;
    AF_RETURN_IF_ERROR(in->Skip(start, &skipped));
    if (skipped < start && skipped < read_end)
      return CutBeforeSavedOffset(work, skipped, read_end);
    // When the last record read (or its footer) reaches past the next
    // record's start, those bytes are read now, so that a cut file is found
    // here; they start the buffer.
    std::string buf;
    if (skipped == start && read_end > start) {
      size_t got = 0;
      AF_RETURN_IF_ERROR(in->ReadAppend(static_cast<size_t>(read_end - start), &buf, &got));
      if (got < read_end - start) return CutBeforeSavedOffset(work, start + got, read_end);
    }
    ClearFile();
    in_ = std::move(in);
    buf_ = std::move(buf);
    record_number_ = k;
    eof_ = skipped < start;  // a hop past the end: no record follows
    return Status::OK();
  }

 private:
  uint64_t Step() const {
    return static_cast<uint64_t>(layout_.hop > 0 ? layout_.hop : layout_.record);
  }

  void ClearFile() {
    in_.reset();
    buf_.clear();
    pos_ = 0;
    record_number_ = 0;
    eof_ = false;
  }

  // Makes `need` bytes from pos_ available unless the stream ends first.
  // pos_ may lie past the buffer (a hop longer than the record): those
  // bytes are skipped in the stream.
  Status Fill(size_t need) {
    if (pos_ > buf_.size()) {
      const uint64_t gap = pos_ - buf_.size();
      buf_.clear();
      pos_ = 0;
      uint64_t skipped = 0;
      if (!eof_) AF_RETURN_IF_ERROR(in_->Skip(gap, &skipped));
      if (skipped < gap) eof_ = true;
    } else if (pos_ > kReadChunk && pos_ * 2 > buf_.size()) {
      buf_.erase(0, pos_);  // keep the buffer from growing with the file
      pos_ = 0;
    }
    while (!eof_ && buf_.size() - pos_ < need) {
      const size_t want = std::max(need - (buf_.size() - pos_), kReadChunk);
      size_t got = 0;
      AF_RETURN_IF_ERROR(in_->ReadAppend(want, &buf_, &got));
      if (got < want) eof_ = true;
    }
    return Status::OK();
  }

  const FixedLengthLayout layout_;
  std::unique_ptr<InputStream> in_;
  std::string buf_;
  size_t pos_ = 0;
  uint64_t record_number_ = 0;
  bool eof_ = false;
};

class FixedLengthRecordReaderOp : public ReaderOpKernel {
 public:
  explicit FixedLengthRecordReaderOp(OpKernelConstruction* ctx)
      : ReaderOpKernel(ctx, "FixedLengthRecordReader") {
    FixedLengthLayout layout;
    ctx->SetStatus(ctx->GetAttr("header_bytes", &layout.header));
    ctx->SetStatus(ctx->GetAttr("record_bytes", &layout.record));
    ctx->SetStatus(ctx->GetAttr("footer_bytes", &layout.footer));
    ctx->SetStatus(ctx->GetAttr("hop_bytes", &layout.hop));
    if (layout.header < 0)
      ctx->SetStatus(errors::InvalidArgument("header_bytes must be >= 0, not ", layout.header));
    if (layout.record <= 0)
      ctx->SetStatus(errors::InvalidArgument("record_bytes must be > 0, not ", layout.record));
    if (layout.footer < 0)
      ctx->SetStatus(errors::InvalidArgument("footer_bytes must be >= 0, not ", layout.footer));
    if (layout.hop < 0)
      ctx->SetStatus(errors::InvalidArgument("hop_bytes must be >= 0, not ", layout.hop));
    if (ctx->HasAttr("encoding")) {  // the V2 op only
      std::string encoding;
      ctx->SetStatus(ctx->GetAttr("encoding", &encoding));
      Status s = ParseCompression(encoding, &layout.compression);
      if (!s.ok()) ctx->SetStatus(errors::InvalidArgument("encoding: ", s.message()));
    }
    const std::string node = name();
    SetFactory([node, layout] { return new FixedLengthRecordReader(node, layout); });
  }
};

}  // namespace

AF_REGISTER_READER_KERNEL("FixedLengthRecordReader", FixedLengthRecordReaderOp);

}  // namespace af
