#include "kernels/random/random_shape.h"

#include <cstdint>

namespace af::random {

Status ShapeFromTensor(const Tensor& t, TensorShape* out) {
  if (t.dims() != 1 || (t.dtype() != DT_INT32 && t.dtype() != DT_INT64))
    return errors::InvalidArgument("shape must be a vector of {int32,int64}, got ",
                                   DataTypeString(t.dtype()), " ", t.shape().DebugString());
  const int64_t rank = t.NumElements();
  constexpr int64_t kMaxRank = 64;
  if (rank > kMaxRank) return errors::InvalidArgument("shape has rank ", rank, " > ", kMaxRank);
  Status s;
  if (t.dtype() == DT_INT64) {
    s = TensorShape::Build(t.data<int64_t>(), static_cast<int>(rank), out);
  } else {
    int64_t dims[kMaxRank];  // widened on the stack: no allocation per step
    for (int64_t i = 0; i < rank; ++i) dims[i] = t.data<int32_t>()[i];
    s = TensorShape::Build(dims, static_cast<int>(rank), out);
  }
  if (!s.ok()) return errors::InvalidArgument("bad shape: ", s.message());
  return Status::OK();
}

}  // namespace af::random
