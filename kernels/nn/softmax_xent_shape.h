// The operand shapes of SoftmaxCrossEntropyWithLogits, on any device:
// logits and labels are matrices (or broadcast to [batch, classes] from
// lower ranks), and each is read with a row and a column stride that is 0
// along a broadcast dim.
#pragma once

#include <cstdint>

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

}  // namespace af
