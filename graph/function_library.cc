#include "graph/function_library.h"

#include <google/protobuf/util/message_differencer.h>

namespace af {

FunctionIndex::FunctionIndex(const tensorflow::FunctionDefLibrary& library) {
  for (const tensorflow::FunctionDef& f : library.function()) {
    // The first definition wins, as MergeFunctionLibrary keeps it.
    by_name_.emplace(f.signature().name(), &f);
  }
}

const tensorflow::FunctionDef* FunctionIndex::Find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

Status MergeFunctionLibrary(const tensorflow::FunctionDefLibrary& addition,
                            tensorflow::FunctionDefLibrary* into) {
  for (const tensorflow::FunctionDef& f : addition.function()) {
    if (f.signature().name().empty()) {
      return errors::InvalidArgument("the graph's library holds a function without a name");
    }
    const tensorflow::FunctionDef* existing = nullptr;
    for (const tensorflow::FunctionDef& old : into->function()) {
      if (old.signature().name() == f.signature().name()) existing = &old;
    }
    if (existing == nullptr) {
      *into->add_function() = f;
    } else if (!google::protobuf::util::MessageDifferencer::Equals(*existing, f)) {
      return errors::InvalidArgument("function '", f.signature().name(),
                                     "' is already defined differently in the session's library");
    }
  }
  for (const tensorflow::GradientDef& g : addition.gradient()) {
    bool known = false;
    for (const tensorflow::GradientDef& old : into->gradient()) {
      if (old.function_name() != g.function_name()) continue;
      if (old.gradient_func() != g.gradient_func()) {
        return errors::InvalidArgument("function '", g.function_name(), "' already has gradient '",
                                       old.gradient_func(), "', not '", g.gradient_func(), "'");
      }
      known = true;
    }
    if (!known) *into->add_gradient() = g;
  }
  return Status::OK();
}

bool IsFunctionCallOp(std::string_view op) {
  return op == "PartitionedCall" || op == "StatefulPartitionedCall";
}

Status CalledFunction(const Node& node, const FunctionIndex& index, FunctionCall* call,
                      bool* is_call) {
  *is_call = false;
  const tensorflow::NodeDef& def = node.def();
  if (IsFunctionCallOp(def.op())) {
    auto f = def.attr().find("f");
    if (f == def.attr().end() || !f->second.has_func()) {
      return errors::InvalidArgument("node '", def.name(), "' (", def.op(),
                                     "): attr 'f' names no function");
    }
    const tensorflow::NameAttrList& target = f->second.func();
    call->function = index.Find(target.name());
    if (call->function == nullptr) {
      return errors::NotFound("node '", def.name(), "' (", def.op(), ") calls function '",
                              target.name(), "', which is not in the graph's library");
    }
    call->attrs = &target.attr();
    *is_call = true;
    return Status::OK();
  }
  // A registered op of the same name is the op, as Graph::AddNode decides.
  if (node.op_def().name() != def.op() || OpRegistry::Global()->LookUp(def.op()) != nullptr) {
    return Status::OK();
  }
  call->function = index.Find(def.op());
  if (call->function == nullptr) return Status::OK();
  call->attrs = &def.attr();
  *is_call = true;
  return Status::OK();
}

}  // namespace af
