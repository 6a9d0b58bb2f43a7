// Fused batch normalization (V1, V2, V3) and its gradients.
#include <string>
#include <vector>

#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

constexpr const char* kFormat2D = "data_format: {'NHWC', 'NCHW'} = 'NHWC'";
constexpr const char* kFormat2D3D = "data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'";

struct NormFormat {
  int rank = 4;
  bool channels_last = true;
};

Status ReadFormat(InferenceContext* c, NormFormat* f) {
  std::string format = "NHWC";
  if (HasNodeAttr(c->node_def(), "data_format"))
    AF_RETURN_IF_ERROR(c->Error(c->GetAttr("data_format", &format)));
  f->rank = format.size() == 5 ? 5 : 4;
  f->channels_last = format.back() == 'C';
  return Status::OK();
}

int ChannelIndex(const NormFormat& f) { return f.channels_last ? f.rank - 1 : 1; }

// Merges dim 0 of each 1-D input in [first, last) into *channels.
Status MergeVectors(InferenceContext* c, int first, int last, int64_t* channels) {
  for (int i = first; i < last; ++i) {
    PartialTensorShape v;
    AF_RETURN_IF_ERROR(c->WithRank(i, 1, &v));
    const int64_t d = v.dim_size(0);
    if (d < 0) continue;
    if (*channels >= 0 && *channels != d)
      return c->InvalidArgument("input ", i, " has ", d, " elements, but the input has ", *channels,
                                " channels");
    *channels = d;
  }
  return Status::OK();
}

PartialTensorShape WithChannels(PartialTensorShape x, int index, int64_t channels) {
  std::vector<int64_t> dims(x.dim_sizes().begin(), x.dim_sizes().end());
  dims[index] = channels;
  return PartialTensorShape(dims);
}

Status FusedBatchNormShape(InferenceContext* c) {
  NormFormat f;
  AF_RETURN_IF_ERROR(ReadFormat(c, &f));
  PartialTensorShape x;
  AF_RETURN_IF_ERROR(c->WithRank(0, f.rank, &x));
  bool is_training = true;
  float factor = 1.0f;
  if (HasNodeAttr(c->node_def(), "is_training"))
    AF_RETURN_IF_ERROR(c->Error(c->GetAttr("is_training", &is_training)));
  if (HasNodeAttr(c->node_def(), "exponential_avg_factor"))
    AF_RETURN_IF_ERROR(c->Error(c->GetAttr("exponential_avg_factor", &factor)));
  // Training with factor 1 ignores mean and variance (they may be empty).
  const int vectors = (is_training && factor == 1.0f) ? 3 : 5;
  int64_t channels = x.dim_size(ChannelIndex(f));
  AF_RETURN_IF_ERROR(MergeVectors(c, 1, vectors, &channels));
  c->set_output(0, WithChannels(x, ChannelIndex(f), channels));
  for (int i = 1; i < 5; ++i) c->set_output(i, PartialTensorShape({channels}));
  if (c->num_outputs() > 5) c->set_output(5, PartialTensorShape::Unknown());
  return Status::OK();
}

Status FusedBatchNormGradShape(InferenceContext* c) {
  NormFormat f;
  AF_RETURN_IF_ERROR(ReadFormat(c, &f));
  PartialTensorShape dy, x, merged;
  AF_RETURN_IF_ERROR(c->WithRank(0, f.rank, &dy));
  AF_RETURN_IF_ERROR(c->WithRank(1, f.rank, &x));
  AF_RETURN_IF_ERROR(c->Merge(dy, x, &merged));
  int64_t channels = merged.dim_size(ChannelIndex(f));
  AF_RETURN_IF_ERROR(MergeVectors(c, 2, 5, &channels));
  c->set_output(0, WithChannels(merged, ChannelIndex(f), channels));
  c->set_output(1, PartialTensorShape({channels}));
  c->set_output(2, PartialTensorShape({channels}));
  c->set_output(3, PartialTensorShape({0}));
  c->set_output(4, PartialTensorShape({0}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("FusedBatchNorm")
    .Input("x: T")
    .Input("scale: T")
    .Input("offset: T")
    .Input("mean: T")
    .Input("variance: T")
    .Output("y: T")
    .Output("batch_mean: T")
    .Output("batch_variance: T")
    .Output("reserve_space_1: T")
    .Output("reserve_space_2: T")
    .Attr("T: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr(kFormat2D)
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape)
    .Doc("Batch normalization over every dim but the channel dim.");

REGISTER_OP("FusedBatchNormV2")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr(kFormat2D)
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape)
    .Doc("FusedBatchNorm with the statistics in type U.");

REGISTER_OP("FusedBatchNormV3")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Output("reserve_space_3: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {bfloat16, float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr(kFormat2D3D)
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape)
    .Doc("FusedBatchNormV2 with a third reserve output.");

REGISTER_OP("FusedBatchNormGrad")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: T")
    .Input("reserve_space_1: T")
    .Input("reserve_space_2: T")
    .Output("x_backprop: T")
    .Output("scale_backprop: T")
    .Output("offset_backprop: T")
    .Output("reserve_space_3: T")
    .Output("reserve_space_4: T")
    .Attr("T: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr(kFormat2D)
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormGradShape)
    .Doc("Gradients of FusedBatchNorm from its saved batch statistics.");

REGISTER_OP("FusedBatchNormGradV2")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: float")
    .Input("reserve_space_1: U")
    .Input("reserve_space_2: U")
    .Output("x_backprop: T")
    .Output("scale_backprop: U")
    .Output("offset_backprop: U")
    .Output("reserve_space_3: U")
    .Output("reserve_space_4: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr(kFormat2D)
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormGradShape)
    .Doc("Gradients of FusedBatchNormV2.");

REGISTER_OP("FusedBatchNormGradV3")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: float")
    .Input("reserve_space_1: U")
    .Input("reserve_space_2: U")
    .Input("reserve_space_3: U")
    .Output("x_backprop: T")
    .Output("scale_backprop: U")
    .Output("offset_backprop: U")
    .Output("reserve_space_4: U")
    .Output("reserve_space_5: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr(kFormat2D3D)
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormGradShape)
    .Doc("Gradients of FusedBatchNormV3.");

}  // namespace af
