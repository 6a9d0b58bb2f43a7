#include "graph/function_instantiation.h"

#include "core/node_def_util.h"

namespace af {

Status InstantiateSignature(const tensorflow::FunctionDef& function, const AttrMap& call_attrs,
                            FunctionSignatureTypes* out) {
  const tensorflow::OpDef& signature = function.signature();
  out->instance.Clear();
  out->instance.set_name(signature.name());
  out->instance.set_op(signature.name());
  for (const auto& [name, value] : call_attrs) {
    if (!name.starts_with('_')) (*out->instance.mutable_attr())[name] = value;
  }
  AddDefaultsToNodeDef(signature, &out->instance);
  Status s = InOutTypesForNode(out->instance, signature, &out->args, &out->results);
  if (!s.ok()) {
    return errors::InvalidArgument("function '", signature.name(),
                                   "' cannot be instantiated with the call's attrs: ", s.message());
  }
  return Status::OK();
}

Status SubstitutePlaceholders(const tensorflow::FunctionDef& function, const AttrMap& call_attrs,
                              tensorflow::NodeDef* node) {
  for (auto& [name, value] : *node->mutable_attr()) {
    if (value.value_case() != tensorflow::AttrValue::kPlaceholder) continue;
    auto it = call_attrs.find(value.placeholder());
    if (it == call_attrs.end()) {
      return errors::InvalidArgument("function '", function.signature().name(), "', node '",
                                     node->name(), "': attr '", name, "' refers to $",
                                     value.placeholder(), ", which the call does not set");
    }
    value = it->second;
  }
  return Status::OK();
}

}  // namespace af
