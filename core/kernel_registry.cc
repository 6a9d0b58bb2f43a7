#include "core/kernel_registry.h"

#include <algorithm>

#include "core/attr_value_util.h"
#include "core/op_registry.h"

namespace af {
namespace {

// "device='CPU'; T in [DT_FLOAT, DT_DOUBLE]", as TensorFlow lists kernels.
std::string ConstraintSummary(const KernelDef& def) {
  std::string out = "device='" + def.device_type + "'";
  for (const auto& [attr, allowed] : def.type_constraints) {
    out += "; " + attr + " in [";
    for (size_t i = 0; i < allowed.size(); ++i)
      out += (i ? ", " : "") + DataTypeEnumName(allowed[i]);
    out += "]";
  }
  return out;
}

bool Allowed(const DataTypeVector& allowed, int dt) {
  return std::find(allowed.begin(), allowed.end(), static_cast<DataType>(dt)) != allowed.end();
}

// Whether every type constraint of `def` admits the node's attr value. A
// constraint on a list(type) attr admits the node when every element is
// allowed. A node lacking the attr does not match.
bool AttrsMatch(const KernelDef& def, const tensorflow::NodeDef& node) {
  for (const auto& [attr, allowed] : def.type_constraints) {
    auto it = node.attr().find(attr);
    if (it == node.attr().end()) return false;
    const tensorflow::AttrValue& v = it->second;
    if (v.value_case() == tensorflow::AttrValue::kType) {
      if (!Allowed(allowed, v.type())) return false;
    } else if (v.value_case() == tensorflow::AttrValue::kList) {
      for (int t : v.list().type())
        if (!Allowed(allowed, t)) return false;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string KernelDef::DebugString() const {
  std::string out = "op='" + op + "' " + ConstraintSummary(*this);
  if (!host_memory_args.empty()) {
    out += "; host_memory=[";
    for (size_t i = 0; i < host_memory_args.size(); ++i)
      out += (i ? ", " : "") + host_memory_args[i];
    out += "]";
  }
  if (expensive) out += "; expensive";
  if (priority != 0) out += "; priority=" + std::to_string(priority);
  return out;
}

KernelDefBuilder::KernelDefBuilder(std::string op) { def_.op = std::move(op); }

KernelDefBuilder& KernelDefBuilder::Device(DeviceType device_type) {
  def_.device_type = std::move(device_type);
  return *this;
}

KernelDefBuilder& KernelDefBuilder::TypeConstraint(std::string attr, DataTypeVector allowed) {
  def_.type_constraints.emplace_back(std::move(attr), std::move(allowed));
  return *this;
}

KernelDefBuilder& KernelDefBuilder::HostMemory(std::string arg) {
  def_.host_memory_args.push_back(std::move(arg));
  return *this;
}

KernelDefBuilder& KernelDefBuilder::Expensive(bool expensive) {
  def_.expensive = expensive;
  return *this;
}

KernelDefBuilder& KernelDefBuilder::Priority(int priority) {
  def_.priority = priority;
  return *this;
}

KernelRegistry* KernelRegistry::Global() {
  // Never destroyed, like the op registry: kernels register from static
  // initializers in other translation units.
  static KernelRegistry* registry = new KernelRegistry;
  return registry;
}

void KernelRegistry::Register(const KernelDefBuilder& builder, KernelFactory factory) {
  std::lock_guard<std::mutex> lock(mu_);
  kernels_.emplace(builder.def().op, Entry{builder.def(), std::move(factory)});
}

const KernelRegistry::Entry* KernelRegistry::Find(const DeviceType& device_type,
                                                  const tensorflow::NodeDef& node,
                                                  Status* why) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto [begin, end] = kernels_.equal_range(node.op());
  const Entry* best = nullptr;
  bool tied = false;
  for (auto it = begin; it != end; ++it) {
    const Entry& e = it->second;
    if (e.def.device_type != device_type || !AttrsMatch(e.def, node)) continue;
    if (!best || e.def.priority > best->def.priority) {
      best = &e;
      tied = false;
    } else if (e.def.priority == best->def.priority) {
      tied = true;
    }
  }
  if (best && !tied) {
    *why = Status::OK();
    return best;  // entries are never removed, so the pointer outlives the lock
  }
  if (tied) {
    // Registration order across translation units is unspecified, so a tie
    // would pick a kernel by accident.
    *why = errors::InvalidArgument("Multiple OpKernel registrations match node ",
                                   SummarizeNodeDef(node), " on '", device_type,
                                   "' devices at priority ", best->def.priority);
    return nullptr;
  }
  std::string registered;
  for (auto it = begin; it != end; ++it)
    registered += (registered.empty() ? "" : "\n  ") + ConstraintSummary(it->second.def);
  if (registered.empty()) registered = "<no registered kernels>";
  *why = errors::NotFound("No registered '", node.op(), "' OpKernel for '", device_type,
                          "' devices compatible with node ", SummarizeNodeDef(node),
                          ". Registered: ", registered);
  return nullptr;
}

Status KernelRegistry::FindKernelDef(const DeviceType& device_type,
                                     const tensorflow::NodeDef& node,
                                     const KernelDef** def) const {
  Status why;
  const Entry* e = Find(device_type, node, &why);
  *def = e ? &e->def : nullptr;
  return why;
}

bool KernelRegistry::HasKernel(const DeviceType& device_type,
                               const tensorflow::NodeDef& node) const {
  Status why;
  return Find(device_type, node, &why) != nullptr;
}

std::vector<DeviceType> KernelRegistry::SupportedDeviceTypes(
    const tensorflow::NodeDef& node) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<DeviceType> out;
  auto [begin, end] = kernels_.equal_range(node.op());
  for (auto it = begin; it != end; ++it) {
    const KernelDef& def = it->second.def;
    if (!AttrsMatch(def, node)) continue;
    if (std::find(out.begin(), out.end(), def.device_type) == out.end())
      out.push_back(def.device_type);
  }
  return out;
}

Status KernelRegistry::CreateKernel(const DeviceType& device_type, DeviceBase* device,
                                    const tensorflow::NodeDef& node,
                                    std::unique_ptr<OpKernel>* out) const {
  out->reset();
  Status why;
  const Entry* e = Find(device_type, node, &why);
  if (!e) return why;
  const tensorflow::OpDef* op_def = nullptr;
  Status s = OpRegistry::Global()->LookUpOpDef(node.op(), &op_def);
  if (!s.ok()) return NodeStatus(node, s);
  DataTypeVector inputs, outputs;
  AF_RETURN_IF_ERROR(InOutTypesForNode(node, *op_def, &inputs, &outputs));

  OpKernelConstruction ctx(device_type, device, &node, op_def, std::move(inputs),
                           std::move(outputs));
  std::unique_ptr<OpKernel> kernel(e->factory(&ctx));
  if (!ctx.status().ok()) return NodeStatus(node, ctx.status());
  if (!kernel)
    return NodeStatus(node, errors::Internal("kernel factory for ", e->def.DebugString(),
                                             " returned no kernel"));
  kernel->set_expensive(e->def.expensive);
  *out = std::move(kernel);
  return Status::OK();
}

}  // namespace af
