#include "kernels/tensor_array/tensor_array.h"

#include <complex>
#include <cstring>
#include <utility>

namespace af {

std::atomic<int64_t> TensorArray::live_{0};

namespace {

template <typename T>
void AddInto(const Tensor& a, const Tensor& b, Tensor* sum) {
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  T* z = sum->data<T>();
  for (int64_t i = 0; i < a.NumElements(); ++i) z[i] = static_cast<T>(x[i] + y[i]);
}

// a + b in a fresh tensor: neither buffer may change, as both may be shared
// with values still flowing through the graph.
Status AddTensors(const Tensor& a, const Tensor& b, Tensor* sum) {
  *sum = Tensor(a.dtype(), a.shape());
  switch (BaseType(a.dtype())) {
    case DT_FLOAT:
      AddInto<float>(a, b, sum);
      break;
    case DT_DOUBLE:
      AddInto<double>(a, b, sum);
      break;
    case DT_INT32:
      AddInto<int32_t>(a, b, sum);
      break;
    case DT_INT64:
      AddInto<int64_t>(a, b, sum);
      break;
    case DT_INT16:
      AddInto<int16_t>(a, b, sum);
      break;
    case DT_INT8:
      AddInto<int8_t>(a, b, sum);
      break;
    case DT_UINT8:
      AddInto<uint8_t>(a, b, sum);
      break;
    case DT_COMPLEX64:
      AddInto<complex64>(a, b, sum);
      break;
    case DT_COMPLEX128:
      AddInto<complex128>(a, b, sum);
      break;
    default:
      return errors::Unimplemented("cannot sum two writes of type ", DataTypeString(a.dtype()));
  }
  return Status::OK();
}

Tensor Zeros(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  if (t.TotalBytes() > 0 && BaseType(dtype) != DT_STRING)
    std::memset(t.raw_data(), 0, t.TotalBytes());
  return t;
}

}  // namespace

TensorArray::TensorArray(std::string name, const Options& options, int64_t size)
    : name_(std::move(name)), options_(options), slots_(static_cast<size_t>(size)) {
  live_.fetch_add(1, std::memory_order_acq_rel);
}

TensorArray::~TensorArray() { live_.fetch_sub(1, std::memory_order_acq_rel); }

Status TensorArray::CheckOpen() const {
  if (closed_) return errors::InvalidArgument("TensorArray '", name_, "' has already been closed");
  return Status::OK();
}

Status TensorArray::WriteMany(const std::vector<int64_t>& indices,
                              const std::vector<Tensor>& values) {
  std::lock_guard<std::mutex> lock(mu_);
  AF_RETURN_IF_ERROR(CheckOpen());
  for (size_t i = 0; i < indices.size(); ++i)
    AF_RETURN_IF_ERROR(LockedWrite(indices[i], values[i]));
  return Status::OK();
}

Status TensorArray::LockedWrite(int64_t index, const Tensor& value) {
  if (BaseType(value.dtype()) != options_.dtype)
    return errors::InvalidArgument("TensorArray '", name_, "' holds ",
                                   DataTypeString(options_.dtype), " but a ",
                                   DataTypeString(value.dtype()), " was written to index ", index);
  if (index < 0)
    return errors::InvalidArgument("TensorArray '", name_, "': cannot write to negative index ",
                                   index);
  if (index >= static_cast<int64_t>(slots_.size())) {
    if (!options_.dynamic_size)
      return errors::OutOfRange("TensorArray '", name_, "': cannot write to index ", index,
                                ": the array has size ", slots_.size(),
                                " and is not dynamically sized");
    slots_.resize(static_cast<size_t>(index) + 1);
  }
  if (!options_.element_shape.IsCompatibleWith(value.shape()))
    return errors::InvalidArgument(
        "TensorArray '", name_, "': cannot write a value of shape ", value.shape().DebugString(),
        " to index ", index, ": the elements have shape ", options_.element_shape.DebugString());
  if (options_.identical_element_shapes && !options_.element_shape.IsFullyDefined())
    options_.element_shape = PartialTensorShape(value.shape());

  Slot& slot = slots_[static_cast<size_t>(index)];
  if (slot.cleared)
    return errors::InvalidArgument("TensorArray '", name_, "': cannot write to index ", index,
                                   ": it has already been read");
  if (!slot.written) {
    slot.value = value;
    slot.shape = value.shape();
    slot.written = true;
    return Status::OK();
  }
  if (!options_.is_grad)
    return errors::InvalidArgument("TensorArray '", name_, "': cannot write to index ", index,
                                   " twice (it has already been written)");
  if (slot.value.shape() != value.shape())
    return errors::InvalidArgument("TensorArray '", name_, "' (a gradient array): index ", index,
                                   " holds a value of shape ", slot.value.shape().DebugString(),
                                   " and cannot sum a write of shape ",
                                   value.shape().DebugString());
  Tensor sum;
  Status s = AddTensors(slot.value, value, &sum);
  if (!s.ok())
    return errors::InvalidArgument("TensorArray '", name_, "' index ", index, ": ", s.message());
  slot.value = std::move(sum);
  return Status::OK();
}

Status TensorArray::LockedRead(int64_t index, Tensor* value) {
  if (index < 0 || index >= static_cast<int64_t>(slots_.size()))
    return errors::OutOfRange("TensorArray '", name_, "': cannot read index ", index,
                              ": the array has size ", slots_.size());
  Slot& slot = slots_[static_cast<size_t>(index)];
  if (slot.cleared)
    return errors::InvalidArgument("TensorArray '", name_, "': cannot read index ", index,
                                   " twice: it was cleared after its first read "
                                   "(clear_after_read is true)");
  if (!slot.written) {
    TensorShape shape;
    if (!options_.is_grad)
      return errors::InvalidArgument("TensorArray '", name_, "': cannot read index ", index,
                                     ": it has not been written");
    // Lock order: a gradient array's lock, then its forward array's.
    if (!options_.element_shape.AsTensorShape(&shape) &&
        !(forward_ && forward_->WrittenShape(index, &shape)))
      return errors::InvalidArgument(
          "TensorArray '", name_, "' (a gradient array): index ", index,
          " has not been written, the element shape ", options_.element_shape.DebugString(),
          " is not fully defined and the forward array's element was never written, so its "
          "zero gradient has no shape");
    *value = Zeros(options_.dtype, shape);
    return Status::OK();
  }
  *value = slot.value;
  if (options_.clear_after_read) {
    slot.value = Tensor();
    slot.cleared = true;
  }
  return Status::OK();
}

Status TensorArray::ReadMany(const std::vector<int64_t>& indices, std::vector<Tensor>* values) {
  std::lock_guard<std::mutex> lock(mu_);
  AF_RETURN_IF_ERROR(CheckOpen());
  values->resize(indices.size());
  for (size_t i = 0; i < indices.size(); ++i)
    AF_RETURN_IF_ERROR(LockedRead(indices[i], &(*values)[i]));
  return Status::OK();
}

Status TensorArray::Read(int64_t index, Tensor* value) {
  std::lock_guard<std::mutex> lock(mu_);
  AF_RETURN_IF_ERROR(CheckOpen());
  return LockedRead(index, value);
}

Status TensorArray::ReadAll(std::vector<Tensor>* values) {
  std::lock_guard<std::mutex> lock(mu_);
  AF_RETURN_IF_ERROR(CheckOpen());
  values->resize(slots_.size());
  for (size_t i = 0; i < slots_.size(); ++i)
    AF_RETURN_IF_ERROR(LockedRead(static_cast<int64_t>(i), &(*values)[i]));
  return Status::OK();
}

Status TensorArray::Size(int64_t* size) const {
  std::lock_guard<std::mutex> lock(mu_);
  AF_RETURN_IF_ERROR(CheckOpen());
  *size = static_cast<int64_t>(slots_.size());
  return Status::OK();
}

void TensorArray::Close() {
  std::vector<Slot> dropped;
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  dropped.swap(slots_);
}

Status TensorArray::GradOptions(Options* options, int64_t* size) const {
  std::lock_guard<std::mutex> lock(mu_);
  AF_RETURN_IF_ERROR(CheckOpen());
  *options = options_;
  options->dynamic_size = false;
  options->clear_after_read = true;
  options->is_grad = true;
  *size = static_cast<int64_t>(slots_.size());
  return Status::OK();
}

bool TensorArray::WrittenShape(int64_t index, TensorShape* shape) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (index < 0 || index >= static_cast<int64_t>(slots_.size())) return false;
  const Slot& slot = slots_[static_cast<size_t>(index)];
  if (!slot.written) return false;
  *shape = slot.shape;
  return true;
}

PartialTensorShape TensorArray::element_shape() const {
  std::lock_guard<std::mutex> lock(mu_);
  return options_.element_shape;
}

std::string TensorArray::DebugString() const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::string(options_.is_grad ? "gradient " : "") + "TensorArray '" + name_ + "' of " +
         DataTypeString(options_.dtype) + ", size " + std::to_string(slots_.size()) +
         ", elements " + options_.element_shape.DebugString();
}

}  // namespace af
