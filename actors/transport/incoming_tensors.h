// IncomingTensors: the destination buffers of large tensors arriving from
// another process in chunks. A chunk's bytes are deserialized straight
// into the destination tensor (no assembly buffer, no copy after the
// socket's), so the table is reached from CAF's deserializer, on whatever
// thread it runs; the worker actor counts the bytes and delivers the tensor
// to the step's rendezvous once all have arrived. No CAF here.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "core/status.h"
#include "core/tensor.h"

namespace af::actors {

class IncomingTensors {
 public:
  static IncomingTensors& Global();

  // The tensor (step, key) is being assembled into, allocated by the first
  // chunk to arrive; INVALID_ARGUMENT when a chunk disagrees with it.
  Status Acquire(int64_t step_id, const std::string& key, DataType dtype,
                 const TensorShape& shape, Tensor* out);
  // Forgets one tensor (complete or abandoned), or every tensor of a step.
  void Release(int64_t step_id, const std::string& key);
  void ReleaseStep(int64_t step_id);
  // Forgets the tensors whose first chunk came longer than `age` ago and
  // that are still incomplete: chunks for a step this worker never runs (a
  // sender that died, or a member naming steps that do not exist) would
  // otherwise pin their buffers for the process's life. Returns how many.
  size_t ReleaseOlderThan(std::chrono::steady_clock::duration age);
  size_t size() const;

 private:
  struct Assembly {
    Tensor tensor;
    std::chrono::steady_clock::time_point started;
  };
  mutable std::mutex mu_;  // guards tensors_
  std::map<std::pair<int64_t, std::string>, Assembly> tensors_;
};

}  // namespace af::actors
