#include "tests/kernels/array_test_util.h"

#include <cstring>

namespace af::test {

Tensor IntsOfShape(const std::vector<int64_t>& values, const TensorShape& shape, DataType dtype) {
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (dtype == DT_INT64)
      t.data<int64_t>()[i] = values[static_cast<size_t>(i)];
    else
      t.data<int32_t>()[i] = static_cast<int32_t>(values[static_cast<size_t>(i)]);
  }
  return t;
}

Tensor Ints(const std::vector<int64_t>& values, DataType dtype) {
  return IntsOfShape(values, TensorShape{static_cast<int64_t>(values.size())}, dtype);
}

Tensor IntScalar(int64_t value, DataType dtype) { return IntsOfShape({value}, {}, dtype); }

std::vector<DataType> MovableTestTypes() {
  return {DT_FLOAT, DT_INT8, DT_HALF, DT_INT64, DT_COMPLEX128, DT_BOOL, DT_STRING};
}

Tensor RandomValues(DataType dtype, const TensorShape& shape, uint32_t seed) {
  Tensor t(dtype, shape);
  std::mt19937 rng(seed);
  if (dtype == DT_STRING) {
    for (int64_t i = 0; i < t.NumElements(); ++i)
      t.data<std::string>()[i] = "s" + std::to_string(rng() % 100000);
    return t;
  }
  if (dtype == DT_BOOL) {
    for (int64_t i = 0; i < t.NumElements(); ++i) t.data<bool>()[i] = (rng() & 1u) != 0;
    return t;
  }
  auto* bytes = static_cast<unsigned char*>(t.raw_data());
  for (size_t i = 0; i < t.TotalBytes(); ++i) bytes[i] = static_cast<unsigned char>(rng());
  return t;
}

bool SameElement(const Tensor& a, int64_t i, const Tensor& b, int64_t j) {
  if (a.dtype() == DT_STRING) return a.data<std::string>()[i] == b.data<std::string>()[j];
  const size_t size = static_cast<size_t>(DataTypeSize(a.dtype()));
  return std::memcmp(static_cast<const char*>(a.raw_data()) + i * size,
                     static_cast<const char*>(b.raw_data()) + j * size, size) == 0;
}

Status CheckPicked(const Tensor& out, const TensorShape& shape, const Tensor& in,
                   const std::vector<int64_t>& source, const Tensor* fill) {
  if (out.dtype() != in.dtype())
    return errors::Internal("dtype ", DataTypeString(out.dtype()), ", expected ",
                            DataTypeString(in.dtype()));
  if (out.shape() != shape)
    return errors::Internal("shape ", out.shape().DebugString(), ", expected ",
                            shape.DebugString());
  if (static_cast<int64_t>(source.size()) != out.NumElements())
    return errors::Internal("test bug: ", source.size(), " sources for ", out.NumElements(),
                            " elements");
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const int64_t s = source[static_cast<size_t>(i)];
    const bool same = s >= 0 ? SameElement(out, i, in, s) : SameElement(out, i, *fill, 0);
    if (!same)
      return errors::Internal("element ", i, " is ", out.ValueString(i), ", expected ",
                              s >= 0 ? in.ValueString(s) : fill->ValueString(0),
                              s >= 0 ? " (input element " + std::to_string(s) + ")" : " (fill)");
  }
  return Status::OK();
}

std::vector<int64_t> Unflatten(const TensorShape& shape, int64_t flat) {
  std::vector<int64_t> index(static_cast<size_t>(shape.dims()));
  for (int d = shape.dims() - 1; d >= 0; --d) {
    index[d] = flat % shape.dim_size(d);
    flat /= shape.dim_size(d);
  }
  return index;
}

int64_t Flatten(const TensorShape& shape, const std::vector<int64_t>& index) {
  int64_t flat = 0;
  for (int d = 0; d < shape.dims(); ++d) flat = flat * shape.dim_size(d) + index[d];
  return flat;
}

TensorShape RandomShape(std::mt19937& rng, int rank, int64_t lo, int64_t hi) {
  std::uniform_int_distribution<int64_t> dim(lo, hi);
  TensorShape shape;
  for (int i = 0; i < rank; ++i) shape.AddDim(dim(rng));
  return shape;
}

}  // namespace af::test
