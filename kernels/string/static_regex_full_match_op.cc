// StaticRegexFullMatch: whether each string matches a pattern fixed when
// the graph was built, as a whole.
//
// TensorFlow compiles the pattern with RE2; here it is an ECMAScript
// std::regex, compiled once per kernel. The two agree on what SavedModels
// use (literals, classes, `.*`, anchors, alternation); RE2-only syntax such
// as named groups `(?P<n>...)` or inline flags `(?i)` is INVALID_ARGUMENT
// when the kernel is made, and ECMAScript's backtracking may be slow on
// pathological patterns where RE2 is linear.
#include <regex>
#include <string>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"

namespace af {
namespace {

class StaticRegexFullMatchOp : public OpKernel {
 public:
  explicit StaticRegexFullMatchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string pattern;
    ctx->SetStatus(ctx->GetAttr("pattern", &pattern));
    try {
      regex_ = std::regex(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      ctx->SetStatus(errors::InvalidArgument("node '", ctx->def().name(),
                                             "' (op 'StaticRegexFullMatch'): invalid pattern '",
                                             pattern, "': ", e.what()));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const std::string* src = input.data<std::string>();
    bool* dst = out->data<bool>();
    // std::regex reports a match too costly for its backtracking by throwing.
    try {
      for (int64_t i = 0; i < input.NumElements(); ++i) dst[i] = std::regex_match(src[i], regex_);
    } catch (const std::regex_error& e) {
      ctx->SetStatus(ctx->NodeError(errors::ResourceExhausted("matching failed: ", e.what())));
    }
  }

 private:
  std::regex regex_;  // read-only after construction: regex_match is const
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("StaticRegexFullMatch").Device(DEVICE_CPU),
                        StaticRegexFullMatchOp);

}  // namespace af
