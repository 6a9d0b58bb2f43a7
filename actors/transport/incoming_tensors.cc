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
    if (it->second.dtype() != dtype || it->second.shape() != shape) {
      return errors::InvalidArgument("chunk of '", key, "' says ", DataTypeString(dtype), " ",
                                     shape.DebugString(), ", earlier chunks said ",
                                     DataTypeString(it->second.dtype()), " ",
                                     it->second.shape().DebugString());
    }
    *out = it->second;
    return Status::OK();
  }
  Status s = Tensor::Allocate(GetCpuAllocator(), dtype, shape, &it->second);
  if (!s.ok()) {
    tensors_.erase(it);
    return s;
  }
  *out = it->second;
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

size_t IncomingTensors::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tensors_.size();
}

}  // namespace af::actors
