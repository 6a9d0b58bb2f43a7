// CallFrame: how a step's feeds reach `_Arg` nodes and how `_Retval` nodes
// hand back fetches, without copies.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace af {

class CallFrame {
 public:
  CallFrame() = default;
  CallFrame(std::vector<Tensor> args, int num_retvals)
      : args_(std::move(args)), retvals_(num_retvals), has_retval_(num_retvals, 0) {}

  Status GetArg(int index, Tensor* value) const;
  Status SetRetval(int index, const Tensor& value);
  // FAILED_PRECONDITION if some retval was never set (its node was dead).
  Status ConsumeRetvals(std::vector<Tensor>* out);
  int num_args() const { return static_cast<int>(args_.size()); }
  int num_retvals() const { return static_cast<int>(retvals_.size()); }
  std::vector<Tensor>& mutable_args() { return args_; }
  void Reset(int num_args, int num_retvals);

 private:
  std::vector<Tensor> args_;
  std::vector<Tensor> retvals_;
  // One byte per fetch, never std::vector<bool>: `_Retval` nodes on different
  // pool threads set their flags at the same time, and vector<bool> packs
  // neighbouring flags into one word, so one thread's read-modify-write
  // could erase another's and a step would end OK with a fetch "missing".
  std::vector<uint8_t> has_retval_;
};

}  // namespace af
