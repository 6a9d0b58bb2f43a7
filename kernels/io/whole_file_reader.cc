// WholeFileReader(V2): one record per file, key = the filename, value = its
// contents. IdentityReader(V2): one record per work string, key = value =
// the string. Both finish their work unit with their one record, so their
// saved state is the counters (and a unit whose read failed, which the next
// read after a restore tries again).
#include <limits>
#include <memory>
#include <string>

#include "core/io/input_stream.h"
#include "core/kernel_registry.h"
#include "kernels/io/reader_kernel.h"
#include "kernels/io/reader_state.h"

namespace af {
namespace {

class WholeFileReader : public ReaderBase {
 public:
  explicit WholeFileReader(const std::string& node)
      : ReaderBase("WholeFileReader '" + node + "'", "WholeFileReader") {}

 protected:
  Status ReadLocked(std::string* key, std::string* value, bool* produced,
                    bool* at_end) override {
    std::unique_ptr<InputStream> in;
    AF_RETURN_IF_ERROR(OpenInputStream(current_work(), Compression::kNone, &in));
    value->clear();
    size_t got = 0;
    AF_RETURN_IF_ERROR(in->ReadAppend(std::numeric_limits<size_t>::max(), value, &got));
    *key = current_work();
    *produced = true;
    *at_end = true;
    return Status::OK();
  }

  Status SavePositionLocked(ReaderPosition*) override { return Status::OK(); }
  Status RestorePositionLocked(const std::string&, const ReaderPosition&) override {
    return Status::OK();
  }
};

class IdentityReader : public ReaderBase {
 public:
  explicit IdentityReader(const std::string& node)
      : ReaderBase("IdentityReader '" + node + "'", "IdentityReader") {}

 protected:
  Status ReadLocked(std::string* key, std::string* value, bool* produced,
                    bool* at_end) override {
    *key = current_work();
    *value = current_work();
    *produced = true;
    *at_end = true;
    return Status::OK();
  }

  Status SavePositionLocked(ReaderPosition*) override { return Status::OK(); }
  Status RestorePositionLocked(const std::string&, const ReaderPosition&) override {
    return Status::OK();
  }
};

class WholeFileReaderOp : public ReaderOpKernel {
 public:
  explicit WholeFileReaderOp(OpKernelConstruction* ctx) : ReaderOpKernel(ctx, "WholeFileReader") {
    const std::string node = name();
    SetFactory([node] { return new WholeFileReader(node); });
  }
};

class IdentityReaderOp : public ReaderOpKernel {
 public:
  explicit IdentityReaderOp(OpKernelConstruction* ctx) : ReaderOpKernel(ctx, "IdentityReader") {
    const std::string node = name();
    SetFactory([node] { return new IdentityReader(node); });
  }
};

}  // namespace

AF_REGISTER_READER_KERNEL("WholeFileReader", WholeFileReaderOp);
AF_REGISTER_READER_KERNEL("IdentityReader", IdentityReaderOp);

}  // namespace af
