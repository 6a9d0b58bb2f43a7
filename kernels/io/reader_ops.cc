// Kernels of the ops that use a reader: ReaderRead(V2), ReaderReadUpTo(V2)
// (async: they wait on the filename queue without holding a thread), the
// counters, ReaderReset(V2), the state ops ReaderSerializeState(V2) and
// ReaderRestoreState(V2) (format: kernels/io/reader_state.h) and ReadFile.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/io/input_stream.h"
#include "core/kernel_registry.h"
#include "kernels/io/reader_kernel.h"
#include "kernels/queue/queue_kernel_util.h"

namespace af {
namespace {

class ReaderReadOp : public AsyncOpKernel {
 public:
  explicit ReaderReadOp(OpKernelConstruction* ctx)
      : AsyncOpKernel(ctx), up_to_(ctx->num_inputs() == 3) {}

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    ResourceRef<ReaderBase> reader;
    OP_REQUIRES_OK_ASYNC(ctx, LookupReader(ctx, 0, &reader), done);
    ResourceRef<QueueInterface> queue;
    OP_REQUIRES_OK_ASYNC(ctx, queue_kernels::LookupQueue(ctx, 1, &queue), done);
    int64_t n = 1;
    if (up_to_) {
      const Tensor& t = ctx->input(2);
      OP_REQUIRES_ASYNC(ctx, t.dtype() == DT_INT64 && t.NumElements() == 1,
                        ctx->NodeError(errors::InvalidArgument(
                            "num_records must be an int64 scalar, got ", t.DebugString())),
                        done);
      n = t.data<int64_t>()[0];
      OP_REQUIRES_ASYNC(
          ctx, n >= 0, ctx->NodeError(errors::InvalidArgument("num_records must be >= 0, not ", n)),
          done);
      if (n == 0) {
        SetOutputs(ctx, {}, {});
        done();
        return;
      }
    }
    ReaderBase::Runner runner;
    if (ctx->runner() != nullptr) runner = *ctx->runner();
    reader->ReadAsync(
        std::move(queue), n, ctx->cancellation_manager(), std::move(runner),
        [this, ctx, done = std::move(done)](const Status& s, std::vector<std::string> keys,
                                            std::vector<std::string> values) {
          if (s.ok()) {
            SetOutputs(ctx, std::move(keys), std::move(values));
          } else {
            ctx->SetStatus(ctx->NodeError(s));
          }
          done();
        });
  }

 private:
  // Moves the strings into the outputs: the payloads are not copied.
  void SetOutputs(OpKernelContext* ctx, std::vector<std::string> keys,
                  std::vector<std::string> values) const {
    const TensorShape shape =
        up_to_ ? TensorShape{static_cast<int64_t>(keys.size())} : TensorShape{};
    OP_REQUIRES(ctx, up_to_ || keys.size() == 1,
                ctx->NodeError(errors::Internal("a read of one record produced ", keys.size())));
    Tensor* key_out = nullptr;
    Tensor* value_out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &key_out));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, shape, &value_out));
    for (size_t i = 0; i < keys.size(); ++i) {
      key_out->data<std::string>()[i] = std::move(keys[i]);
      value_out->data<std::string>()[i] = std::move(values[i]);
    }
  }

  const bool up_to_;
};

class ReaderCounterOp : public OpKernel {
 public:
  explicit ReaderCounterOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), records_(type_string().rfind("ReaderNumRecordsProduced", 0) == 0) {}

  void Compute(OpKernelContext* ctx) override {
    ResourceRef<ReaderBase> reader;
    OP_REQUIRES_OK(ctx, LookupReader(ctx, 0, &reader));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{}, &out));
    out->scalar<int64_t>() =
        records_ ? reader->NumRecordsProduced() : reader->NumWorkUnitsCompleted();
  }

 private:
  const bool records_;
};

class ReaderResetOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ResourceRef<ReaderBase> reader;
    OP_REQUIRES_OK(ctx, LookupReader(ctx, 0, &reader));
    OP_REQUIRES_OK(ctx, ctx->NodeError(reader->Reset()));
  }
};

class ReaderSerializeStateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ResourceRef<ReaderBase> reader;
    OP_REQUIRES_OK(ctx, LookupReader(ctx, 0, &reader));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{}, &out));
    OP_REQUIRES_OK(ctx, ctx->NodeError(reader->SerializeState(&out->scalar<std::string>())));
  }
};

class ReaderRestoreStateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ResourceRef<ReaderBase> reader;
    OP_REQUIRES_OK(ctx, LookupReader(ctx, 0, &reader));
    const Tensor& state = ctx->input(1);
    OP_REQUIRES(ctx, state.dtype() == DT_STRING && state.dims() == 0,
                ctx->NodeError(errors::InvalidArgument("state must be a string scalar, got ",
                                                       DataTypeString(state.dtype()), " ",
                                                       state.shape().DebugString())));
    OP_REQUIRES_OK(ctx, ctx->NodeError(reader->RestoreState(state.scalar<std::string>())));
  }
};

class ReadFileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& name = ctx->input(0);
    OP_REQUIRES(ctx, name.NumElements() == 1 && name.dims() == 0,
                ctx->NodeError(errors::InvalidArgument("filename must be a scalar, got shape ",
                                                       name.shape().DebugString())));
    std::unique_ptr<InputStream> in;
    OP_REQUIRES_OK(
        ctx, ctx->NodeError(OpenInputStream(name.scalar<std::string>(), Compression::kNone, &in)));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{}, &out));
    size_t got = 0;
    OP_REQUIRES_OK(ctx, ctx->NodeError(in->ReadAppend(std::numeric_limits<size_t>::max(),
                                                      &out->scalar<std::string>(), &got)));
  }
};

}  // namespace

// Reads do file I/O: they run on the device's pool.
#define AF_REGISTER_BOTH(NAME, KERNEL, EXPENSIVE)                                                  \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder(NAME).Device(DEVICE_CPU).Expensive(EXPENSIVE), KERNEL); \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder(NAME "V2").Device(DEVICE_CPU).Expensive(EXPENSIVE),     \
                          KERNEL)

AF_REGISTER_BOTH("ReaderRead", ReaderReadOp, true);
AF_REGISTER_BOTH("ReaderReadUpTo", ReaderReadOp, true);
AF_REGISTER_BOTH("ReaderNumRecordsProduced", ReaderCounterOp, false);
AF_REGISTER_BOTH("ReaderNumWorkUnitsCompleted", ReaderCounterOp, false);
AF_REGISTER_BOTH("ReaderReset", ReaderResetOp, false);
AF_REGISTER_BOTH("ReaderSerializeState", ReaderSerializeStateOp, false);
// A restore reopens a file and may inflate it up to the saved position.
AF_REGISTER_BOTH("ReaderRestoreState", ReaderRestoreStateOp, true);
#undef AF_REGISTER_BOTH

REGISTER_KERNEL_BUILDER(KernelDefBuilder("ReadFile").Device(DEVICE_CPU).Expensive(), ReadFileOp);

}  // namespace af
