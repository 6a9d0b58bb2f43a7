// Tensor: a typed, shaped view of a ref-counted buffer. Copies are cheap and
// share memory; use DeepCopy() for an independent copy.
#pragma once

#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/allocator.h"
#include "core/status.h"
#include "core/tensor_buffer.h"
#include "core/tensor_shape.h"
#include "core/types.h"

namespace af {

class Tensor {
 public:
  // An empty float scalar without a buffer, as TensorFlow's default Tensor.
  Tensor() = default;
  // Allocates from the CPU allocator. Numeric contents are uninitialized;
  // strings start empty. Aborts only if memory is exhausted; use Allocate()
  // to get a Status instead.
  Tensor(DataType dtype, const TensorShape& shape);
  Tensor(Allocator* allocator, DataType dtype, const TensorShape& shape);
  // Shares `buffer` (which must hold at least shape.num_elements() elements).
  Tensor(DataType dtype, const TensorShape& shape, BufferRef buffer);

  // Like the allocating constructor but reports RESOURCE_EXHAUSTED.
  static Status Allocate(Allocator* allocator, DataType dtype,
                         const TensorShape& shape, Tensor* out);

  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(DataTypeToEnum<T>::value, TensorShape{});
    *t.data<T>() = std::move(value);
    return t;
  }
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values, const TensorShape& shape) {
    Tensor t(DataTypeToEnum<T>::value, shape);
    T* p = t.data<T>();
    for (size_t i = 0; i < values.size() && static_cast<int64_t>(i) < t.NumElements(); ++i)
      p[i] = values[i];
    return t;
  }
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values) {
    return FromVector(values, TensorShape{static_cast<int64_t>(values.size())});
  }

  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  int64_t dim_size(int d) const { return shape_.dim_size(d); }
  int64_t NumElements() const { return shape_.num_elements(); }
  // Whether the tensor has memory behind it (empty tensors count as such
  // once allocated).
  bool IsInitialized() const;
  // Bytes of element storage (sizeof(std::string) per element for strings).
  size_t TotalBytes() const;
  bool IsAligned() const;  // data pointer 64-byte aligned

  template <typename T>
  T* data() {
    CheckType<T>();
    return static_cast<T*>(raw_data());
  }
  template <typename T>
  const T* data() const {
    CheckType<T>();
    return static_cast<const T*>(raw_data());
  }
  template <typename T>
  T& scalar() { return *data<T>(); }
  template <typename T>
  const T& scalar() const { return *data<T>(); }

  void* raw_data() const { return buf_ ? buf_->data() : nullptr; }
  // Raw bytes of a fixed-size tensor (empty view for strings).
  std::string_view tensor_data() const;
  const BufferRef& buffer() const { return buf_; }

  // Rows [start, limit) of dim 0, sharing this tensor's buffer.
  Tensor Slice(int64_t start, int64_t limit) const;
  // The same buffer under another shape with the same element count.
  Status Reshaped(const TensorShape& shape, Tensor* out) const;
  bool SharesBufferWith(const Tensor& other) const;
  // An independent copy in the CPU allocator (or `allocator`).
  Tensor DeepCopy(Allocator* allocator = nullptr) const;

  // "Tensor<type: float shape: [2,2] values: [1 2][3 4]>", at most
  // `max_entries` values shown.
  std::string DebugString(int max_entries = 6) const;
  // Element i printed as text, for tools and errors.
  std::string ValueString(int64_t i) const;

 private:
  template <typename T>
  void CheckType() const {
    static_assert(!std::is_same_v<T, void>);
    // A wrong-type access is a programming error; catch it loudly in debug.
#ifndef NDEBUG
    if (DataTypeToEnum<std::remove_cv_t<T>>::value != BaseType(dtype_)) AbortWrongType(
        DataTypeToEnum<std::remove_cv_t<T>>::value);
#endif
  }
  [[noreturn]] void AbortWrongType(DataType requested) const;

  DataType dtype_ = DT_FLOAT;
  TensorShape shape_;
  BufferRef buf_;
};

}  // namespace af
