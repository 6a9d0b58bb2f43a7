// TextLineReader(V2): one record per line, split at '\n' with a trailing
// '\r' dropped; the last line needs no newline. skip_header_lines lines are
// skipped at the start of every file. Key "<file>:<line number>", counting
// from 1 and including the skipped lines, as TensorFlow does. Its saved
// state holds the line number and the byte offset of the next line; a
// restore seeks there and checks that a line ends just before it.
#include <cstring>
#include <memory>
#include <string>

#include "core/io/input_stream.h"
#include "core/kernel_registry.h"
#include "kernels/io/reader_kernel.h"
#include "kernels/io/reader_state.h"

namespace af {
namespace {

constexpr size_t kReadChunk = 64 << 10;

class TextLineReader : public ReaderBase {
 public:
  TextLineReader(const std::string& node, int64_t skip_header_lines)
      : ReaderBase("TextLineReader '" + node + "'", "TextLineReader"),
        skip_header_lines_(skip_header_lines) {}

 protected:
  Status OnWorkStartedLocked() override {
    ClearFile();
    AF_RETURN_IF_ERROR(OpenInputStream(current_work(), Compression::kNone, &in_));
    std::string line;
    bool got = true;
    while (got && line_number_ < static_cast<uint64_t>(skip_header_lines_)) {
      AF_RETURN_IF_ERROR(ReadLine(&line, &got));
      if (got) ++line_number_;
    }
    return Status::OK();
  }
  Status OnWorkFinishedLocked() override {
    ClearFile();
    return Status::OK();
  }
  Status ReadLocked(std::string* key, std::string* value, bool* produced,
                    bool* at_end) override {
    bool got = false;
    AF_RETURN_IF_ERROR(ReadLine(value, &got));
    if (!got) {
      *at_end = true;
      return Status::OK();
    }
    *key = Key(++line_number_);
    *produced = true;
    return Status::OK();
  }
  Status ResetLocked() override {
    ClearFile();
    return ReaderBase::ResetLocked();
  }

  Status SavePositionLocked(ReaderPosition* position) override {
    if (in_ == nullptr) return errors::Internal(name(), ": no open file to save");
    position->record_index = line_number_;
    position->byte_offset = in_->position() - (buf_.size() - pos_);  // the unread bytes
    return Status::OK();
  }
  Status RestorePositionLocked(const std::string& work, const ReaderPosition& position) override {
    const uint64_t offset = position.byte_offset;
    if (offset > 0 && position.record_index == 0)
      return errors::InvalidArgument("the state is at byte ", offset, " but before line 1");
    std::unique_ptr<InputStream> in;
    AF_RETURN_IF_ERROR(OpenInputStream(work, Compression::kNone, &in));
    bool at_end = false;
    if (offset > 0) {
      // The byte before the position must end a line, unless the position
      // is the end of a file whose last line has no newline.
      AF_RETURN_IF_ERROR(SkipToSavedOffset(in.get(), offset - 1));
      char before = 0;
      size_t got = 0;
      AF_RETURN_IF_ERROR(in->Read(&before, 1, &got));
      if (got == 0) return CutBeforeSavedOffset(work, offset - 1, offset);
      if (before != '\n') {
        char after = 0;
        AF_RETURN_IF_ERROR(in->Read(&after, 1, &got));
        if (got != 0)
          return errors::InvalidArgument(work, ": byte ", offset,
                                         " does not start a line: the file changed after the "
                                         "state was saved");
        at_end = true;
      }
    }
    ClearFile();
    in_ = std::move(in);
    line_number_ = position.record_index;
    eof_ = at_end;
    return Status::OK();
  }

 private:
  void ClearFile() {
    in_.reset();
    buf_.clear();
    pos_ = 0;
    line_number_ = 0;
    eof_ = false;
  }

  // The next line without its '\n' (and a '\r' before it); *got false at
  // the end of the file.
  Status ReadLine(std::string* line, bool* got) {
    size_t scanned = pos_;  // no '\n' in [pos_, scanned)
    for (;;) {
      const void* nl = std::memchr(buf_.data() + scanned, '\n', buf_.size() - scanned);
      if (nl != nullptr) {
        const size_t end = static_cast<const char*>(nl) - buf_.data();
        TakeLine(end, end + 1, line);
        *got = true;
        return Status::OK();
      }
      scanned = buf_.size();
      if (eof_) break;
      if (pos_ > 0) {  // keep only the partial line
        buf_.erase(0, pos_);
        scanned -= pos_;
        pos_ = 0;
      }
      size_t n = 0;
      AF_RETURN_IF_ERROR(in_->ReadAppend(kReadChunk, &buf_, &n));
      if (n < kReadChunk) eof_ = true;
    }
    *got = pos_ < buf_.size();
    if (*got) TakeLine(buf_.size(), buf_.size(), line);
    return Status::OK();
  }

  void TakeLine(size_t end, size_t next, std::string* line) {
    size_t len = end - pos_;
    if (len > 0 && buf_[pos_ + len - 1] == '\r') --len;
    line->assign(buf_, pos_, len);
    pos_ = next;
  }

  const int64_t skip_header_lines_;
  std::unique_ptr<InputStream> in_;
  std::string buf_;
  size_t pos_ = 0;
  uint64_t line_number_ = 0;
  bool eof_ = false;
};

class TextLineReaderOp : public ReaderOpKernel {
 public:
  explicit TextLineReaderOp(OpKernelConstruction* ctx) : ReaderOpKernel(ctx, "TextLineReader") {
    int64_t skip = 0;
    ctx->SetStatus(ctx->GetAttr("skip_header_lines", &skip));
    if (skip < 0)
      ctx->SetStatus(errors::InvalidArgument("skip_header_lines must be >= 0, not ", skip));
    const std::string node = name();
    SetFactory([node, skip] { return new TextLineReader(node, skip); });
  }
};

}  // namespace

AF_REGISTER_READER_KERNEL("TextLineReader", TextLineReaderOp);

}  // namespace af
