#include "client/scope.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "client/control_flow/frame_tracker.h"
#include "client/save_slice_info.h"
#include "core/node_def_util.h"
#include "graph/shape_refiner.h"

namespace af {

namespace {

// Names handed out by the scopes of one graph. A name is also taken when
// the graph already has a node of that name (an imported graph).
class NameRegistry {
 public:
  std::string Unique(const Graph& graph, const std::string& prefix) {
    int& next = next_suffix_[prefix];
    std::string name = prefix;
    if (next > 0) name = internal::StrCat(prefix, "_", next);
    while (taken_.count(name) != 0 || graph.FindNode(name) != nullptr) {
      ++next;
      name = internal::StrCat(prefix, "_", next);
    }
    ++next;
    taken_.insert(name);
    return name;
  }

 private:
  std::unordered_map<std::string, int> next_suffix_;
  std::unordered_set<std::string> taken_;
};

std::string Join(const std::string& scope, std::string_view name) {
  if (scope.empty()) return std::string(name);
  return internal::StrCat(scope, "/", name);
}

}  // namespace

struct Scope::Impl {
  std::shared_ptr<Graph> graph_owner;
  Graph* graph = nullptr;
  std::shared_ptr<Status> status;
  std::shared_ptr<NameRegistry> names;
  std::shared_ptr<ShapeRefiner> refiner;
  std::shared_ptr<std::map<std::string, std::vector<Operation>>> collections;
  // By variable node name (unique in the graph).
  std::shared_ptr<std::map<std::string, SaveSliceInfo>> slice_infos;
  std::shared_ptr<FrameTracker> frames;
  int frame_context = FrameTracker::kRootFrame;
  std::string name_scope;
  std::string op_name;
  std::string device;
  DeviceFunction device_function;
  std::vector<Operation> control_deps;
  std::vector<std::string> colocation;
};

Scope::Scope(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
Scope::Scope(const Scope& other) : impl_(std::make_shared<Impl>(*other.impl_)) {}
Scope& Scope::operator=(const Scope& other) {
  if (this != &other) impl_ = std::make_shared<Impl>(*other.impl_);
  return *this;
}
Scope::Scope(Scope&&) noexcept = default;
Scope& Scope::operator=(Scope&&) noexcept = default;
Scope::~Scope() = default;

Scope Scope::NewRootScope() {
  auto impl = std::make_shared<Impl>();
  impl->graph_owner = std::make_shared<Graph>(OpRegistry::Global());
  impl->graph = impl->graph_owner.get();
  impl->status = std::make_shared<Status>();
  impl->names = std::make_shared<NameRegistry>();
  impl->collections = std::make_shared<std::map<std::string, std::vector<Operation>>>();
  impl->slice_infos = std::make_shared<std::map<std::string, SaveSliceInfo>>();
  impl->frames = std::make_shared<FrameTracker>();
  ShapeRefinerOptions options;
  options.evaluate_shape_ops = true;
  impl->refiner = std::make_shared<ShapeRefiner>(*impl->graph, options);
  return Scope(std::move(impl));
}

Scope Scope::NewRootScopeForGraph(Graph* graph) {
  auto impl = std::make_shared<Impl>();
  impl->graph = graph;
  impl->status = std::make_shared<Status>();
  impl->names = std::make_shared<NameRegistry>();
  impl->collections = std::make_shared<std::map<std::string, std::vector<Operation>>>();
  impl->slice_infos = std::make_shared<std::map<std::string, SaveSliceInfo>>();
  impl->frames = std::make_shared<FrameTracker>();
  ShapeRefinerOptions options;
  options.evaluate_shape_ops = true;
  impl->refiner = std::make_shared<ShapeRefiner>(*impl->graph, options);
  return Scope(std::move(impl));
}

Scope Scope::WithOpName(std::string_view name) const {
  Scope s(*this);
  s.impl_->op_name = std::string(name);
  return s;
}

Scope Scope::WithoutOpName() const { return WithOpName(""); }

Scope Scope::NewSubScope(std::string_view name) const {
  Scope s(*this);
  s.impl_->op_name.clear();
  if (name.empty()) return s;
  s.impl_->name_scope = impl_->names->Unique(*impl_->graph, Join(impl_->name_scope, name));
  return s;
}

Scope Scope::WithDevice(std::string_view device) const {
  Scope s(*this);
  s.impl_->device = std::string(device);
  return s;
}

Scope Scope::WithDeviceFunction(DeviceFunction fn) const {
  Scope s(*this);
  s.impl_->device_function = std::move(fn);
  return s;
}

Scope Scope::WithControlDependencies(const std::vector<Operation>& ops) const {
  Scope s(*this);
  for (const Operation& op : ops) {
    if (!op.valid()) continue;
    if (std::find(s.impl_->control_deps.begin(), s.impl_->control_deps.end(), op) ==
        s.impl_->control_deps.end())
      s.impl_->control_deps.push_back(op);
  }
  return s;
}

Scope Scope::WithControlDependencies(const Output& output) const {
  return WithControlDependencies(std::vector<Operation>{output.op()});
}

Scope Scope::WithNoControlDependencies() const {
  Scope s(*this);
  s.impl_->control_deps.clear();
  return s;
}

Scope Scope::ColocateWith(const Operation& op) const {
  Scope s(*this);
  // As TensorFlow's colocate_with: the ops follow `op`'s group, so the
  // devices asked for around them no longer apply (a slot made under a
  // GPU:1 scope for a variable on GPU:0 lives on GPU:0). A WithDevice on
  // the returned scope applies again.
  s.impl_->device.clear();
  s.impl_->device_function = nullptr;
  if (!op.valid()) {
    UpdateStatus(errors::InvalidArgument("ColocateWith: the operation is not valid"));
    return s;
  }
  // An op that is itself colocated with others joins their group, as in
  // TensorFlow; otherwise the group is named after the op.
  std::vector<std::string> groups;
  if (!GetNodeAttr(op.node()->def(), "_class", &groups).ok() || groups.empty())
    groups = {"loc:@" + op.name()};
  for (std::string& g : groups) {
    if (std::find(s.impl_->colocation.begin(), s.impl_->colocation.end(), g) ==
        s.impl_->colocation.end())
      s.impl_->colocation.push_back(std::move(g));
  }
  std::sort(s.impl_->colocation.begin(), s.impl_->colocation.end());
  return s;
}

Scope Scope::ClearColocation() const {
  Scope s(*this);
  s.impl_->colocation.clear();
  return s;
}

bool Scope::ok() const { return impl_->status->ok(); }
Status Scope::status() const { return *impl_->status; }
void Scope::UpdateStatus(const Status& s) const { impl_->status->Update(s); }

Graph* Scope::graph() const { return impl_->graph; }
std::shared_ptr<Graph> Scope::graph_as_shared_ptr() const { return impl_->graph_owner; }

Status Scope::ToGraphDef(tensorflow::GraphDef* out) const {
  AF_RETURN_IF_ERROR(status());
  impl_->graph->ToGraphDef(out);
  return Status::OK();
}

std::string Scope::GetUniqueNameForOp(std::string_view default_name) const {
  const std::string& base = impl_->op_name.empty() ? std::string(default_name) : impl_->op_name;
  return impl_->names->Unique(*impl_->graph, Join(impl_->name_scope, base));
}

const std::string& Scope::name_scope() const { return impl_->name_scope; }
const std::string& Scope::device() const { return impl_->device; }
const DeviceFunction& Scope::device_function() const { return impl_->device_function; }
const std::vector<Operation>& Scope::control_deps() const { return impl_->control_deps; }
const std::vector<std::string>& Scope::colocation_constraints() const {
  return impl_->colocation;
}

void Scope::AddToCollection(const std::string& name, const Operation& op) const {
  (*impl_->collections)[name].push_back(op);
}

std::vector<Operation> Scope::GetCollection(const std::string& name) const {
  auto it = impl_->collections->find(name);
  return it == impl_->collections->end() ? std::vector<Operation>{} : it->second;
}

void Scope::RecordSaveSliceInfo(const Operation& variable, const SaveSliceInfo& info) const {
  if (!variable.valid()) return;
  (*impl_->slice_infos)[variable.name()] = info;
}

const SaveSliceInfo* Scope::FindSaveSliceInfo(const Node* variable) const {
  if (variable == nullptr) return nullptr;
  auto it = impl_->slice_infos->find(variable->name());
  return it == impl_->slice_infos->end() ? nullptr : &it->second;
}

Status Scope::RefineNode(Node* node) const { return impl_->refiner->RefineNode(node); }

FrameTracker* Scope::frame_tracker() const { return impl_->frames.get(); }
int Scope::frame_context() const { return impl_->frame_context; }

Scope Scope::WithFrameContext(int frame) const {
  Scope s(*this);
  s.impl_->frame_context = frame;
  return s;
}

}  // namespace af
