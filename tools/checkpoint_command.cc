// `actorflow checkpoint inspect DIR|PREFIX`: what a checkpoint holds, after
// checking every tensor against its checksum.
#include <algorithm>
#include <iomanip>
#include <memory>

#include "core/checkpoint_reader.h"
#include "core/checkpoint_state.h"
#include "tools/graph_summary.h"
#include "tools/subcommands.h"

namespace af::tools {
namespace {

constexpr std::string_view kUsage =
    "usage: actorflow checkpoint inspect DIR|PREFIX\n"
    "\n"
    "Lists the tensors of a checkpoint (name, dtype, shape, bytes) after verifying\n"
    "the file: header, index and every tensor's CRC32C. DIR means the latest\n"
    "checkpoint named by DIR/checkpoint; PREFIX is what SaveV2 was given (the file\n"
    "is PREFIX.afckpt) or a checkpoint file itself. A corrupt or truncated file\n"
    "prints DATA_LOSS and exits 1.\n";

void PrintCheckpoint(std::ostream& out, const CheckpointReader& reader) {
  const auto& entries = reader.entries();
  uint64_t total = 0;
  size_t name_width = 4, dtype_width = 5, shape_width = 5, bytes_width = 5;
  for (const auto& e : entries) {
    total += e.size;
    bytes_width = std::max(bytes_width,
                           WithThousandsSeparators(static_cast<int64_t>(e.size)).size());
    name_width = std::max(name_width, e.name.size());
    dtype_width = std::max(dtype_width, DataTypeString(e.dtype).size());
    shape_width = std::max(shape_width, e.shape.DebugString().size());
  }
  out << "checkpoint: " << reader.path() << "\n";
  out << "file size: " << WithThousandsSeparators(static_cast<int64_t>(reader.file_size()))
      << " bytes\n";
  out << "tensors: " << entries.size() << " (" << WithThousandsSeparators(static_cast<int64_t>(total))
      << " bytes of data, all checksums verified)\n";
  if (entries.empty()) return;
  auto row = [&](const std::string& name, const std::string& dtype, const std::string& shape,
                 const std::string& bytes) {
    out << "  " << std::left << std::setw(static_cast<int>(name_width)) << name << "  "
        << std::setw(static_cast<int>(dtype_width)) << dtype << "  "
        << std::setw(static_cast<int>(shape_width)) << shape << "  " << std::right
        << std::setw(static_cast<int>(bytes_width)) << bytes << "\n";
  };
  row("name", "dtype", "shape", "bytes");
  for (const auto& e : entries)
    row(e.name, DataTypeString(e.dtype), e.shape.DebugString(),
        WithThousandsSeparators(static_cast<int64_t>(e.size)));
}

int InspectCheckpoint(const std::string& where, std::ostream& out, std::ostream& err) {
  std::string file;
  Status s = ResolveCheckpointPath(where, &file);
  std::unique_ptr<CheckpointReader> reader;
  if (s.ok()) s = CheckpointReader::Open(file, &reader);
  if (s.ok()) s = reader->VerifyAll();
  if (!s.ok()) {
    err << "actorflow checkpoint inspect: " << s << "\n";
    return kExitError;
  }
  PrintCheckpoint(out, *reader);
  return kExitOk;
}

int CheckpointMain(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.size() != 2 || args[0] != "inspect") {
    err << kUsage;
    return kExitUsage;
  }
  return InspectCheckpoint(args[1], out, err);
}

}  // namespace

const Subcommand kCheckpointCommand = {"checkpoint",
                                       "list a checkpoint's tensors after verifying its checksums",
                                       kUsage, &CheckpointMain};

}  // namespace af::tools
