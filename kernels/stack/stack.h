// The object behind a StackV2 handle: a per-step LIFO of tensors. Pushed
// tensors are kept as they are (sharing their buffers), so a push costs no
// copy; a while loop's forward values stay alive until the gradient pops them.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "core/resource_mgr.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/types.h"

namespace af {

class Stack : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "Stack";

  // max_size < 0: unbounded.
  Stack(DataType elem_type, int64_t max_size, std::string name);
  ~Stack() override;

  // Errors (INVALID_ARGUMENT) name the stack; the caller adds the node.
  Status Push(const Tensor& value);
  Status Pop(Tensor* value);
  void Close();

  DataType elem_type() const { return elem_type_; }
  const std::string& name() const { return name_; }
  size_t size() const;
  std::string DebugString() const override;

  // Stacks alive in the process (tests check each step frees its own).
  static int64_t NumLive() { return live_.load(std::memory_order_acquire); }

 private:
  const DataType elem_type_;
  const int64_t max_size_;
  const std::string name_;
  mutable std::mutex mu_;  // guards elems_ and closed_
  std::vector<Tensor> elems_;
  bool closed_ = false;
  static std::atomic<int64_t> live_;
};

}  // namespace af
