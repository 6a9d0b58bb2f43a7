#include "actors/transport/incoming_tensors.h"

#include "core/allocator.h"

namespace af::actors {

IncomingTensors& IncomingTensors::Global() {
  static IncomingTensors* const table = new IncomingTensors();
  return *table;
}

Status IncomingTensors::Acquire(int64_t step_id, const std::string& key, DataType dtype,
                                const TensorShape& shape, Tensor* out) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = tensors_.try_emplace({step_id, key});
  if (!inserted) {
    const Tensor& held = it->second.tensor;
    if (held.dtype() != dtype || held.shape() != shape) {
      return errors::InvalidArgument("chunk of '", key, "' says ", DataTypeString(dtype), " ",
                                     shape.DebugString(), ", earlier chunks said ",
                                     DataTypeString(held.dtype()), " ",
                                     held.shape().DebugString());
    }
    *out = held;
    return Status::OK();
  }
  Status s = Tensor::Allocate(GetCpuAllocator(), dtype, shape, &it->second.tensor);
  if (!s.ok()) {
    tensors_.erase(it);
    return s;
  }
  it->second.started = std::chrono::steady_clock::now();
  *out = it->second.tensor;
  return Status::OK();
}

void IncomingTensors::Release(int64_t step_id, const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  tensors_.erase({step_id, key});
}

void IncomingTensors::ReleaseStep(int64_t step_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tensors_.lower_bound({step_id, std::string()});
  while (it != tensors_.end() && it->first.first == step_id) it = tensors_.erase(it);
}

size_t IncomingTensors::ReleaseOlderThan(std::chrono::steady_clock::duration age) {
  const auto cutoff = std::chrono::steady_clock::now() - age;
  std::lock_guard<std::mutex> lock(mu_);
  return std::erase_if(tensors_, [&](const auto& entry) { return entry.second.started < cutoff; });
}

size_t IncomingTensors::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tensors_.size();
}

}  // namespace af::actors
