// CheckNumerics and Print: both pass their first input through unchanged
// (sharing its buffer); CheckNumerics fails on NaN/Inf, Print writes to
// stderr (at most first_n times, summarize values per tensor).
#include <atomic>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/kernel_registry.h"
#include "core/logging.h"
#include "core/op_kernel.h"

namespace af {
namespace {

template <typename T>
class CheckNumericsOp : public OpKernel {
 public:
  explicit CheckNumericsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("message", &message_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    bool nan = false, inf = false;
    const T* p = in.data<T>();
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      const double v = static_cast<double>(p[i]);
      nan |= std::isnan(v);
      inf |= std::isinf(v);
    }
    if (nan || inf) {
      const char* what = nan && inf ? "Inf and NaN" : nan ? "NaN" : "Inf";
      ctx->SetStatus(ctx->NodeError(
          errors::InvalidArgument(message_, " : Tensor had ", what, " values")));
      return;
    }
    ctx->forward_input_as_output(0, 0);
  }

 private:
  std::string message_;
};

class PrintOp : public OpKernel {
 public:
  explicit PrintOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("message", &message_));
    ctx->SetStatus(ctx->GetAttr("first_n", &first_n_));
    ctx->SetStatus(ctx->GetAttr("summarize", &summarize_));
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->forward_input_as_output(0, 0);
    if (first_n_ >= 0 && printed_.fetch_add(1) >= first_n_) return;
    std::string line = message_;
    for (int i = 1; i < ctx->num_inputs(); ++i)
      line += "[" + ctx->input(i).DebugString(static_cast<int>(summarize_)) + "]";
    AF_LOG(INFO) << line;
  }

 private:
  std::string message_;
  int64_t first_n_ = -1;
  int64_t summarize_ = 3;
  std::atomic<int64_t> printed_{0};
};

}  // namespace

REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("CheckNumerics").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    CheckNumericsOp<float>);
REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("CheckNumerics").Device(DEVICE_CPU).TypeConstraint<double>("T"),
    CheckNumericsOp<double>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Print").Device(DEVICE_CPU), PrintOp);

}  // namespace af
