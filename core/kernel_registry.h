// KernelRegistry: kernels keyed by (op, device type, type constraints).
//
//   REGISTER_KERNEL_BUILDER(
//       KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T")
//           .Expensive(),
//       MatMulOp<float>);
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/device_base.h"
#include "core/op_kernel.h"
#include "core/status.h"

namespace af {

struct KernelDef {
  std::string op;
  DeviceType device_type;
  // attr name -> allowed types; a node matches if each attr's value is in
  // the list.
  std::vector<std::pair<std::string, DataTypeVector>> type_constraints;
  // Args kept in host memory on a GPU (shapes, indices).
  std::vector<std::string> host_memory_args;
  bool expensive = false;
  int priority = 0;  // higher wins when several match
  std::string DebugString() const;
};

class KernelDefBuilder {
 public:
  explicit KernelDefBuilder(std::string op);
  KernelDefBuilder& Device(DeviceType device_type);
  template <typename T>
  KernelDefBuilder& TypeConstraint(std::string attr) {
    return TypeConstraint(std::move(attr), DataTypeVector{DataTypeToEnum<T>::value});
  }
  KernelDefBuilder& TypeConstraint(std::string attr, DataTypeVector allowed);
  KernelDefBuilder& HostMemory(std::string arg);
  // The executor runs this kernel on the device's thread pool.
  KernelDefBuilder& Expensive(bool expensive = true);
  KernelDefBuilder& Priority(int priority);
  const KernelDef& def() const { return def_; }

 private:
  KernelDef def_;
};

using KernelFactory = std::function<OpKernel*(OpKernelConstruction*)>;

class KernelRegistry {
 public:
  static KernelRegistry* Global();

  void Register(const KernelDefBuilder& builder, KernelFactory factory);

  // The best kernel for `node` on `device_type`. NOT_FOUND lists the
  // registered device types and constraints when nothing matches.
  Status FindKernelDef(const DeviceType& device_type, const tensorflow::NodeDef& node,
                       const KernelDef** def) const;
  bool HasKernel(const DeviceType& device_type, const tensorflow::NodeDef& node) const;
  // Device types with a kernel matching `node`, in registration order.
  std::vector<DeviceType> SupportedDeviceTypes(const tensorflow::NodeDef& node) const;

  // Instantiates the kernel (the node must have its defaults filled in).
  // Construction errors name the node.
  Status CreateKernel(const DeviceType& device_type, DeviceBase* device,
                      const tensorflow::NodeDef& node, std::unique_ptr<OpKernel>* out) const;

 private:
  struct Entry {
    KernelDef def;
    KernelFactory factory;
  };
  const Entry* Find(const DeviceType& device_type, const tensorflow::NodeDef& node,
                    Status* why) const;
  mutable std::mutex mu_;  // guards kernels_
  std::multimap<std::string, Entry, std::less<>> kernels_;  // by op name
};

namespace register_kernel {
struct Receiver {
  Receiver(const KernelDefBuilder& builder, KernelFactory factory) {
    KernelRegistry::Global()->Register(builder, std::move(factory));
  }
};
}  // namespace register_kernel

}  // namespace af

#define AF_KERNEL_CONCAT_INNER(a, b) a##b
#define AF_KERNEL_CONCAT(a, b) AF_KERNEL_CONCAT_INNER(a, b)
#define REGISTER_KERNEL_BUILDER(builder, ...)                                  \
  static ::af::register_kernel::Receiver AF_KERNEL_CONCAT(af_kernel_,          \
                                                          __COUNTER__)         \
      [[maybe_unused]](builder, [](::af::OpKernelConstruction* ctx)            \
                                    -> ::af::OpKernel* { return new __VA_ARGS__(ctx); })
