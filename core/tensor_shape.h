// TensorShape (fully known dims) and PartialTensorShape (unknown dims and
// unknown rank, used by shape inference).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "core/status.h"

namespace af {

// Small-buffer dim storage: shapes of rank <= kInlineDims never allocate,
// which keeps tensor creation in the executor's hot path allocation-free.
class DimVector {
 public:
  static constexpr int kInlineDims = 6;
  DimVector() = default;
  DimVector(std::initializer_list<int64_t> dims);
  DimVector(const DimVector& other);
  DimVector& operator=(const DimVector& other);
  DimVector(DimVector&& other) noexcept;
  DimVector& operator=(DimVector&& other) noexcept;
  ~DimVector();

  int size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t* data() const { return capacity_ > kInlineDims ? heap_ : inline_; }
  int64_t* data() { return capacity_ > kInlineDims ? heap_ : inline_; }
  int64_t operator[](int i) const { return data()[i]; }
  int64_t& operator[](int i) { return data()[i]; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  void push_back(int64_t v);
  void insert(int pos, int64_t v);
  void erase(int pos);
  void resize(int n, int64_t fill = 0);
  void clear() { resize(0); }
  bool operator==(const DimVector& o) const;
  bool operator!=(const DimVector& o) const { return !(*this == o); }

 private:
  int size_ = 0;
  int capacity_ = kInlineDims;
  union {
    int64_t inline_[kInlineDims];
    int64_t* heap_;
  };
};

class TensorShape {
 public:
  TensorShape() = default;  // a scalar
  TensorShape(std::initializer_list<int64_t> dims);
  explicit TensorShape(const std::vector<int64_t>& dims);

  // Validates: no negative dims, element count fits in int64.
  static Status Build(const std::vector<int64_t>& dims, TensorShape* out);
  static Status Build(const int64_t* dims, int n, TensorShape* out);

  int dims() const { return dims_.size(); }
  int64_t dim_size(int d) const { return dims_[d]; }
  int64_t num_elements() const { return num_elements_; }
  const DimVector& dim_sizes() const { return dims_; }
  std::vector<int64_t> dim_vector() const { return {dims_.begin(), dims_.end()}; }

  void AddDim(int64_t size);
  void InsertDim(int d, int64_t size);
  void RemoveDim(int d);
  void set_dim(int d, int64_t size);
  void Clear();

  bool IsSameSize(const TensorShape& other) const { return dims_ == other.dims_; }
  bool operator==(const TensorShape& o) const { return IsSameSize(o); }
  bool operator!=(const TensorShape& o) const { return !IsSameSize(o); }

  // "[2,3]" as TensorFlow prints shapes; "[]" for a scalar.
  std::string DebugString() const;

 private:
  void Recompute();
  DimVector dims_;
  int64_t num_elements_ = 1;
};

// A shape some of whose dims (-1) or whose rank may be unknown.
class PartialTensorShape {
 public:
  PartialTensorShape() = default;  // unknown rank
  PartialTensorShape(std::initializer_list<int64_t> dims);
  explicit PartialTensorShape(const std::vector<int64_t>& dims);
  PartialTensorShape(const TensorShape& shape);  // NOLINT: fully known

  static PartialTensorShape Unknown() { return PartialTensorShape(); }
  static PartialTensorShape UnknownOfRank(int rank);

  bool unknown_rank() const { return unknown_rank_; }
  int dims() const { return unknown_rank_ ? -1 : dims_.size(); }  // -1: unknown
  int64_t dim_size(int d) const { return dims_[d]; }  // -1: unknown
  const DimVector& dim_sizes() const { return dims_; }
  bool IsFullyDefined() const;
  // Element count, or -1 if any dim or the rank is unknown.
  int64_t num_elements() const;

  bool AsTensorShape(TensorShape* out) const;  // false unless fully defined
  // Whether a concrete shape could be an instance of this one.
  bool IsCompatibleWith(const TensorShape& shape) const;
  bool IsCompatibleWith(const PartialTensorShape& shape) const;
  // The most specific shape compatible with both, or an error.
  Status MergeWith(const PartialTensorShape& other, PartialTensorShape* out) const;
  void AddDim(int64_t size);  // size -1 adds an unknown dim

  // "<unknown>", "[?,3]", "[2,3]".
  std::string DebugString() const;
  bool operator==(const PartialTensorShape& o) const {
    return unknown_rank_ == o.unknown_rank_ && dims_ == o.dims_;
  }

 private:
  bool unknown_rank_ = true;
  DimVector dims_;
};

std::ostream& operator<<(std::ostream& os, const TensorShape& s);
std::ostream& operator<<(std::ostream& os, const PartialTensorShape& s);

}  // namespace af
