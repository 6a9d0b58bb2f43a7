// ComputeAccidentalHits: the (row, sampled position) pairs where a sampled
// "negative" candidate is one of the row's true classes. Sampled softmax
// and NCE add -FLT_MAX to those logits so that a class is never trained to
// be both right and wrong for one example.
//
// Every matching position is reported once per row, also when the sampled
// candidates repeat (unique = false) or the row repeats a true class, so
// that summing the weights into a dense matrix (ScatterNd) gives exactly
// -FLT_MAX, never -inf, at each hit.
#include <algorithm>
#include <cfloat>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"

namespace af {
namespace {

class ComputeAccidentalHitsOp : public OpKernel {
 public:
  explicit ComputeAccidentalHitsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("num_true", &num_true_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& true_classes = ctx->input(0);
    const Tensor& sampled = ctx->input(1);
    OP_REQUIRES(ctx, true_classes.dims() == 2 && true_classes.dim_size(1) == num_true_,
                ctx->NodeError(errors::InvalidArgument(
                    "true_classes must be a matrix [batch_size, num_true] with num_true = ",
                    num_true_, " columns, got shape ", true_classes.shape().DebugString())));
    OP_REQUIRES(
        ctx, sampled.dims() == 1,
        ctx->NodeError(errors::InvalidArgument("sampled_candidates must be a vector, got shape ",
                                               sampled.shape().DebugString())));
    const int64_t batch = true_classes.dim_size(0);
    const int64_t num_sampled = sampled.dim_size(0);
    const int64_t* classes = true_classes.data<int64_t>();
    const int64_t* candidates = sampled.data<int64_t>();

    std::vector<int32_t> rows;
    std::vector<int64_t> positions;
    std::vector<int64_t> row_classes(static_cast<size_t>(num_true_));
    for (int64_t i = 0; i < batch; ++i) {
      const int64_t* row = classes + i * num_true_;
      row_classes.assign(row, row + num_true_);
      std::sort(row_classes.begin(), row_classes.end());
      for (int64_t j = 0; j < num_sampled; ++j) {
        if (!std::binary_search(row_classes.begin(), row_classes.end(), candidates[j])) continue;
        rows.push_back(static_cast<int32_t>(i));
        positions.push_back(j);
      }
    }

    const int64_t hits = static_cast<int64_t>(rows.size());
    Tensor *indices = nullptr, *ids = nullptr, *weights = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({hits}), &indices));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({hits}), &ids));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({hits}), &weights));
    for (int64_t h = 0; h < hits; ++h) {
      indices->data<int32_t>()[h] = rows[static_cast<size_t>(h)];
      ids->data<int64_t>()[h] = positions[static_cast<size_t>(h)];
      weights->data<float>()[h] = -FLT_MAX;
    }
  }

 private:
  int64_t num_true_ = 1;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("ComputeAccidentalHits").Device(DEVICE_CPU),
                        ComputeAccidentalHitsOp);

}  // namespace af
