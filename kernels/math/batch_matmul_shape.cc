#include "kernels/math/batch_matmul_shape.h"

namespace af {
namespace {

TensorShape BatchShape(const TensorShape& s) {
  TensorShape batch;
  for (int d = 0; d + 2 < s.dims(); ++d) batch.AddDim(s.dim_size(d));
  return batch;
}

}  // namespace

Status BatchMatMulShapes(const Tensor& x, const Tensor& y, bool adj_x, bool adj_y,
                         bool broadcast_batch, BatchMatMulShape* out) {
  if (x.dims() < 2) return errors::InvalidArgument("In[0] ndims must be >= 2: ", x.dims());
  if (y.dims() < 2) return errors::InvalidArgument("In[1] ndims must be >= 2: ", y.dims());
  out->x_batch = BatchShape(x.shape());
  out->y_batch = BatchShape(y.shape());
  if (broadcast_batch) {
    if (!out->plan.Init(out->x_batch, out->y_batch).ok()) {
      return errors::InvalidArgument("In[0] and In[1] must have compatible batch dimensions: ",
                                     x.shape().DebugString(), " vs. ", y.shape().DebugString());
    }
  } else {
    if (x.dims() != y.dims()) {
      return errors::InvalidArgument("In[0] and In[1] has different ndims: ",
                                     x.shape().DebugString(), " vs. ", y.shape().DebugString());
    }
    for (int d = 0; d < out->x_batch.dims(); ++d) {
      if (out->x_batch.dim_size(d) != out->y_batch.dim_size(d)) {
        return errors::InvalidArgument("In[0].dim(", d, ") and In[1].dim(", d,
                                       ") must be the same: ", x.shape().DebugString(), " vs ",
                                       y.shape().DebugString());
      }
    }
    AF_RETURN_IF_ERROR(out->plan.Init(out->x_batch, out->y_batch));
  }
  const int rx = x.dims(), ry = y.dims();
  out->m = x.dim_size(adj_x ? rx - 1 : rx - 2);
  out->k = x.dim_size(adj_x ? rx - 2 : rx - 1);
  const int64_t ky = y.dim_size(adj_y ? ry - 1 : ry - 2);
  out->n = y.dim_size(adj_y ? ry - 2 : ry - 1);
  if (out->k != ky) {
    return errors::InvalidArgument("Matrix size-incompatible: In[0]: ", x.shape().DebugString(),
                                   ", In[1]: ", y.shape().DebugString());
  }
  out->output = out->plan.output_shape();
  out->output.AddDim(out->m);
  out->output.AddDim(out->n);
  return Status::OK();
}

}  // namespace af
