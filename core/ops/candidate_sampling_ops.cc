// Candidate sampling (TensorFlow's candidate_sampling_ops): the samplers
// that pick the negative classes of sampled softmax and NCE, and
// ComputeAccidentalHits, which finds the sampled classes that are in fact
// true ones. The samplers are stateful: every run draws afresh, and the
// learned sampler keeps counts between runs.
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

// true_classes [batch, num_true]; its dims, when known, must agree.
Status TrueClassesShape(InferenceContext* c, PartialTensorShape* true_classes) {
  int64_t num_true = 0;
  AF_RETURN_IF_ERROR(c->GetAttr("num_true", &num_true));
  AF_RETURN_IF_ERROR(c->WithRank(0, 2, true_classes));
  if (true_classes->dim_size(1) >= 0 && true_classes->dim_size(1) != num_true)
    return c->InvalidArgument("true_classes must have num_true = ", num_true,
                              " columns, got shape ", true_classes->DebugString());
  return Status::OK();
}

Status CandidateSamplerShape(InferenceContext* c) {
  int64_t num_sampled = 0, num_true = 0;
  AF_RETURN_IF_ERROR(c->GetAttr("num_sampled", &num_sampled));
  AF_RETURN_IF_ERROR(c->GetAttr("num_true", &num_true));
  PartialTensorShape true_classes;
  AF_RETURN_IF_ERROR(TrueClassesShape(c, &true_classes));
  c->set_output(0, PartialTensorShape({num_sampled}));
  c->set_output(1, PartialTensorShape({true_classes.dim_size(0), num_true}));
  c->set_output(2, PartialTensorShape({num_sampled}));
  return Status::OK();
}

Status ComputeAccidentalHitsShape(InferenceContext* c) {
  PartialTensorShape true_classes, sampled;
  AF_RETURN_IF_ERROR(TrueClassesShape(c, &true_classes));
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &sampled));
  // How many hits there are is known only when the values are.
  for (int i = 0; i < 3; ++i) c->set_output(i, PartialTensorShape({-1}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("UniformCandidateSampler")
    .Input("true_classes: int64")
    .Output("sampled_candidates: int64")
    .Output("true_expected_count: float")
    .Output("sampled_expected_count: float")
    .Attr("num_true: int >= 1")
    .Attr("num_sampled: int >= 1")
    .Attr("unique: bool")
    .Attr("range_max: int >= 1")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .SetShapeFn(CandidateSamplerShape)
    .SetIsStateful()
    .Doc("num_sampled classes drawn uniformly from [0, range_max), with expected counts.");

REGISTER_OP("LogUniformCandidateSampler")
    .Input("true_classes: int64")
    .Output("sampled_candidates: int64")
    .Output("true_expected_count: float")
    .Output("sampled_expected_count: float")
    .Attr("num_true: int >= 1")
    .Attr("num_sampled: int >= 1")
    .Attr("unique: bool")
    .Attr("range_max: int >= 1")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .SetShapeFn(CandidateSamplerShape)
    .SetIsStateful()
    .Doc("num_sampled classes drawn with P(k) = log((k+2)/(k+1)) / log(range_max+1).");

REGISTER_OP("LearnedUnigramCandidateSampler")
    .Input("true_classes: int64")
    .Output("sampled_candidates: int64")
    .Output("true_expected_count: float")
    .Output("sampled_expected_count: float")
    .Attr("num_true: int >= 1")
    .Attr("num_sampled: int >= 1")
    .Attr("unique: bool")
    .Attr("range_max: int >= 1")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .SetShapeFn(CandidateSamplerShape)
    .SetIsStateful()
    .Doc("num_sampled classes drawn in proportion to how often each was a true class so far.");

REGISTER_OP("FixedUnigramCandidateSampler")
    .Input("true_classes: int64")
    .Output("sampled_candidates: int64")
    .Output("true_expected_count: float")
    .Output("sampled_expected_count: float")
    .Attr("num_true: int >= 1")
    .Attr("num_sampled: int >= 1")
    .Attr("unique: bool")
    .Attr("range_max: int >= 1")
    .Attr("vocab_file: string = ''")
    .Attr("distortion: float = 1.0")
    .Attr("num_reserved_ids: int = 0")
    .Attr("num_shards: int >= 1 = 1")
    .Attr("shard: int >= 0 = 0")
    .Attr("unigrams: list(float) = []")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .SetShapeFn(CandidateSamplerShape)
    .SetIsStateful()
    .Doc("num_sampled classes drawn in proportion to unigrams^distortion (or a vocab file's "
         "counts).");

REGISTER_OP("ComputeAccidentalHits")
    .Input("true_classes: int64")
    .Input("sampled_candidates: int64")
    .Output("indices: int32")
    .Output("ids: int64")
    .Output("weights: float")
    .Attr("num_true: int")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .SetShapeFn(ComputeAccidentalHitsShape)
    .Doc("(row, sampled position, -FLT_MAX) for each sampled candidate that is a true class "
         "of that row.");

}  // namespace af
