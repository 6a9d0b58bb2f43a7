#include "core/tensor.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/logging.h"
#include "core/resource_handle.h"

namespace af {

namespace {
size_t ElementBytes(DataType dt) {
  dt = BaseType(dt);
  if (dt == DT_STRING) return sizeof(std::string);
  if (dt == DT_RESOURCE) return sizeof(ResourceHandle);
  return static_cast<size_t>(DataTypeSize(dt));
}
}  // namespace

Tensor::Tensor(DataType dtype, const TensorShape& shape)
    : Tensor(GetCpuAllocator(), dtype, shape) {}

Tensor::Tensor(Allocator* allocator, DataType dtype, const TensorShape& shape)
    : dtype_(dtype), shape_(shape) {
  Status s = Allocate(allocator, dtype, shape, this);
  if (!s.ok()) {
    AF_LOG(FATAL) << s.ToString();
  }
}

Tensor::Tensor(DataType dtype, const TensorShape& shape, BufferRef buffer)
    : dtype_(dtype), shape_(shape), buf_(std::move(buffer)) {}

Status Tensor::Allocate(Allocator* allocator, DataType dtype, const TensorShape& shape,
                        Tensor* out) {
  const DataType base = BaseType(dtype);
  if (base != DT_STRING && base != DT_RESOURCE && DataTypeSize(base) == 0)
    return errors::InvalidArgument("cannot allocate a tensor of type ",
                                   DataTypeString(dtype));
  AllocatedBuffer* buf = AllocatedBuffer::Create(allocator, base, shape.num_elements());
  if (buf == nullptr)
    return errors::ResourceExhausted(
        "out of memory allocating a ", DataTypeString(dtype), " tensor of shape ",
        shape.DebugString(), " (", shape.num_elements() * ElementBytes(base),
        " bytes) from allocator ", allocator->Name(),
        allocator->OutOfMemoryDetail(static_cast<size_t>(shape.num_elements()) * ElementBytes(base)));
  out->dtype_ = dtype;
  out->shape_ = shape;
  out->buf_ = BufferRef(buf);
  return Status::OK();
}

bool Tensor::IsInitialized() const { return static_cast<bool>(buf_); }

size_t Tensor::TotalBytes() const {
  return ElementBytes(dtype_) * static_cast<size_t>(NumElements());
}

bool Tensor::IsAligned() const {
  return reinterpret_cast<uintptr_t>(raw_data()) % Allocator::kDefaultAlignment == 0;
}

std::string_view Tensor::tensor_data() const {
  if (!buf_ || BaseType(dtype_) == DT_STRING || BaseType(dtype_) == DT_RESOURCE) return {};
  return {static_cast<const char*>(raw_data()), TotalBytes()};
}

Tensor Tensor::Slice(int64_t start, int64_t limit) const {
  Tensor out;
  out.dtype_ = dtype_;
  out.shape_ = shape_;
  if (shape_.dims() == 0) return *this;  // callers check; a scalar has no rows
  out.shape_.set_dim(0, limit - start);
  if (!buf_) return out;
  const int64_t row_elems = shape_.dim_size(0) == 0 ? 0
                                                    : NumElements() / shape_.dim_size(0);
  const size_t row_bytes = ElementBytes(dtype_) * static_cast<size_t>(row_elems);
  out.buf_ = BufferRef(new SubBuffer(buf_.get(), row_bytes * static_cast<size_t>(start),
                                     row_bytes * static_cast<size_t>(limit - start)));
  return out;
}

Status Tensor::Reshaped(const TensorShape& shape, Tensor* out) const {
  if (shape.num_elements() != NumElements())
    return errors::InvalidArgument("cannot reshape a tensor with ", NumElements(),
                                   " elements to shape ", shape.DebugString(), " (",
                                   shape.num_elements(), " elements)");
  *out = Tensor(dtype_, shape, buf_);
  return Status::OK();
}

bool Tensor::SharesBufferWith(const Tensor& other) const {
  return buf_ && other.buf_ && buf_->root() == other.buf_->root();
}

Tensor Tensor::DeepCopy(Allocator* allocator) const {
  Tensor out(allocator ? allocator : GetCpuAllocator(), BaseType(dtype_), shape_);
  if (!buf_) return out;
  if (BaseType(dtype_) == DT_STRING) {
    const auto* src = static_cast<const std::string*>(raw_data());
    auto* dst = static_cast<std::string*>(out.raw_data());
    for (int64_t i = 0; i < NumElements(); ++i) dst[i] = src[i];
  } else if (BaseType(dtype_) == DT_RESOURCE) {
    const auto* src = static_cast<const ResourceHandle*>(raw_data());
    auto* dst = static_cast<ResourceHandle*>(out.raw_data());
    for (int64_t i = 0; i < NumElements(); ++i) dst[i] = src[i];
  } else if (TotalBytes() > 0) {
    std::memcpy(out.raw_data(), raw_data(), TotalBytes());
  }
  return out;
}

std::string Tensor::ValueString(int64_t i) const {
  if (BaseType(dtype_) == DT_RESOURCE)
    return static_cast<const ResourceHandle*>(raw_data())[i].DebugString();
  std::ostringstream os;
  const bool ok = VisitDataType(dtype_, [&](auto tag) {
    using T = decltype(tag);
    const T& v = static_cast<const T*>(raw_data())[i];
    if constexpr (std::is_same_v<T, half>) {
      os << HalfToFloat(v);
    } else if constexpr (std::is_same_v<T, bfloat16>) {
      os << BFloat16ToFloat(v);
    } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
      os << static_cast<int>(v);
    } else if constexpr (std::is_same_v<T, bool>) {
      os << (v ? "True" : "False");
    } else if constexpr (std::is_same_v<T, std::string>) {
      os << '"' << v << '"';
    } else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
      os << "(" << v.real() << "," << v.imag() << ")";
    } else if constexpr (std::is_class_v<T>) {
      os << static_cast<int64_t>(v.value);  // quantized
    } else {
      os << v;
    }
  });
  if (!ok) return "?";
  return os.str();
}

std::string Tensor::DebugString(int max_entries) const {
  std::ostringstream os;
  os << "Tensor<type: " << DataTypeString(dtype_) << " shape: " << shape_.DebugString();
  if (!buf_) {
    os << " values: <no buffer>>";
    return os.str();
  }
  os << " values:";
  const int64_t n = std::min<int64_t>(NumElements(), max_entries);
  for (int64_t i = 0; i < n; ++i) os << ' ' << ValueString(i);
  if (NumElements() > n) os << " ...";
  os << '>';
  return os.str();
}

void Tensor::AbortWrongType(DataType requested) const {
  AF_LOG(FATAL) << "tensor of type " << DataTypeString(dtype_) << " accessed as "
                << DataTypeString(requested);
  std::abort();  // not reached: a fatal line aborts
}

}  // namespace af
