#include "kernels/io/reader_state.h"

#include "core/crc32c.h"
#include "proto/reader_state.pb.h"

namespace af {
namespace {

constexpr char kMagic[] = "actorflow.ReaderState";
constexpr uint32_t kVersion = 1;

void AppendFixed64(uint64_t v, std::string* out) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void AppendString(const std::string& s, std::string* out) {
  AppendFixed64(s.size(), out);
  out->append(s);
}

// The CRC covers every field in one fixed, length-prefixed order rather than
// the proto's bytes, so it does not depend on how a serializer orders them.
uint32_t MaskedChecksum(const tensorflow::ActorflowReaderState& p) {
  std::string bytes;
  AppendString(p.magic(), &bytes);
  AppendFixed64(p.version(), &bytes);
  AppendString(p.reader_type(), &bytes);
  AppendString(p.options(), &bytes);
  AppendFixed64(static_cast<uint64_t>(p.work_started()), &bytes);
  AppendFixed64(static_cast<uint64_t>(p.work_finished()), &bytes);
  AppendFixed64(static_cast<uint64_t>(p.num_records_produced()), &bytes);
  AppendString(p.current_work(), &bytes);
  AppendFixed64(p.record_index(), &bytes);
  AppendFixed64(p.byte_offset(), &bytes);
  return crc32c::Mask(crc32c::Value(bytes));
}

}  // namespace

std::string EncodeReaderState(const ReaderState& state) {
  tensorflow::ActorflowReaderState p;
  p.set_magic(kMagic);
  p.set_version(kVersion);
  p.set_reader_type(state.reader_type);
  p.set_options(state.options);
  p.set_work_started(state.work_started);
  p.set_work_finished(state.work_finished);
  p.set_num_records_produced(state.num_records_produced);
  p.set_current_work(state.current_work);
  p.set_record_index(state.position.record_index);
  p.set_byte_offset(state.position.byte_offset);
  p.set_masked_crc32c(MaskedChecksum(p));
  return p.SerializeAsString();
}

Status DecodeReaderState(const std::string& bytes, ReaderState* state) {
  tensorflow::ActorflowReaderState p;
  if (!p.ParseFromString(bytes) || p.magic() != kMagic)
    return errors::InvalidArgument("the state (", bytes.size(),
                                   " bytes) is not a serialized reader state");
  // Before the CRC: another version may checksum other fields.
  if (p.version() == 0)
    return errors::InvalidArgument("the reader state (", bytes.size(),
                                   " bytes) is cut short (no version)");
  if (p.version() != kVersion)
    return errors::InvalidArgument("reader state version ", p.version(),
                                   " is not supported (this build reads version ", kVersion,
                                   ")");
  if (p.masked_crc32c() != MaskedChecksum(p))
    return errors::InvalidArgument("the reader state (", bytes.size(),
                                   " bytes) is damaged or cut short (CRC mismatch)");
  const int64_t started = p.work_started(), finished = p.work_finished();
  if (started < 0 || finished < 0 || p.num_records_produced() < 0 || finished > started ||
      started - finished > 1)
    return errors::InvalidArgument("the reader state has impossible counters: ", started,
                                   " work units started, ", finished, " finished, ",
                                   p.num_records_produced(), " records produced");
  state->reader_type = p.reader_type();
  state->options = p.options();
  state->work_started = started;
  state->work_finished = finished;
  state->num_records_produced = p.num_records_produced();
  state->current_work = p.current_work();
  state->position.record_index = p.record_index();
  state->position.byte_offset = p.byte_offset();
  return Status::OK();
}

const char* CompressionName(Compression compression) {
  switch (compression) {
    case Compression::kZlib: return "ZLIB";
    case Compression::kGzip: return "GZIP";
    case Compression::kNone: break;
  }
  return "";
}

Status SkipToSavedOffset(InputStream* in, uint64_t offset) {
  const uint64_t here = in->position();
  if (offset < here)
    return errors::Internal(in->path(), ": cannot skip back from ", here, " to ", offset);
  uint64_t skipped = 0;
  AF_RETURN_IF_ERROR(in->Skip(offset - here, &skipped));
  if (here + skipped < offset)
    return CutBeforeSavedOffset(in->path(), here + skipped, offset);
  return Status::OK();
}

Status CutBeforeSavedOffset(const std::string& file, uint64_t size, uint64_t offset) {
  return errors::DataLoss(file, " ends after ", size, " bytes, before the saved position ",
                          offset, ": it was cut or replaced after the state was saved");
}

}  // namespace af
