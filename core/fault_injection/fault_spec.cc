#include "core/fault_injection/fault_spec.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include "core/device_name.h"

namespace af::faults {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t at = text.find(separator, start);
    parts.push_back(Trim(text.substr(start, at - start)));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

// The fields one group sets; unset ones leave earlier groups' values.
struct Group {
  std::vector<DeviceName> selectors;  // empty: every task
  std::optional<DelayDistribution> compute;
  std::optional<ComputeAt> compute_at;
  std::optional<DelayDistribution> transport;
  std::optional<double> drop;
  std::optional<double> dup;
  std::optional<uint64_t> seed;
  std::optional<double> cap_ns;
};

Status ParseProbability(std::string_view text, std::string_view field, double* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  if (text.empty() || ec != std::errc() || ptr != end || !(*out >= 0 && *out <= 1)) {
    return errors::InvalidArgument("fault spec: field '", field, "': '", text,
                                   "' is not a probability in [0, 1]");
  }
  return Status::OK();
}

Status ParseSelectors(std::string_view text, std::vector<DeviceName>* out) {
  for (std::string_view one : Split(text, ',')) {
    DeviceName name;
    Status s = ParseDeviceName(one, &name);
    if (!s.ok() || one.empty()) {
      return errors::InvalidArgument("fault spec: field 'task': '", one,
                                     "' is not a task name such as /job:worker/task:2");
    }
    if (name.has_type || name.has_id) {
      return errors::InvalidArgument("fault spec: field 'task': '", one,
                                     "' names a device; faults apply to whole tasks "
                                     "(/job:J/task:T)");
    }
    out->push_back(std::move(name));
  }
  return Status::OK();
}

Status ParseField(std::string_view field, std::string_view value, Group* group) {
  auto once = [&](bool already) -> Status {
    if (!already) return Status::OK();
    return errors::InvalidArgument("fault spec: field '", field, "' given twice in one group");
  };
  if (field == "task") {
    AF_RETURN_IF_ERROR(once(!group->selectors.empty()));
    return ParseSelectors(value, &group->selectors);
  }
  if (field == "compute" || field == "transport") {
    auto& slot = field == "compute" ? group->compute : group->transport;
    AF_RETURN_IF_ERROR(once(slot.has_value()));
    DelayDistribution d;
    AF_RETURN_IF_ERROR(DelayDistribution::Parse(value, field, &d));
    slot = d;
    return Status::OK();
  }
  if (field == "compute_at") {
    AF_RETURN_IF_ERROR(once(group->compute_at.has_value()));
    if (value == "start") {
      group->compute_at = ComputeAt::kStart;
    } else if (value == "end") {
      group->compute_at = ComputeAt::kEnd;
    } else {
      return errors::InvalidArgument("fault spec: field 'compute_at': '", value,
                                     "' is neither start nor end");
    }
    return Status::OK();
  }
  if (field == "drop" || field == "dup") {
    auto& slot = field == "drop" ? group->drop : group->dup;
    AF_RETURN_IF_ERROR(once(slot.has_value()));
    double p = 0;
    AF_RETURN_IF_ERROR(ParseProbability(value, field, &p));
    slot = p;
    return Status::OK();
  }
  if (field == "seed") {
    AF_RETURN_IF_ERROR(once(group->seed.has_value()));
    uint64_t seed = 0;
    const char* end = value.data() + value.size();
    auto [ptr, ec] = std::from_chars(value.data(), end, seed);
    if (value.empty() || ec != std::errc() || ptr != end) {
      return errors::InvalidArgument("fault spec: field 'seed': '", value,
                                     "' is not an unsigned integer");
    }
    group->seed = seed;
    return Status::OK();
  }
  if (field == "cap") {
    AF_RETURN_IF_ERROR(once(group->cap_ns.has_value()));
    double cap = 0;
    AF_RETURN_IF_ERROR(ParseDuration(value, field, &cap));
    group->cap_ns = cap;
    return Status::OK();
  }
  return errors::InvalidArgument("fault spec: unknown field '", field,
                                 "' (expected task, compute, compute_at, transport, drop, dup, "
                                 "seed or cap)");
}

Status ParseGroup(std::string_view text, Group* group) {
  for (std::string_view item : Split(text, ';')) {
    if (item.empty()) continue;  // "a=1;;b=2" and a trailing ';'
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return errors::InvalidArgument("fault spec: '", item,
                                     "' is not FIELD=VALUE (e.g. compute=exp:20ms)");
    }
    const std::string_view field = Trim(item.substr(0, eq));
    const std::string_view value = Trim(item.substr(eq + 1));
    if (value.empty()) {
      return errors::InvalidArgument("fault spec: field '", field, "' has no value");
    }
    AF_RETURN_IF_ERROR(ParseField(field, value, group));
  }
  return Status::OK();
}

bool Selects(const Group& group, const DeviceName& task) {
  if (group.selectors.empty()) return true;
  for (const DeviceName& selector : group.selectors) {
    if (IsSpecification(selector, task)) return true;
  }
  return false;
}

void Merge(const Group& group, FaultSpec* out) {
  if (group.compute) out->compute = *group.compute;
  if (group.compute_at) out->compute_at = *group.compute_at;
  if (group.transport) out->transport = *group.transport;
  if (group.drop) out->drop = *group.drop;
  if (group.dup) out->dup = *group.dup;
  if (group.seed) out->seed = *group.seed;
  if (group.cap_ns) out->cap_ns = *group.cap_ns;
}

std::string FormatProbability(double p) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", p);
  return buffer;
}

}  // namespace

std::string FaultSpec::ToString() const {
  return "compute=" + compute.ToString() +
         ";compute_at=" + (compute_at == ComputeAt::kStart ? "start" : "end") +
         ";transport=" + transport.ToString() + ";drop=" + FormatProbability(drop) +
         ";dup=" + FormatProbability(dup) + ";seed=" + std::to_string(seed) +
         ";cap=" + FormatDuration(cap_ns);
}

Status ParseFaultSpec(std::string_view text, std::string_view task_name, FaultSpec* out) {
  DeviceName task;
  AF_RETURN_IF_ERROR(ParseDeviceName(task_name, &task));
  FaultSpec spec;
  if (!Trim(text).empty()) {
    for (std::string_view group_text : Split(text, '|')) {
      Group group;
      AF_RETURN_IF_ERROR(ParseGroup(group_text, &group));
      if (Selects(group, task)) Merge(group, &spec);
    }
  }
  *out = spec;
  return Status::OK();
}

}  // namespace af::faults
