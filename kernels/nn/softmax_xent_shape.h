// The operand shapes of SoftmaxCrossEntropyWithLogits, on any device:
// logits and labels are matrices (or broadcast to [batch, classes] from
// lower ranks), and each is read with a row and a column stride that is 0
// along a broadcast dim. And those of SparseSoftmaxCrossEntropyWithLogits:
// [batch, classes] logits, [batch] int32 or int64 labels in host memory.
// Plain C++: CUDA sources include it.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

#include "core/op_kernel.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af {

// Size of dim d (0 or 1) of t seen as a matrix, leading 1s for lower ranks.
inline int64_t XentMatrixDim(const Tensor& t, int d) {
  const int pad = 2 - t.dims();
  return d < pad ? 1 : t.dim_size(d - pad);
}

// The [batch, classes] the operands broadcast to; INVALID_ARGUMENT with
// TensorFlow's messages otherwise.
inline Status SoftmaxXentShape(const Tensor& logits, const Tensor& labels, int64_t* batch,
                               int64_t* classes) {
  if (!(logits.dims() <= 2 && labels.dims() <= 2 && (logits.dims() == 2 || labels.dims() == 2))) {
    return errors::InvalidArgument(
        "logits and labels must be either 2-dimensional, or broadcasted to be "
        "2-dimensional; got logits_size=",
        logits.shape().DebugString(), " labels_size=", labels.shape().DebugString());
  }
  int64_t dims[2];
  for (int d = 0; d < 2; ++d) {
    const int64_t a = XentMatrixDim(logits, d), b = XentMatrixDim(labels, d);
    if (!(a == b || a == 1 || b == 1)) {
      return errors::InvalidArgument("logits and labels must be broadcastable: logits_size=",
                                     logits.shape().DebugString(),
                                     " labels_size=", labels.shape().DebugString());
    }
    dims[d] = a == 1 ? b : a;
  }
  *batch = dims[0];
  *classes = dims[1];
  return Status::OK();
}

// Element strides of `t` read as [batch, classes] (0 along a broadcast dim).
inline int64_t XentRowStride(const Tensor& t) {
  return XentMatrixDim(t, 0) == 1 ? 0 : XentMatrixDim(t, 1);
}
inline int64_t XentColumnStride(const Tensor& t) { return XentMatrixDim(t, 1) == 1 ? 0 : 1; }

// Label i of the sparse op's int32 or int64 labels.
inline int64_t SparseXentLabel(const Tensor& labels, int64_t i) {
  return BaseType(labels.dtype()) == DT_INT32
             ? int64_t{static_cast<const int32_t*>(labels.raw_data())[i]}
             : static_cast<const int64_t*>(labels.raw_data())[i];
}

// The sparse op's [batch, classes]; INVALID_ARGUMENT with TensorFlow's
// messages otherwise, a label out of [0, classes) included.
inline Status SparseSoftmaxXentShape(const Tensor& logits, const Tensor& labels, int64_t* batch,
                                     int64_t* classes) {
  if (logits.dims() != 2)
    return errors::InvalidArgument("logits must be 2-D, but got shape ",
                                   logits.shape().DebugString());
  if (labels.dims() != 1)
    return errors::InvalidArgument("labels must be 1-D, but got shape ",
                                   labels.shape().DebugString());
  if (logits.dim_size(0) != labels.dim_size(0))
    return errors::InvalidArgument(
        "logits and labels must have the same first dimension, got logits shape ",
        logits.shape().DebugString(), " and labels shape ", labels.shape().DebugString());
  *batch = logits.dim_size(0);
  *classes = logits.dim_size(1);
  if (!(*batch == 0 || *classes > 0))
    return errors::InvalidArgument("Must have at least one class, but got logits shape ",
                                   logits.shape().DebugString());
  const DataType label_type = BaseType(labels.dtype());
  if (label_type != DT_INT32 && label_type != DT_INT64)
    return errors::InvalidArgument("labels must be int32 or int64, not ",
                                   DataTypeString(label_type));
  for (int64_t b = 0; b < *batch; ++b) {
    const int64_t label = SparseXentLabel(labels, b);
    if (label < 0 || label >= *classes) {
      std::ostringstream values;
      for (int64_t i = 0; i < labels.NumElements(); ++i)
        values << (i ? " " : "") << SparseXentLabel(labels, i);
      return errors::InvalidArgument("Received a label value of ", label,
                                     " which is outside the valid range of [0, ", *classes,
                                     ").  Label values: ", values.str());
    }
  }
  return Status::OK();
}

// One call of either op's kernel: its sizes, and its outputs (loss [batch],
// backprop [batch, classes]) allocated.
struct XentCall {
  int64_t batch = 0, classes = 0;
  Tensor* loss = nullptr;
  Tensor* backprop = nullptr;
};

// The checks on inputs 0 (logits) and 1 (labels), their errors naming the
// node; then the outputs allocated.
inline Status AllocateXentOutputs(OpKernelContext* ctx, XentCall* call) {
  AF_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape{call->batch}, &call->loss));
  return ctx->allocate_output(1, TensorShape{call->batch, call->classes}, &call->backprop);
}
inline Status PrepareSoftmaxXent(OpKernelContext* ctx, XentCall* call) {
  AF_RETURN_IF_ERROR(ctx->NodeError(
      SoftmaxXentShape(ctx->input(0), ctx->input(1), &call->batch, &call->classes)));
  return AllocateXentOutputs(ctx, call);
}
inline Status PrepareSparseSoftmaxXent(OpKernelContext* ctx, XentCall* call) {
  AF_RETURN_IF_ERROR(ctx->NodeError(
      SparseSoftmaxXentShape(ctx->input(0), ctx->input(1), &call->batch, &call->classes)));
  return AllocateXentOutputs(ctx, call);
}

}  // namespace af
