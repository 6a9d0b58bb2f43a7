// The object behind a TensorArrayV3 handle: `size` tensor slots for one
// step. Writes keep the written tensor (sharing its buffer). A slot is
// written once, unless the array is a gradient array: backprop may send
// several gradients to one element, and those writes are summed. Gradient
// arrays also read never-written slots as zeros, since an element nothing
// depended on has a zero gradient; the zeros take the element shape, or
// where that is not fully known the shape the forward array's element had.
//
// Every method takes the array's lock, so writes and reads of one array
// may come from several threads (while-loop iterations) at once. Errors
// name the array; the kernels add the node.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/resource_mgr.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"

namespace af {

class TensorArray : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "TensorArray";

  struct Options {
    DataType dtype = DT_INVALID;
    PartialTensorShape element_shape;  // unknown rank by default
    bool dynamic_size = false;
    bool clear_after_read = true;
    bool identical_element_shapes = false;
    // A gradient array: writes to one index are summed and unwritten
    // slots read as zeros.
    bool is_grad = false;
  };

  TensorArray(std::string name, const Options& options, int64_t size);
  ~TensorArray() override;

  // Writes values[i] to indices[i], in order, under one lock.
  Status WriteMany(const std::vector<int64_t>& indices, const std::vector<Tensor>& values);
  Status Write(int64_t index, const Tensor& value) { return WriteMany({index}, {value}); }
  Status ReadMany(const std::vector<int64_t>& indices, std::vector<Tensor>* values);
  Status Read(int64_t index, Tensor* value);
  // Every element, for Concat.
  Status ReadAll(std::vector<Tensor>* values);
  Status Size(int64_t* size) const;
  void Close();

  // What the gradient array of this array starts as: same dtype, size and
  // element shape, fixed size, aggregating writes.
  Status GradOptions(Options* options, int64_t* size) const;

  // A gradient array's forward array (set before the gradient array is
  // shared), asked for the shapes of elements with no gradient.
  void set_forward(ResourceRef<TensorArray> forward) { forward_ = std::move(forward); }
  // The shape element `index` was written with (kept after it was read).
  bool WrittenShape(int64_t index, TensorShape* shape) const;

  const std::string& name() const { return name_; }
  DataType dtype() const { return options_.dtype; }
  bool is_grad() const { return options_.is_grad; }
  bool dynamic_size() const { return options_.dynamic_size; }
  PartialTensorShape element_shape() const;
  std::string DebugString() const override;

  // Arrays alive in the process (tests check each step frees its own).
  static int64_t NumLive() { return live_.load(std::memory_order_acquire); }

 private:
  struct Slot {
    Tensor value;
    bool written = false;
    bool cleared = false;  // read with clear_after_read
    TensorShape shape;     // of the value written, valid when `written`
  };
  Status CheckOpen() const;
  Status LockedWrite(int64_t index, const Tensor& value);
  Status LockedRead(int64_t index, Tensor* value);

  const std::string name_;
  Options options_;  // element_shape tightens as writes fix it
  mutable std::mutex mu_;  // guards slots_, closed_ and options_.element_shape
  std::vector<Slot> slots_;
  bool closed_ = false;
  ResourceRef<TensorArray> forward_;
  static std::atomic<int64_t> live_;
};

}  // namespace af
