#include "core/tensor_shape.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace af {

// ---- DimVector ----

DimVector::DimVector(std::initializer_list<int64_t> dims) {
  for (int64_t d : dims) push_back(d);
}

DimVector::DimVector(const DimVector& other) {
  resize(other.size_);
  std::memcpy(data(), other.data(), sizeof(int64_t) * size_);
}

DimVector& DimVector::operator=(const DimVector& other) {
  if (this != &other) {
    resize(other.size_);
    std::memcpy(data(), other.data(), sizeof(int64_t) * size_);
  }
  return *this;
}

DimVector::DimVector(DimVector&& other) noexcept
    : size_(other.size_), capacity_(other.capacity_) {
  if (capacity_ > kInlineDims) {
    heap_ = other.heap_;
    other.capacity_ = kInlineDims;
  } else {
    std::memcpy(inline_, other.inline_, sizeof(inline_));
  }
  other.size_ = 0;
}

DimVector& DimVector::operator=(DimVector&& other) noexcept {
  if (this != &other) {
    if (capacity_ > kInlineDims) delete[] heap_;
    size_ = other.size_;
    capacity_ = other.capacity_;
    if (capacity_ > kInlineDims) {
      heap_ = other.heap_;
      other.capacity_ = kInlineDims;
    } else {
      std::memcpy(inline_, other.inline_, sizeof(inline_));
    }
    other.size_ = 0;
  }
  return *this;
}

DimVector::~DimVector() {
  if (capacity_ > kInlineDims) delete[] heap_;
}

void DimVector::resize(int n, int64_t fill) {
  // Heap storage is used exactly while capacity_ > kInlineDims; shrinking
  // back to an inline size returns to inline storage.
  if (n > kInlineDims && capacity_ < n) {
    int new_cap = std::max(n, capacity_ * 2);
    int64_t* fresh = new int64_t[new_cap];
    std::memcpy(fresh, data(), sizeof(int64_t) * size_);
    if (capacity_ > kInlineDims) delete[] heap_;
    heap_ = fresh;
    capacity_ = new_cap;
  } else if (n <= kInlineDims && capacity_ > kInlineDims) {
    int64_t* old = heap_;
    std::memcpy(inline_, old, sizeof(int64_t) * std::min(n, size_));
    delete[] old;
    capacity_ = kInlineDims;
  }
  int64_t* p = (capacity_ > kInlineDims) ? heap_ : inline_;
  for (int i = size_; i < n; ++i) p[i] = fill;
  size_ = n;
}

void DimVector::push_back(int64_t v) {
  resize(size_ + 1);
  data()[size_ - 1] = v;
}

void DimVector::insert(int pos, int64_t v) {
  resize(size_ + 1);
  int64_t* p = data();
  for (int i = size_ - 1; i > pos; --i) p[i] = p[i - 1];
  p[pos] = v;
}

void DimVector::erase(int pos) {
  int64_t* p = data();
  for (int i = pos; i + 1 < size_; ++i) p[i] = p[i + 1];
  resize(size_ - 1);
}

bool DimVector::operator==(const DimVector& o) const {
  return size_ == o.size_ &&
         std::memcmp(data(), o.data(), sizeof(int64_t) * size_) == 0;
}

// ---- TensorShape ----

TensorShape::TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {
  Recompute();
}

TensorShape::TensorShape(const std::vector<int64_t>& dims) {
  for (int64_t d : dims) dims_.push_back(d);
  Recompute();
}

Status TensorShape::Build(const std::vector<int64_t>& dims, TensorShape* out) {
  return Build(dims.data(), static_cast<int>(dims.size()), out);
}

Status TensorShape::Build(const int64_t* dims, int n, TensorShape* out) {
  TensorShape shape;
  int64_t count = 1;
  for (int i = 0; i < n; ++i) {
    if (dims[i] < 0)
      return errors::InvalidArgument("dimension ", i, " of a shape is ", dims[i],
                                     ", which is negative");
    if (dims[i] > 0 && count > std::numeric_limits<int64_t>::max() / dims[i])
      return errors::InvalidArgument("shape has too many elements: the product "
                                     "of its dims overflows int64");
    count *= dims[i];
    shape.dims_.push_back(dims[i]);
  }
  shape.num_elements_ = count;
  *out = std::move(shape);
  return Status::OK();
}

void TensorShape::Recompute() {
  // Shapes built without Build() are trusted, but an overflowing product
  // must not wrap to a small count: saturate so that allocation fails.
  int64_t n = 1;
  bool overflow = false;
  for (int64_t d : dims_) {
    if (d == 0) {
      num_elements_ = 0;
      return;
    }
    overflow = overflow || __builtin_mul_overflow(n, d, &n);
  }
  num_elements_ = overflow ? std::numeric_limits<int64_t>::max() : n;
}

void TensorShape::AddDim(int64_t size) {
  dims_.push_back(size);
  Recompute();
}

void TensorShape::InsertDim(int d, int64_t size) {
  dims_.insert(d, size);
  Recompute();
}

void TensorShape::RemoveDim(int d) {
  dims_.erase(d);
  Recompute();
}

void TensorShape::set_dim(int d, int64_t size) {
  dims_[d] = size;
  Recompute();
}

void TensorShape::Clear() {
  dims_.clear();
  num_elements_ = 1;
}

std::string TensorShape::DebugString() const {
  std::string s = "[";
  for (int i = 0; i < dims(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims_[i]);
  }
  return s + "]";
}

// ---- PartialTensorShape ----

PartialTensorShape::PartialTensorShape(std::initializer_list<int64_t> dims)
    : unknown_rank_(false) {
  for (int64_t d : dims) dims_.push_back(d < 0 ? -1 : d);
}

PartialTensorShape::PartialTensorShape(const std::vector<int64_t>& dims)
    : unknown_rank_(false) {
  for (int64_t d : dims) dims_.push_back(d < 0 ? -1 : d);
}

PartialTensorShape::PartialTensorShape(const TensorShape& shape)
    : unknown_rank_(false), dims_(shape.dim_sizes()) {}

PartialTensorShape PartialTensorShape::UnknownOfRank(int rank) {
  PartialTensorShape s;
  s.unknown_rank_ = false;
  s.dims_.resize(rank, -1);
  return s;
}

bool PartialTensorShape::IsFullyDefined() const {
  if (unknown_rank_) return false;
  for (int64_t d : dims_)
    if (d < 0) return false;
  return true;
}

int64_t PartialTensorShape::num_elements() const {
  if (!IsFullyDefined()) return -1;
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

bool PartialTensorShape::AsTensorShape(TensorShape* out) const {
  if (!IsFullyDefined()) return false;
  return TensorShape::Build(dims_.data(), dims_.size(), out).ok();
}

bool PartialTensorShape::IsCompatibleWith(const TensorShape& shape) const {
  if (unknown_rank_) return true;
  if (dims() != shape.dims()) return false;
  for (int i = 0; i < dims(); ++i)
    if (dims_[i] >= 0 && dims_[i] != shape.dim_size(i)) return false;
  return true;
}

bool PartialTensorShape::IsCompatibleWith(const PartialTensorShape& o) const {
  if (unknown_rank_ || o.unknown_rank_) return true;
  if (dims() != o.dims()) return false;
  for (int i = 0; i < dims(); ++i)
    if (dims_[i] >= 0 && o.dims_[i] >= 0 && dims_[i] != o.dims_[i]) return false;
  return true;
}

Status PartialTensorShape::MergeWith(const PartialTensorShape& o,
                                     PartialTensorShape* out) const {
  if (unknown_rank_) {
    *out = o;
    return Status::OK();
  }
  if (o.unknown_rank_) {
    *out = *this;
    return Status::OK();
  }
  if (dims() != o.dims())
    return errors::InvalidArgument("shapes ", DebugString(), " and ", o.DebugString(),
                                   " have different ranks");
  PartialTensorShape merged = UnknownOfRank(dims());
  for (int i = 0; i < dims(); ++i) {
    int64_t a = dims_[i], b = o.dims_[i];
    if (a >= 0 && b >= 0 && a != b)
      return errors::InvalidArgument("shapes ", DebugString(), " and ",
                                     o.DebugString(), " differ in dimension ", i);
    merged.dims_[i] = a >= 0 ? a : b;
  }
  *out = std::move(merged);
  return Status::OK();
}

void PartialTensorShape::AddDim(int64_t size) {
  unknown_rank_ = false;
  dims_.push_back(size < 0 ? -1 : size);
}

std::string PartialTensorShape::DebugString() const {
  if (unknown_rank_) return "<unknown>";
  std::string s = "[";
  for (int i = 0; i < dims(); ++i) {
    if (i) s += ",";
    s += dims_[i] < 0 ? "?" : std::to_string(dims_[i]);
  }
  return s + "]";
}

std::ostream& operator<<(std::ostream& os, const TensorShape& s) {
  return os << s.DebugString();
}
std::ostream& operator<<(std::ostream& os, const PartialTensorShape& s) {
  return os << s.DebugString();
}

}  // namespace af
