#include "core/op_registry.h"
#include "core/logging.h"

#include <cstdio>
#include <cstdlib>

namespace af {

OpRegistry* OpRegistry::Global() {
  // Never destroyed: ops register from static initializers of other
  // translation units and may be looked up during static destruction.
  static OpRegistry* registry = new OpRegistry;
  return registry;
}

Status OpRegistry::Register(const OpDefBuilder& builder) {
  OpRegistrationData data;
  AF_RETURN_IF_ERROR(builder.Finalize(&data));
  return Register(std::move(data));
}

Status OpRegistry::Register(OpRegistrationData data) {
  std::string name = data.op_def.name();
  if (name.empty()) return errors::InvalidArgument("cannot register an op without a name");
  std::lock_guard<std::mutex> lock(mu_);
  if (ops_.count(name)) return errors::AlreadyExists("Op '", name, "' is already registered");
  ops_.emplace(std::move(name), std::make_unique<OpRegistrationData>(std::move(data)));
  return Status::OK();
}

const OpRegistrationData* OpRegistry::LookUp(std::string_view op_name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ops_.find(op_name);
  // Entries are never removed and live behind unique_ptrs, so the pointer
  // stays valid after the lock is released.
  return it == ops_.end() ? nullptr : it->second.get();
}

Status OpRegistry::LookUpOpDef(std::string_view op_name, const tensorflow::OpDef** out) const {
  const OpRegistrationData* data = LookUp(op_name);
  if (!data) {
    *out = nullptr;
    return errors::NotFound("Op type not registered '", op_name, "'");
  }
  *out = &data->op_def;
  return Status::OK();
}

std::vector<std::string> OpRegistry::ListOps() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  names.reserve(ops_.size());
  for (const auto& [name, data] : ops_) names.push_back(name);
  return names;
}

namespace register_op {

OpDefBuilderReceiver::OpDefBuilderReceiver(const OpDefBuilder& builder) {
  Status s = OpRegistry::Global()->Register(builder);
  if (!s.ok()) {
    AF_LOG(FATAL) << "REGISTER_OP failed: " << s.ToString();
  }
}

}  // namespace register_op
}  // namespace af
