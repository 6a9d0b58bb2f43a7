#include "core/device_name.h"

#include <cctype>
#include <charconv>
#include <vector>

namespace af {
namespace {

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

bool IsIdentifier(std::string_view s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

// "*" leaves the field unset; otherwise a non-negative int32.
bool ParseNumberOrWildcard(std::string_view s, bool* has, int* value) {
  if (s == "*") {
    *has = false;
    return true;
  }
  if (s.empty()) return false;
  int v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || v < 0) return false;
  *has = true;
  *value = v;
  return true;
}

bool ParseIdentifierOrWildcard(std::string_view s, bool upper, bool* has, std::string* value) {
  if (s == "*") {
    *has = false;
    value->clear();
    return true;
  }
  if (!IsIdentifier(s)) return false;
  *has = true;
  *value = upper ? Upper(s) : std::string(s);
  return true;
}

}  // namespace

std::string DeviceName::ToString() const {
  // Appends piecewise: GCC 12 warns (-Wrestrict) on "literal" + string here.
  std::string out;
  if (has_job) out.append("/job:").append(job);
  if (has_replica) out.append("/replica:").append(std::to_string(replica));
  if (has_task) out.append("/task:").append(std::to_string(task));
  if (has_type || has_id) {
    out.append("/device:").append(has_type ? type : std::string("*"));
    out.append(":").append(has_id ? std::to_string(id) : std::string("*"));
  }
  return out;
}

bool DeviceName::operator==(const DeviceName& o) const {
  return has_job == o.has_job && (!has_job || job == o.job) && has_replica == o.has_replica &&
         (!has_replica || replica == o.replica) && has_task == o.has_task &&
         (!has_task || task == o.task) && has_type == o.has_type && (!has_type || type == o.type) &&
         has_id == o.has_id && (!has_id || id == o.id);
}

std::ostream& operator<<(std::ostream& os, const DeviceName& name) { return os << name.ToString(); }

Status ParseDeviceName(std::string_view name, DeviceName* out) {
  *out = DeviceName();
  if (name.empty() || name == "/") return Status::OK();
  auto malformed = [&](std::string_view why) {
    return errors::InvalidArgument("Malformed device specification '", name, "': ", why);
  };
  if (name[0] != '/') return malformed("must start with '/'");
  std::vector<std::string_view> segments = Split(name.substr(1), '/');
  bool seen_job = false, seen_replica = false, seen_task = false, seen_device = false;
  for (std::string_view segment : segments) {
    std::vector<std::string_view> parts = Split(segment, ':');
    std::string_view key = parts[0];
    auto once = [&](bool* seen) {
      if (*seen) return false;
      *seen = true;
      return true;
    };
    if (key == "job" && parts.size() == 2) {
      if (!once(&seen_job)) return malformed("job given twice");
      if (!ParseIdentifierOrWildcard(parts[1], false, &out->has_job, &out->job))
        return malformed("bad job name '" + std::string(parts[1]) + "'");
    } else if (key == "replica" && parts.size() == 2) {
      if (!once(&seen_replica)) return malformed("replica given twice");
      if (!ParseNumberOrWildcard(parts[1], &out->has_replica, &out->replica))
        return malformed("bad replica '" + std::string(parts[1]) + "'");
    } else if (key == "task" && parts.size() == 2) {
      if (!once(&seen_task)) return malformed("task given twice");
      if (!ParseNumberOrWildcard(parts[1], &out->has_task, &out->task))
        return malformed("bad task '" + std::string(parts[1]) + "'");
    } else if (key == "device" && (parts.size() == 2 || parts.size() == 3)) {
      if (!once(&seen_device)) return malformed("device given twice");
      if (!ParseIdentifierOrWildcard(parts[1], true, &out->has_type, &out->type))
        return malformed("bad device type '" + std::string(parts[1]) + "'");
      if (parts.size() == 3 && !ParseNumberOrWildcard(parts[2], &out->has_id, &out->id))
        return malformed("bad device id '" + std::string(parts[2]) + "'");
    } else if ((EqualsIgnoreCase(key, "cpu") || EqualsIgnoreCase(key, "gpu")) &&
               parts.size() == 2) {
      // Legacy "/cpu:0" and "/gpu:1".
      if (!once(&seen_device)) return malformed("device given twice");
      out->has_type = true;
      out->type = Upper(key);
      if (!ParseNumberOrWildcard(parts[1], &out->has_id, &out->id))
        return malformed("bad device id '" + std::string(parts[1]) + "'");
    } else {
      return malformed("unknown component '" + std::string(segment) + "'");
    }
  }
  return Status::OK();
}

bool IsSpecification(const DeviceName& spec, const DeviceName& name) {
  if (spec.has_job && (!name.has_job || spec.job != name.job)) return false;
  if (spec.has_replica && (!name.has_replica || spec.replica != name.replica)) return false;
  if (spec.has_task && (!name.has_task || spec.task != name.task)) return false;
  if (spec.has_type && (!name.has_type || spec.type != name.type)) return false;
  if (spec.has_id && (!name.has_id || spec.id != name.id)) return false;
  return true;
}

bool IsSpecification(std::string_view spec, std::string_view name) {
  DeviceName s, n;
  if (!ParseDeviceName(spec, &s).ok() || !ParseDeviceName(name, &n).ok()) return false;
  return IsSpecification(s, n);
}

Status MergeDevNames(DeviceName* target, const DeviceName& other) {
  auto conflict = [&](std::string_view what) {
    return errors::InvalidArgument("Cannot merge devices with incompatible ", what, ": '",
                                   target->ToString(), "' and '", other.ToString(), "'");
  };
  if (other.has_job && target->has_job && other.job != target->job) return conflict("jobs");
  if (other.has_replica && target->has_replica && other.replica != target->replica)
    return conflict("replicas");
  if (other.has_task && target->has_task && other.task != target->task) return conflict("tasks");
  if (other.has_type && target->has_type && other.type != target->type) return conflict("types");
  if (other.has_id && target->has_id && other.id != target->id) return conflict("ids");
  if (other.has_job) {
    target->has_job = true;
    target->job = other.job;
  }
  if (other.has_replica) {
    target->has_replica = true;
    target->replica = other.replica;
  }
  if (other.has_task) {
    target->has_task = true;
    target->task = other.task;
  }
  if (other.has_type) {
    target->has_type = true;
    target->type = other.type;
  }
  if (other.has_id) {
    target->has_id = true;
    target->id = other.id;
  }
  return Status::OK();
}

Status MergeDevNames(std::string* target, std::string_view other) {
  DeviceName t, o;
  AF_RETURN_IF_ERROR(ParseDeviceName(*target, &t));
  AF_RETURN_IF_ERROR(ParseDeviceName(other, &o));
  AF_RETURN_IF_ERROR(MergeDevNames(&t, o));
  *target = t.ToString();
  return Status::OK();
}

std::string CanonicalDeviceName(std::string_view job, int replica, int task, std::string_view type,
                                int id) {
  std::string out;
  out.reserve(48);
  out.append("/job:").append(job);
  out.append("/replica:").append(std::to_string(replica));
  out.append("/task:").append(std::to_string(task));
  out.append("/device:").append(Upper(type));
  out.append(":").append(std::to_string(id));
  return out;
}

Status CanonicalizeDeviceName(std::string_view name, std::string* out) {
  DeviceName parsed;
  AF_RETURN_IF_ERROR(ParseDeviceName(name, &parsed));
  if (!parsed.IsFullySpecified()) {
    return errors::InvalidArgument("Device name '", name,
                                   "' is not fully specified (want "
                                   "/job:J/replica:R/task:T/device:TYPE:N)");
  }
  *out = parsed.ToString();
  return Status::OK();
}

bool IsSameAddressSpace(const DeviceName& a, const DeviceName& b) {
  return a.has_job && b.has_job && a.job == b.job && a.has_replica && b.has_replica &&
         a.replica == b.replica && a.has_task && b.has_task && a.task == b.task;
}

}  // namespace af
