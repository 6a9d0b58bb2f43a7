// `actorflow checkpoint inspect|convert`: what a checkpoint holds (after
// checking every tensor against its checksum), one tensor's value, and
// conversion between TensorFlow's tensor bundle and .afckpt.
#include <algorithm>
#include <map>
#include <memory>

#include "core/attr_value_util.h"
#include "core/bundle/bundle_format.h"
#include "core/bundle/bundle_reader.h"
#include "core/bundle/bundle_writer.h"
#include "core/checkpoint_reader.h"
#include "core/checkpoint_shards.h"
#include "core/checkpoint_slices.h"
#include "core/checkpoint_state.h"
#include "core/checkpoint_write_format.h"
#include "core/checkpoint_writer.h"
#include "core/npy.h"
#include "tools/flags.h"
#include "tools/graph_summary.h"
#include "tools/numpy_print.h"
#include "tools/subcommands.h"

namespace af::tools {
namespace {

constexpr std::string_view kUsage =
    "usage: actorflow checkpoint inspect DIR|PREFIX [--tensor NAME [--out FILE.npy]]\n"
    "       actorflow checkpoint convert SRC DST [--format bundle|afckpt]\n"
    "\n"
    "inspect verifies a checkpoint (index and every tensor's CRC32C) and lists its\n"
    "tensors as TensorFlow's inspect_checkpoint does, one \"name (DT_TYPE) [shape]\"\n"
    "per line; a partitioned variable appears once, with its full shape. DIR means\n"
    "the latest checkpoint named by DIR/checkpoint; PREFIX is what SaveV2 was given:\n"
    "TensorFlow's tensor bundle (PREFIX.index + PREFIX.data-*) or PREFIX.afckpt, or\n"
    "a checkpoint file itself. --tensor prints one tensor's value (a partitioned one\n"
    "assembled from its slices) as numpy does; --out also writes it as a .npy file.\n"
    "\n"
    "convert reads SRC (any checkpoint, as inspect takes it) and writes all its\n"
    "tensors, slices kept as slices, to DST: a tensor bundle at prefix DST, or\n"
    "DST.afckpt. The format is --format, else the .afckpt suffix of DST (written as\n"
    "that file), else a bundle (DST.index names the bundle's prefix DST too).\n"
    "\n"
    "A corrupt or truncated file prints DATA_LOSS and exits 1.\n";

// The prefix (or file) a DIR|PREFIX|FILE argument designates, for
// CheckpointSet::Open.
Status ResolvePrefix(const std::string& where, std::string* prefix) {
  std::string file;
  AF_RETURN_IF_ERROR(ResolveCheckpointPath(where, &file));
  if (std::string_view(file).ends_with(bundle::kIndexSuffix)) {
    *prefix = file.substr(0, file.size() - bundle::kIndexSuffix.size());
  } else if (std::string_view(file).ends_with(checkpoint::kFileSuffix)) {
    *prefix = file.substr(0, file.size() - checkpoint::kFileSuffix.size());
  } else {
    *prefix = file;
  }
  return Status::OK();
}

struct Listed {
  DataType dtype = DT_INVALID;
  std::vector<int64_t> shape;
};

// Every tensor once, a partitioned one under its own name with its full
// shape (what TensorFlow's reader shows).
std::map<std::string, Listed> ListTensors(const CheckpointSet& set) {
  std::map<std::string, Listed> out;
  for (const auto& reader : set.readers()) {
    if (const bundle::BundleReader* b = reader->bundle()) {
      for (const auto& t : b->listing()) out[t.name] = {t.dtype, t.shape.dim_vector()};
      continue;
    }
    for (const auto& e : reader->entries()) {
      const size_t at = e.name.find(kSliceKeyMarker);
      TensorSliceSpec slice;
      if (at != std::string::npos &&
          ParseTensorSliceSpec(std::string_view(e.name).substr(at + 1), &slice).ok()) {
        out[e.name.substr(0, at)] = {e.dtype, slice.full_shape};
      } else {
        out[e.name] = {e.dtype, e.shape.dim_vector()};
      }
    }
  }
  return out;
}

std::string ShapeText(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

Status ReadWhole(const CheckpointSet& set, const std::string& name, DataType dtype, Tensor* out) {
  SliceRestorePlan plan;
  AF_RETURN_IF_ERROR(PlanSliceRestore(set, name, "", dtype, &plan));
  return ExecuteSliceRestore(plan, nullptr, out);
}

int Inspect(const std::string& where, const std::vector<Flag>& flags, std::ostream& out,
            std::ostream& err) {
  std::string tensor_name, npy_out;
  for (const Flag& f : flags) (f.name == "--tensor" ? tensor_name : npy_out) = f.value;
  auto fail = [&](const Status& s) {
    err << "actorflow checkpoint inspect: " << s << "\n";
    return kExitError;
  };
  if (!npy_out.empty() && tensor_name.empty())
    return fail(errors::InvalidArgument("--out needs --tensor NAME"));
  std::string prefix;
  Status s = ResolvePrefix(where, &prefix);
  std::unique_ptr<CheckpointSet> set;
  if (s.ok()) s = CheckpointSet::Open(prefix, &set);
  if (!s.ok()) return fail(s);
  const std::map<std::string, Listed> tensors = ListTensors(*set);
  if (!tensor_name.empty()) {
    auto it = tensors.find(tensor_name);
    if (it == tensors.end())
      return fail(errors::NotFound("Key ", tensor_name, " not found in checkpoint ", set->path()));
    Tensor t;
    s = ReadWhole(*set, tensor_name, it->second.dtype, &t);
    if (s.ok() && !npy_out.empty()) s = WriteNpy(npy_out, t);
    if (!s.ok()) return fail(s);
    out << "tensor_name:  " << tensor_name << "\n" << NumpyString(t) << "\n";
    if (!npy_out.empty()) out << "written to " << npy_out << "\n";
    return kExitOk;
  }
  uint64_t data_bytes = 0, file_bytes = 0;
  std::string format;
  for (const auto& reader : set->readers()) {
    s = reader->VerifyAll();
    if (!s.ok()) return fail(s);
    for (const auto& e : reader->entries()) data_bytes += e.size;
    file_bytes += reader->file_size();
    if (const bundle::BundleReader* b = reader->bundle())
      format = "tensor bundle, " + std::to_string(b->num_shards()) + " data file" +
               (b->num_shards() == 1 ? "" : "s");
  }
  if (format.empty())
    format = set->shards().empty() ? "afckpt"
                                   : "afckpt, " + std::to_string(set->shards().size()) + " shards";
  out << "checkpoint: " << set->path() << " (" << format << ")\n";
  out << "tensors: " << tensors.size() << " ("
      << WithThousandsSeparators(static_cast<int64_t>(data_bytes))
      << " bytes of data, all checksums verified)\n";
  for (const auto& [name, t] : tensors)
    out << name << " (" << DataTypeEnumName(t.dtype) << ") " << ShapeText(t.shape) << "\n";
  return kExitOk;
}

int Convert(const std::string& src, const std::string& dst, const std::vector<Flag>& flags,
            std::ostream& out, std::ostream& err) {
  auto fail = [&](const Status& s) {
    err << "actorflow checkpoint convert: " << s << "\n";
    return kExitError;
  };
  CheckpointWriteFormat format = CheckpointWriteFormat::kBundle;
  std::string dst_prefix = dst;
  if (std::string_view(dst).ends_with(checkpoint::kFileSuffix)) {
    format = CheckpointWriteFormat::kAfckpt;
    dst_prefix = dst.substr(0, dst.size() - checkpoint::kFileSuffix.size());
  } else if (std::string_view(dst).ends_with(bundle::kIndexSuffix)) {
    dst_prefix = dst.substr(0, dst.size() - bundle::kIndexSuffix.size());
  }
  for (const Flag& f : flags) {
    Status s = ParseCheckpointWriteFormat(f.value, &format);
    if (!s.ok()) return fail(s);
  }
  std::string prefix;
  Status s = ResolvePrefix(src, &prefix);
  std::unique_ptr<CheckpointSet> set;
  if (s.ok()) s = CheckpointSet::Open(prefix, &set);
  if (!s.ok()) return fail(s);
  std::unique_ptr<bundle::BundleWriter> bundle_writer;
  std::unique_ptr<CheckpointWriter> afckpt_writer;
  const std::string written = format == CheckpointWriteFormat::kBundle
                                  ? bundle::MetaFilename(dst_prefix)
                                  : checkpoint::DataFilePath(dst_prefix);
  s = CreateParentDirectories(written);
  if (s.ok())
    s = format == CheckpointWriteFormat::kBundle
            ? bundle::BundleWriter::Create(dst_prefix, &bundle_writer)
            : CheckpointWriter::Create(written, &afckpt_writer);
  int64_t count = 0;
  for (const auto& reader : set->readers()) {
    for (const auto& e : reader->entries()) {
      if (!s.ok()) break;
      if (reader->bundle() == nullptr && e.name == kShardListKey && !set->shards().empty())
        continue;  // the .afckpt shard list is layout, not a tensor
      Tensor t;
      s = reader->Read(e, nullptr, &t);
      if (!s.ok()) break;
      ++count;
      const size_t at = e.name.find(kSliceKeyMarker);
      if (afckpt_writer != nullptr || at == std::string::npos) {
        s = afckpt_writer != nullptr ? afckpt_writer->Add(e.name, t)
                                     : bundle_writer->Add(e.name, t);
        continue;
      }
      TensorSliceSpec slice;
      s = ParseTensorSliceSpec(std::string_view(e.name).substr(at + 1), &slice);
      if (s.ok()) s = bundle_writer->AddSlice(e.name.substr(0, at), slice, t);
    }
  }
  if (s.ok()) s = afckpt_writer != nullptr ? afckpt_writer->Finish() : bundle_writer->Finish();
  if (!s.ok()) return fail(s);
  out << "converted " << count << " tensors from " << set->path() << " to " << written << "\n";
  return kExitOk;
}

int CheckpointMain(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.size() < 2 || (args[0] != "inspect" && args[0] != "convert") ||
      (args[0] == "convert" && args.size() < 3)) {
    err << kUsage;
    return kExitUsage;
  }
  const size_t positional = args[0] == "inspect" ? 2 : 3;
  std::vector<Flag> flags;
  Status s = ParseFlags(Args(args.begin() + static_cast<std::ptrdiff_t>(positional), args.end()),
                        {}, &flags);
  for (const Flag& f : flags) {
    const bool known =
        args[0] == "inspect" ? (f.name == "--tensor" || f.name == "--out") : f.name == "--format";
    if (!known && s.ok()) s = errors::InvalidArgument("unknown flag ", f.name);
  }
  if (!s.ok()) {
    err << "actorflow checkpoint: " << s << "\n" << kUsage;
    return kExitUsage;
  }
  if (args[0] == "inspect") return Inspect(args[1], flags, out, err);
  return Convert(args[1], args[2], flags, out, err);
}

}  // namespace

const Subcommand kCheckpointCommand = {
    "checkpoint", "list, print or convert a checkpoint (TensorFlow's bundle or .afckpt)", kUsage,
    &CheckpointMain};

}  // namespace af::tools
