#include "core/tensor_slice_copy.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace af {
namespace {

Status CheckBox(const char* which, const TensorShape& shape, const std::vector<int64_t>& offset,
                const std::vector<int64_t>& length) {
  if (static_cast<int>(offset.size()) != shape.dims() ||
      static_cast<int>(length.size()) != shape.dims())
    return errors::InvalidArgument("region copy: the ", which, " tensor has rank ", shape.dims(),
                                   " but the region has ", offset.size(), " offsets and ",
                                   length.size(), " lengths");
  for (int d = 0; d < shape.dims(); ++d) {
    const int64_t size = shape.dim_size(d);
    if (offset[d] < 0 || length[d] < 0 || offset[d] > size || length[d] > size - offset[d])
      return errors::InvalidArgument("region copy: offset ", offset[d], " length ", length[d],
                                     " of dim ", d, " is outside the ", which, " tensor of shape ",
                                     shape.DebugString());
  }
  return Status::OK();
}

std::vector<int64_t> RowMajorStrides(const TensorShape& shape) {
  std::vector<int64_t> strides(static_cast<size_t>(shape.dims()), 1);
  for (int d = shape.dims() - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape.dim_size(d + 1);
  return strides;
}

// Walks the outer dims with an odometer and hands each contiguous
// innermost run (`run` elements) to `copy(src_index, dst_index, run)`.
template <typename CopyRun>
void ForEachRun(const TensorShape& src_shape, const std::vector<int64_t>& src_offset,
                const TensorShape& dst_shape, const std::vector<int64_t>& dst_offset,
                const std::vector<int64_t>& length, CopyRun copy) {
  const int rank = src_shape.dims();
  const std::vector<int64_t> src_strides = RowMajorStrides(src_shape);
  const std::vector<int64_t> dst_strides = RowMajorStrides(dst_shape);
  // Trailing dims that both tensors hold whole are one block with the dim
  // before them, so the run grows past the innermost dim where it can.
  int outer = rank - 1;
  int64_t run = rank == 0 ? 1 : length[rank - 1];
  while (outer > 0 && length[outer] == src_shape.dim_size(outer) &&
         length[outer] == dst_shape.dim_size(outer)) {
    --outer;
    run *= length[outer];
  }
  int64_t src_pos = 0, dst_pos = 0;
  for (int d = 0; d < rank; ++d) {
    src_pos += src_offset[d] * src_strides[d];
    dst_pos += dst_offset[d] * dst_strides[d];
  }
  // Odometer over dims [0, outer).
  std::vector<int64_t> index(static_cast<size_t>(std::max(outer, 0)), 0);
  while (true) {
    copy(src_pos, dst_pos, run);
    int d = outer - 1;
    for (; d >= 0; --d) {
      src_pos += src_strides[d];
      dst_pos += dst_strides[d];
      if (++index[d] < length[d]) break;
      src_pos -= length[d] * src_strides[d];
      dst_pos -= length[d] * dst_strides[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace

Status CopyTensorRegion(const Tensor& src, const std::vector<int64_t>& src_offset, Tensor* dst,
                        const std::vector<int64_t>& dst_offset,
                        const std::vector<int64_t>& length) {
  if (src.dtype() != dst->dtype())
    return errors::InvalidArgument("region copy from ", DataTypeString(src.dtype()), " to ",
                                   DataTypeString(dst->dtype()));
  AF_RETURN_IF_ERROR(CheckBox("source", src.shape(), src_offset, length));
  AF_RETURN_IF_ERROR(CheckBox("destination", dst->shape(), dst_offset, length));
  for (int64_t len : length)
    if (len == 0) return Status::OK();
  if (src.dtype() == DT_STRING) {
    const std::string* from = src.data<std::string>();
    std::string* to = dst->data<std::string>();
    ForEachRun(src.shape(), src_offset, dst->shape(), dst_offset, length,
               [&](int64_t s, int64_t d, int64_t n) { std::copy(from + s, from + s + n, to + d); });
    return Status::OK();
  }
  const auto element = static_cast<int64_t>(DataTypeSize(src.dtype()));
  if (element <= 0)
    return errors::InvalidArgument("region copy: ", DataTypeString(src.dtype()),
                                   " elements cannot be copied");
  const auto* from = static_cast<const char*>(src.raw_data());
  auto* to = static_cast<char*>(dst->raw_data());
  ForEachRun(src.shape(), src_offset, dst->shape(), dst_offset, length,
             [&](int64_t s, int64_t d, int64_t n) {
               std::memcpy(to + d * element, from + s * element, static_cast<size_t>(n * element));
             });
  return Status::OK();
}

}  // namespace af
