// KernelSegment: the stateful kernels of one session on one device, shared
// by every step plan (TensorFlow's OpSegment). A plan is built per
// (feeds, fetches, targets), and without sharing each plan would make its
// own random generators, queues and readers: a seeded random op would
// restart its sequence whenever the fetches change, and an unnamed queue
// filled by one plan would be empty in another.
//
// A kernel is shared when a later plan has a node of the same name whose
// op, device and attrs match; Send/Recv and _Arg/_Retval belong to their
// plan and are never shared.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/op_kernel.h"
#include "core/status.h"
#include "proto/node_def.pb.h"

namespace af {

class DeviceBase;
class Node;

class KernelSegment {
 public:
  // The kernel for `node`: the shared one when it qualifies, else a new
  // kernel from the registry (remembered when `node` is stateful).
  Status FindOrCreate(const Node& node, DeviceBase* device, std::shared_ptr<OpKernel>* out);

 private:
  struct Entry {
    tensorflow::NodeDef def;  // what the kernel was made from
    std::shared_ptr<OpKernel> kernel;
  };
  std::mutex mu_;  // guards kernels_ (a shared kernel is created under it)
  std::unordered_map<std::string, Entry> kernels_;  // by node name
};

}  // namespace af
