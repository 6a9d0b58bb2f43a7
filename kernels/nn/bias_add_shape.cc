#include "kernels/nn/bias_add_shape.h"

#include <string>

#include "core/input_forwarding.h"
#include "core/op_kernel.h"

namespace af {

namespace {

// The view of `data` (at least 2-D) around its channel dim.
BiasAddDims DimsOf(const TensorShape& data, bool channels_first) {
  BiasAddDims d;
  const int channel_dim = channels_first ? 1 : data.dims() - 1;
  d.total = data.num_elements();
  d.channels = data.dim_size(channel_dim);
  for (int i = channel_dim + 1; i < data.dims(); ++i) d.inner *= data.dim_size(i);
  d.outer = d.total == 0 ? 0 : d.total / (d.channels * d.inner);
  return d;
}

Status CheckAtLeast2D(const TensorShape& data) {
  if (data.dims() < 2)
    return errors::InvalidArgument("Input tensor must be at least 2D: ", data.DebugString());
  return Status::OK();
}

Status BiasAddShape(const TensorShape& value, const TensorShape& bias, bool channels_first,
                    BiasAddDims* d) {
  AF_RETURN_IF_ERROR(CheckAtLeast2D(value));
  if (bias.dims() != 1) return errors::InvalidArgument("Biases must be 1D: ", bias.DebugString());
  *d = DimsOf(value, channels_first);
  if (bias.dim_size(0) != d->channels)
    return errors::InvalidArgument(
        "Must provide as many biases as the last dimension of the input tensor: ",
        bias.DebugString(), " vs. ", value.DebugString());
  return Status::OK();
}

}  // namespace

BiasAddKernelBase::BiasAddKernelBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
  std::string format = "NHWC";
  if (ctx->HasAttr("data_format")) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
  }
  OP_REQUIRES(
      ctx, format == "NHWC" || format == "NCHW",
      errors::InvalidArgument("Invalid data_format '", format, "': expected NHWC or NCHW"));
  channels_first_ = format == "NCHW";
}

Status BiasAddKernelBase::PrepareBiasAdd(OpKernelContext* ctx, BiasAddDims* dims) const {
  const TensorShape& value = ctx->input(0).shape();
  AF_RETURN_IF_ERROR(
      ctx->NodeError(BiasAddShape(value, ctx->input(1).shape(), channels_first_, dims)));
  // Each element adds its channel's bias to the same element of the value:
  // a value nobody else holds takes the sum in place.
  return ForwardInputOrAllocateOutput(ctx, {0}, 0, value, &dims->out);
}

Status BiasAddKernelBase::PrepareBiasAddGrad(OpKernelContext* ctx, BiasAddDims* dims) const {
  const TensorShape& grad = ctx->input(0).shape();
  AF_RETURN_IF_ERROR(ctx->NodeError(CheckAtLeast2D(grad)));
  *dims = DimsOf(grad, channels_first_);
  return ctx->allocate_output(0, TensorShape{dims->channels}, &dims->out);
}

}  // namespace af
