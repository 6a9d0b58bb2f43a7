// The four candidate samplers: one kernel class around a RangeSampler
// (kernels/nn/range_samplers.h) that each op builds from its attrs. The
// sampler lives as long as the kernel, so LearnedUnigramCandidateSampler's
// counts carry over from step to step, as in TensorFlow.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/nn/range_samplers.h"
#include "kernels/nn/unigram_weights.h"
#include "kernels/random/guarded_philox.h"

namespace af {
namespace {

using sampling::RangeSampler;

class CandidateSamplerOp : public OpKernel {
 public:
  explicit CandidateSamplerOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("num_true", &num_true_));
    ctx->SetStatus(ctx->GetAttr("num_sampled", &num_sampled_));
    ctx->SetStatus(ctx->GetAttr("unique", &unique_));
    ctx->SetStatus(ctx->GetAttr("range_max", &range_max_));
    ctx->SetStatus(generator_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& true_classes = ctx->input(0);
    OP_REQUIRES(ctx, true_classes.dims() == 2 && true_classes.dim_size(1) == num_true_,
                ctx->NodeError(errors::InvalidArgument(
                    "true_classes must be a matrix [batch_size, num_true] with num_true = ",
                    num_true_, " columns, got shape ", true_classes.shape().DebugString())));
    OP_REQUIRES(ctx, !unique_ || num_sampled_ <= sampler_->NumPossibleValues(),
                ctx->NodeError(errors::InvalidArgument(
                    "unique sampling of num_sampled = ", num_sampled_,
                    " candidates needs at least that many possible values, but the sampler "
                    "has ",
                    sampler_->NumPossibleValues(), " (range_max = ", range_max_, ")")));
    const int64_t num_classes = true_classes.NumElements();
    const std::span<const int64_t> classes(true_classes.data<int64_t>(),
                                           static_cast<size_t>(num_classes));
    if (sampler_->NeedsUpdates()) {
      // The learned counts are indexed by class: an id outside the range
      // would write out of bounds.
      for (int64_t v : classes)
        OP_REQUIRES(ctx, v >= 0 && v < range_max_,
                    ctx->NodeError(errors::InvalidArgument(
                        "true class ", v, " is outside [0, range_max = ", range_max_, ")")));
    }

    Tensor *sampled = nullptr, *true_expected = nullptr, *sampled_expected = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({num_sampled_}), &sampled));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, true_classes.shape(), &true_expected));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({num_sampled_}), &sampled_expected));

    // A unique batch typically needs somewhat more draws than candidates.
    sampling::RandomDraws draws(&generator_,
                                static_cast<uint64_t>(num_sampled_) * (unique_ ? 2 : 1));
    std::unique_lock<std::mutex> lock(mu_, std::defer_lock);
    if (sampler_->NeedsUpdates()) lock.lock();
    OP_REQUIRES_OK(
        ctx,
        ctx->NodeError(sampling::SampleBatchWithExpectedCounts(
            *sampler_, &draws, unique_,
            std::span<int64_t>(sampled->data<int64_t>(), static_cast<size_t>(num_sampled_)),
            std::span<float>(sampled_expected->data<float>(), static_cast<size_t>(num_sampled_)),
            classes,
            std::span<float>(true_expected->data<float>(), static_cast<size_t>(num_classes)))));
    // TensorFlow's order: this batch is drawn from the counts before it.
    if (sampler_->NeedsUpdates()) sampler_->Update(classes);
  }

 protected:
  int64_t range_max() const { return range_max_; }
  void set_sampler(std::unique_ptr<RangeSampler> sampler) { sampler_ = std::move(sampler); }

 private:
  int64_t num_true_ = 1, num_sampled_ = 1, range_max_ = 1;
  bool unique_ = false;
  random::GuardedPhilox generator_;
  std::unique_ptr<RangeSampler> sampler_;
  std::mutex mu_;  // guards the state of a sampler that NeedsUpdates() across concurrent steps
};

class UniformCandidateSamplerOp : public CandidateSamplerOp {
 public:
  explicit UniformCandidateSamplerOp(OpKernelConstruction* ctx) : CandidateSamplerOp(ctx) {
    set_sampler(std::make_unique<sampling::UniformSampler>(range_max()));
  }
};

class LogUniformCandidateSamplerOp : public CandidateSamplerOp {
 public:
  explicit LogUniformCandidateSamplerOp(OpKernelConstruction* ctx) : CandidateSamplerOp(ctx) {
    set_sampler(std::make_unique<sampling::LogUniformSampler>(range_max()));
  }
};

class LearnedUnigramCandidateSamplerOp : public CandidateSamplerOp {
 public:
  explicit LearnedUnigramCandidateSamplerOp(OpKernelConstruction* ctx) : CandidateSamplerOp(ctx) {
    set_sampler(std::make_unique<sampling::LearnedUnigramSampler>(range_max()));
  }
};

class FixedUnigramCandidateSamplerOp : public CandidateSamplerOp {
 public:
  explicit FixedUnigramCandidateSamplerOp(OpKernelConstruction* ctx) : CandidateSamplerOp(ctx) {
    ctx->SetStatus(Build(ctx));
    // A kernel whose construction failed is never run, but keep it whole.
    if (!ctx->status().ok()) set_sampler(std::make_unique<sampling::UniformSampler>(1));
  }

 private:
  Status Build(OpKernelConstruction* ctx) {
    std::string vocab_file;
    std::vector<float> unigrams;
    sampling::UnigramTableOptions options;
    AF_RETURN_IF_ERROR(ctx->GetAttr("vocab_file", &vocab_file));
    AF_RETURN_IF_ERROR(ctx->GetAttr("unigrams", &unigrams));
    AF_RETURN_IF_ERROR(ctx->GetAttr("distortion", &options.distortion));
    AF_RETURN_IF_ERROR(ctx->GetAttr("num_reserved_ids", &options.num_reserved_ids));
    AF_RETURN_IF_ERROR(ctx->GetAttr("num_shards", &options.num_shards));
    AF_RETURN_IF_ERROR(ctx->GetAttr("shard", &options.shard));
    if (vocab_file.empty() == unigrams.empty())
      return errors::InvalidArgument(
          "FixedUnigramCandidateSampler needs exactly one of vocab_file and unigrams");
    std::vector<double> weights;
    AF_RETURN_IF_ERROR(vocab_file.empty()
                           ? sampling::UnigramWeightsFromCounts(unigrams, options, &weights)
                           : sampling::UnigramWeightsFromVocabFile(vocab_file, options, &weights));
    if (static_cast<int64_t>(weights.size()) != range_max())
      return errors::InvalidArgument(
          "range_max = ", range_max(), " must equal the number of ids of shard ", options.shard,
          " of ", options.num_shards, ", which is ", weights.size(),
          " (num_reserved_ids = ", options.num_reserved_ids, " plus the ",
          vocab_file.empty() ? "unigrams" : "entries of vocab_file '" + vocab_file + "'", ")");
    std::unique_ptr<sampling::WeightedSampler> sampler;
    AF_RETURN_IF_ERROR(sampling::WeightedSampler::Create(std::move(weights), &sampler));
    set_sampler(std::move(sampler));
    return Status::OK();
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("UniformCandidateSampler").Device(DEVICE_CPU),
                        UniformCandidateSamplerOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("LogUniformCandidateSampler").Device(DEVICE_CPU),
                        LogUniformCandidateSamplerOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("LearnedUnigramCandidateSampler").Device(DEVICE_CPU),
                        LearnedUnigramCandidateSamplerOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("FixedUnigramCandidateSampler").Device(DEVICE_CPU),
                        FixedUnigramCandidateSamplerOp);

}  // namespace af
