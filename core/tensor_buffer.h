// TensorBuffer: the ref-counted memory behind tensors. Copying a Tensor
// shares its buffer; slices along dim 0 reference their parent's buffer.
#pragma once

#include <atomic>
#include <cstddef>

#include "core/allocator.h"
#include "core/types.h"

namespace af {

class TensorBuffer {
 public:
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }
  // The buffer that owns the memory (itself unless this is a slice).
  virtual const TensorBuffer* root() const { return this; }
  virtual Allocator* allocator() const = 0;

  void Ref() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() const {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  bool RefCountIsOne() const { return refs_.load(std::memory_order_acquire) == 1; }

 protected:
  TensorBuffer(void* data, size_t size) : data_(data), size_(size) {}
  virtual ~TensorBuffer() = default;

 private:
  void* const data_;
  const size_t size_;
  mutable std::atomic<int> refs_{1};
};

// Memory from an Allocator. String elements are constructed on creation and
// destroyed with the buffer.
class AllocatedBuffer final : public TensorBuffer {
 public:
  // Returns nullptr when the allocator is out of memory.
  static AllocatedBuffer* Create(Allocator* allocator, DataType dtype,
                                 int64_t num_elements);
  Allocator* allocator() const override { return allocator_; }

 private:
  AllocatedBuffer(Allocator* a, void* data, size_t bytes, DataType dtype, int64_t n)
      : TensorBuffer(data, bytes), allocator_(a), dtype_(dtype), num_elements_(n) {}
  ~AllocatedBuffer() override;
  Allocator* const allocator_;
  const DataType dtype_;
  const int64_t num_elements_;
};

// A window into another buffer; keeps the parent alive.
class SubBuffer final : public TensorBuffer {
 public:
  SubBuffer(const TensorBuffer* parent, size_t offset, size_t bytes);
  const TensorBuffer* root() const override { return parent_->root(); }
  Allocator* allocator() const override { return parent_->allocator(); }

 private:
  ~SubBuffer() override { parent_->Unref(); }
  const TensorBuffer* const parent_;
};

// Intrusive handle that does the Ref/Unref bookkeeping.
class BufferRef {
 public:
  BufferRef() = default;
  explicit BufferRef(TensorBuffer* adopted) : buf_(adopted) {}  // takes the ref
  BufferRef(const BufferRef& o) : buf_(o.buf_) { if (buf_) buf_->Ref(); }
  BufferRef(BufferRef&& o) noexcept : buf_(o.buf_) { o.buf_ = nullptr; }
  BufferRef& operator=(const BufferRef& o) {
    if (o.buf_) o.buf_->Ref();
    if (buf_) buf_->Unref();
    buf_ = o.buf_;
    return *this;
  }
  BufferRef& operator=(BufferRef&& o) noexcept {
    if (this != &o) {
      if (buf_) buf_->Unref();
      buf_ = o.buf_;
      o.buf_ = nullptr;
    }
    return *this;
  }
  ~BufferRef() { if (buf_) buf_->Unref(); }
  TensorBuffer* get() const { return buf_; }
  TensorBuffer* operator->() const { return buf_; }
  explicit operator bool() const { return buf_ != nullptr; }

 private:
  TensorBuffer* buf_ = nullptr;
};

}  // namespace af
