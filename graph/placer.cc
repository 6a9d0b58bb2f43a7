#include "graph/placer.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/device_name.h"
#include "graph/algorithm.h"
#include "graph/colocation.h"

namespace af {
namespace {

struct PlacerDevice {
  std::string name;  // canonical full name
  DeviceType type;
  DeviceName parsed;
};

struct Group {
  DeviceName constraint;
  const Node* constrained_by = nullptr;  // first member with a constraint
  std::vector<int> candidates;           // device indices, in device-list order
};

std::string Join(const std::vector<std::string>& items, std::string_view sep = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += items[i];
  }
  return out;
}

std::string TypeList(const std::vector<DeviceType>& types) {
  std::string out = "[";  // appended: GCC 12 -Wrestrict misfires on "[" + string
  out.append(Join(types)).append("]");
  return out;
}

class Placer {
 public:
  Placer(Graph* g, const PlacerOptions& options)
      : g_(g),
        kernels_(options.kernels ? options.kernels : KernelRegistry::Global()),
        cost_(options.cost_model ? options.cost_model : &default_cost_),
        soft_(options.allow_soft_placement) {}

  Status Run(const std::vector<DeviceInfo>& devices) {
    AF_RETURN_IF_ERROR(InitDevices(devices));
    AF_RETURN_IF_ERROR(ComputeColocationGroups(*g_, &colocation_));
    groups_.resize(colocation_.members.size());
    for (size_t i = 0; i < groups_.size(); ++i) {
      AF_RETURN_IF_ERROR(ConstrainGroup(static_cast<int>(i)));
    }
    std::vector<int> group_device;
    AF_RETURN_IF_ERROR(Simulate(&group_device));
    for (Node* n : g_->nodes()) {
      n->set_assigned_device_name(devices_[group_device[colocation_.group_of[n->id()]]].name);
    }
    return Status::OK();
  }

 private:
  Status InitDevices(const std::vector<DeviceInfo>& devices) {
    if (devices.empty()) return errors::InvalidArgument("Cannot place a graph on no devices");
    std::set<std::string> seen;
    for (const DeviceInfo& info : devices) {
      PlacerDevice d;
      Status s = ParseDeviceName(info.name, &d.parsed);
      if (!s.ok() || !d.parsed.IsFullySpecified()) {
        return errors::InvalidArgument("Placer device '", info.name, "' is not a full device name",
                                       s.ok() ? "" : ": " + s.message());
      }
      d.name = d.parsed.ToString();
      d.type = d.parsed.type;
      if (!info.type.empty()) {
        DeviceName typed;
        // Device types are compared upper-cased, as names store them.
        if (!ParseDeviceName("/device:" + info.type, &typed).ok() || typed.type != d.type) {
          return errors::InvalidArgument("Placer device '", info.name, "' has type '", info.type,
                                         "', which its name contradicts");
        }
      }
      if (!seen.insert(d.name).second) {
        return errors::InvalidArgument("Placer device '", d.name, "' is listed twice");
      }
      devices_.push_back(std::move(d));
    }
    std::vector<std::string> names;
    for (const PlacerDevice& d : devices_) names.push_back(d.name);
    available_ = Join(names);
    same_space_.assign(devices_.size(), std::vector<bool>(devices_.size(), false));
    for (size_t a = 0; a < devices_.size(); ++a) {
      for (size_t b = 0; b < devices_.size(); ++b) {
        same_space_[a][b] = IsSameAddressSpace(devices_[a].parsed, devices_[b].parsed);
      }
    }
    return Status::OK();
  }

  // The spec a node asks for, as written, and parsed.
  const std::string& RawConstraint(const Node& n) const {
    return n.assigned_device_name().empty() ? n.requested_device() : n.assigned_device_name();
  }

  Status NodeConstraint(const Node& n, DeviceName* out) const {
    if (!n.assigned_device_name().empty()) {
      Status s = ParseDeviceName(n.assigned_device_name(), out);
      bool known = s.ok() && out->IsFullySpecified() &&
                   std::any_of(devices_.begin(), devices_.end(),
                               [&](const PlacerDevice& d) { return d.parsed == *out; });
      if (!known) {
        return errors::InvalidArgument("Node '", n.name(), "' (op ", n.type_string(),
                                       ") is assigned to device '", n.assigned_device_name(),
                                       "', which is not an available device; available "
                                       "devices: ",
                                       available_);
      }
      return Status::OK();
    }
    Status s = ParseDeviceName(n.requested_device(), out);
    if (!s.ok()) {
      return errors::InvalidArgument("Cannot assign a device for operation '", n.name(), "' (op ",
                                     n.type_string(), "): ", s.message());
    }
    return Status::OK();
  }

  bool MatchesAnyDevice(const DeviceName& spec) const {
    return std::any_of(devices_.begin(), devices_.end(),
                       [&](const PlacerDevice& d) { return IsSpecification(spec, d.parsed); });
  }

  std::vector<int> Candidates(const DeviceName& spec, const std::set<DeviceType>& feasible) const {
    std::vector<int> out;
    for (size_t i = 0; i < devices_.size(); ++i) {
      if (IsSpecification(spec, devices_[i].parsed) && feasible.count(devices_[i].type)) {
        out.push_back(static_cast<int>(i));
      }
    }
    return out;
  }

  std::string GroupNote(int group) const {
    const std::vector<Node*>& members = colocation_.members[group];
    if (members.size() < 2) return "";
    std::vector<std::string> names;
    for (size_t i = 0; i < members.size() && i < 10; ++i) names.push_back(members[i]->name());
    if (members.size() > 10) names.push_back("... (" + std::to_string(members.size()) + " in all)");
    return "; colocation group: " + Join(names);
  }

  Status ConstrainGroup(int group) {
    Group& info = groups_[group];
    std::set<DeviceType> feasible;
    for (const PlacerDevice& d : devices_) feasible.insert(d.type);
    for (Node* m : colocation_.members[group]) {
      DeviceName spec;
      AF_RETURN_IF_ERROR(NodeConstraint(*m, &spec));
      if (spec != DeviceName()) {
        Status s = MergeDevNames(&info.constraint, spec);
        if (!s.ok()) {
          return errors::InvalidArgument("Cannot colocate nodes '", info.constrained_by->name(),
                                         "' and '", m->name(), "' (device specifications '",
                                         RawConstraint(*info.constrained_by), "' and '",
                                         RawConstraint(*m), "'): ", s.message(), GroupNote(group));
        }
        if (info.constrained_by == nullptr) info.constrained_by = m;
      }
      std::vector<DeviceType> supported = kernels_->SupportedDeviceTypes(m->def());
      std::set<DeviceType> kept;
      for (const DeviceType& t : supported) {
        if (feasible.count(t)) kept.insert(t);
      }
      feasible = std::move(kept);
    }
    info.candidates = Candidates(info.constraint, feasible);
    if (info.candidates.empty() && soft_) {
      DeviceName relaxed = info.constraint;
      relaxed.has_id = false;
      info.candidates = Candidates(relaxed, feasible);
      if (info.candidates.empty()) {
        relaxed.has_type = false;
        info.candidates = Candidates(relaxed, feasible);
      }
      if (info.candidates.empty()) info.candidates = Candidates(DeviceName(), feasible);
    }
    if (info.candidates.empty()) return NoCandidateError(group);
    return Status::OK();
  }

  // Explains why a group has no device: a member's own constraint matches
  // no device, a member has no kernel for the matching devices' types, or
  // the members' kernels share no type.
  Status NoCandidateError(int group) const {
    const Group& info = groups_[group];
    const std::vector<Node*>& members = colocation_.members[group];
    std::string note = GroupNote(group);
    for (Node* m : members) {
      DeviceName spec;
      if (!NodeConstraint(*m, &spec).ok() || MatchesAnyDevice(spec)) continue;
      return errors::InvalidArgument(
          "Cannot assign a device for operation '", m->name(), "': Could not satisfy explicit ",
          "device specification '", RawConstraint(*m), "' because no devices matching that ",
          "specification are registered in this process; available devices: ", available_, note);
    }
    if (!MatchesAnyDevice(info.constraint)) {
      return errors::InvalidArgument(
          "Cannot assign a device for operation '", info.constrained_by->name(),
          "': Could not satisfy the device specification '", info.constraint.ToString(),
          "' merged from its colocated nodes because no devices matching that specification "
          "are registered in this process; available devices: ",
          available_, note);
    }
    std::set<DeviceType> matching_types;
    for (const PlacerDevice& d : devices_) {
      if (IsSpecification(info.constraint, d.parsed)) matching_types.insert(d.type);
    }
    std::vector<DeviceType> matching(matching_types.begin(), matching_types.end());
    for (Node* m : members) {
      std::vector<DeviceType> supported = kernels_->SupportedDeviceTypes(m->def());
      bool any = std::any_of(supported.begin(), supported.end(),
                             [&](const DeviceType& t) { return matching_types.count(t) > 0; });
      if (any) continue;
      std::string kernels = "kernels for device types " + TypeList(supported);
      if (supported.empty()) {
        // Say which attrs no kernel accepts (a dtype, usually), not just "none".
        const KernelDef* unused = nullptr;
        const Status why = kernels_->FindKernelDef(
            matching.empty() ? DeviceType(DEVICE_CPU) : matching.front(), m->def(), &unused);
        kernels = "no kernel for these attrs (" + why.message() + ")";
      }
      if (info.constraint == DeviceName()) {
        return errors::InvalidArgument("Cannot assign a device for operation '", m->name(),
                                       "': no available device has ", "a kernel for op '",
                                       m->type_string(), "' (it has ", kernels,
                                       "); available devices: ", available_, note);
      }
      return errors::InvalidArgument(
          "Cannot assign a device for operation '", m->name(), "': Could not satisfy explicit ",
          "device specification '", info.constraint.ToString(), "' because no supported kernel ",
          "for ", Join(matching, "/"), " devices is available: op '", m->type_string(), "' has ",
          kernels, "; available devices: ", available_, note);
    }
    std::vector<std::string> kernel_sets;
    for (Node* m : members) {
      kernel_sets.push_back("'" + m->name() + "' (op " + m->type_string() + ") has kernels for " +
                            TypeList(kernels_->SupportedDeviceTypes(m->def())));
    }
    return errors::InvalidArgument(
        "Cannot assign a device for operation '", members.front()->name(),
        "': its colocated nodes have no device type in common among the devices matching '",
        info.constraint.ToString(), "': ", Join(kernel_sets, "; "),
        "; available devices: ", available_);
  }

  // Greedy placement by simulated execution (whitepaper §3.2.1).
  Status Simulate(std::vector<int>* group_device) {
    std::vector<Node*> order;
    AF_RETURN_IF_ERROR(TopologicalOrder(*g_, &order));
    group_device->assign(groups_.size(), -1);
    node_device_.assign(g_->num_node_ids(), -1);
    node_finish_.assign(g_->num_node_ids(), 0.0);
    device_free_.assign(devices_.size(), 0.0);
    for (Node* n : order) {
      int group = colocation_.group_of[n->id()];
      int chosen = (*group_device)[group];
      if (chosen < 0) {
        double best = 0;
        for (int d : groups_[group].candidates) {
          double finish = Finish(*n, d, /*commit=*/false);
          if (chosen < 0 || finish < best) {
            chosen = d;
            best = finish;
          }
        }
        (*group_device)[group] = chosen;
      }
      Finish(*n, chosen, /*commit=*/true);
    }
    // TopologicalOrder lists every node; guard against a partial order
    // all the same.
    for (size_t group = 0; group < groups_.size(); ++group) {
      if ((*group_device)[group] < 0) (*group_device)[group] = groups_[group].candidates.front();
    }
    return Status::OK();
  }

  // When `n` would finish on device `d`; with `commit`, records it.
  double Finish(const Node& n, int d, bool commit) {
    double ready = 0;
    for (const Edge* e : n.in_edges()) {
      const Node* src = e->src();
      int src_device = node_device_[src->id()];
      if (src_device < 0) continue;  // a loop back edge, not simulated yet
      double arrival = node_finish_[src->id()];
      if (src_device != d) {
        const bool same_space = same_space_[src_device][d];
        if (e->IsControlEdge()) {
          arrival += cost_->TransferMicros(0, same_space);
        } else {
          auto key = std::make_tuple(src->id(), e->src_output(), d);
          auto it = arrivals_.find(key);
          if (it != arrivals_.end()) {
            arrival = it->second;
          } else {
            arrival += cost_->TransferMicros(cost_->OutputBytes(*src, e->src_output()), same_space);
            if (commit) arrivals_[key] = arrival;
          }
        }
      }
      ready = std::max(ready, arrival);
    }
    const bool occupies = !cost_->RunsInline(n);
    double start = occupies ? std::max(ready, device_free_[d]) : ready;
    double finish = start + cost_->ComputeMicros(n, devices_[d].type);
    if (commit) {
      node_device_[n.id()] = d;
      node_finish_[n.id()] = finish;
      if (occupies) device_free_[d] = finish;
    }
    return finish;
  }

  Graph* g_;
  const KernelRegistry* kernels_;
  CostModel default_cost_;
  const CostModel* cost_;
  bool soft_;
  std::vector<PlacerDevice> devices_;
  std::string available_;
  std::vector<std::vector<bool>> same_space_;
  ColocationGroups colocation_;
  std::vector<Group> groups_;
  std::vector<int> node_device_;
  std::vector<double> node_finish_;
  std::vector<double> device_free_;
  std::map<std::tuple<int, int, int>, double> arrivals_;
};

}  // namespace

Status PlaceGraph(Graph* g, const std::vector<DeviceInfo>& devices, const PlacerOptions& options) {
  Placer placer(g, options);
  return placer.Run(devices);
}

}  // namespace af
