// TFRecordReader(V2): one record per TFRecord frame, both CRCs checked;
// key "<file>:<offset of the record>" as TensorFlow writes it. Corruption or
// truncation is DATA_LOSS naming the file and the record's offset.
// Its saved state holds the offset of the next record; a restore reopens the
// file and skips to it (plain files seek; compressed ones are inflated from
// the start, since the inflater cannot seek).
#include <memory>
#include <string>

#include "core/io/input_stream.h"
#include "core/io/record_stream_reader.h"
#include "core/kernel_registry.h"
#include "kernels/io/reader_kernel.h"
#include "kernels/io/reader_state.h"

namespace af {
namespace {

class TFRecordReader : public ReaderBase {
 public:
  TFRecordReader(const std::string& node, Compression compression)
      : ReaderBase("TFRecordReader '" + node + "'", "TFRecordReader"), compression_(compression) {}

 protected:
  Status OnWorkStartedLocked() override {
    return RecordStreamReader::Open(current_work(), compression_, &records_);
  }
  Status OnWorkFinishedLocked() override {
    records_.reset();
    return Status::OK();
  }
  Status ReadLocked(std::string* key, std::string* value, bool* produced,
                    bool* at_end) override {
    const uint64_t offset = records_->offset();
    Status s = records_->ReadRecord(value);
    if (errors::IsOutOfRange(s)) {
      *at_end = true;
      return Status::OK();
    }
    AF_RETURN_IF_ERROR(s);
    *key = Key(offset);
    *produced = true;
    return Status::OK();
  }
  Status ResetLocked() override {
    records_.reset();
    return ReaderBase::ResetLocked();
  }

  std::string StateOptions() const override {
    return std::string("compression_type=") + CompressionName(compression_);
  }
  Status SavePositionLocked(ReaderPosition* position) override {
    if (records_ == nullptr) return errors::Internal(name(), ": no open file to save");
    position->byte_offset = records_->offset();
    return Status::OK();
  }
  Status RestorePositionLocked(const std::string& work, const ReaderPosition& position) override {
    std::unique_ptr<InputStream> in;
    AF_RETURN_IF_ERROR(OpenInputStream(work, compression_, &in));
    AF_RETURN_IF_ERROR(SkipToSavedOffset(in.get(), position.byte_offset));
    records_ = std::make_unique<RecordStreamReader>(std::move(in), position.byte_offset);
    return Status::OK();
  }

 private:
  const Compression compression_;
  std::unique_ptr<RecordStreamReader> records_;
};

class TFRecordReaderOp : public ReaderOpKernel {
 public:
  explicit TFRecordReaderOp(OpKernelConstruction* ctx) : ReaderOpKernel(ctx, "TFRecordReader") {
    std::string compression_type;
    ctx->SetStatus(ctx->GetAttr("compression_type", &compression_type));
    Compression compression = Compression::kNone;
    Status s = ParseCompression(compression_type, &compression);
    if (!s.ok()) ctx->SetStatus(errors::InvalidArgument("compression_type: ", s.message()));
    const std::string node = name();
    SetFactory([node, compression] { return new TFRecordReader(node, compression); });
  }
};

}  // namespace

AF_REGISTER_READER_KERNEL("TFRecordReader", TFRecordReaderOp);

}  // namespace af
