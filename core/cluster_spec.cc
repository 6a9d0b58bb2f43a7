#include "core/cluster_spec.h"

#include <algorithm>
#include <climits>

#include "core/json_value.h"

namespace af {

namespace {

bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAsciiAlnum(char c) { return IsAsciiAlpha(c) || IsAsciiDigit(c); }

std::string_view Trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}


bool IsHostName(std::string_view host) {
  for (char c : host)
    if (!IsAsciiAlnum(c) && c != '.' && c != '-' && c != '_') return false;
  return true;
}

// Characters only, plus at least the two colons every IPv6 address has;
// resolving it is the socket layer's job. A zone ("fe80::1%eth0") is kept.
bool IsIpv6Literal(std::string_view host) {
  const size_t percent = host.find('%');
  const std::string_view addr = host.substr(0, percent);
  int colons = 0;
  for (char c : addr) {
    const bool hex = IsAsciiDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!hex && c != ':' && c != '.') return false;
    colons += c == ':';
  }
  if (colons < 2) return false;
  if (percent == std::string_view::npos) return true;
  const std::string_view zone = host.substr(percent + 1);
  return !zone.empty() && IsHostName(zone);
}

Status BadAddress(std::string_view address, std::string_view why) {
  return errors::InvalidArgument("address \"", address, "\" ", why);
}

std::string DescribeTask(std::string_view job, int task) {
  return internal::StrCat("job \"", job, "\" task ", task);
}

// What a JSON value was, for messages: the value itself when short.
std::string DescribeJson(const JsonValue& v) {
  if (v.kind == JsonValue::Kind::kNumber) return v.text;
  if (v.kind == JsonValue::Kind::kString) return internal::StrCat("\"", v.text, "\"");
  if (v.kind == JsonValue::Kind::kBool) return v.boolean ? "true" : "false";
  return std::string(v.TypeName());
}

// Python's json module keeps the last of duplicate keys silently; a
// TF_CONFIG that says two things is rejected rather than half-read.
Status CheckUniqueKeys(const JsonValue& object, std::string_view where) {
  for (size_t i = 0; i < object.keys.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (object.keys[i] == object.keys[j])
        return errors::InvalidArgument("TF_CONFIG: ", where, " key \"", object.keys[i],
                                       "\" appears twice");
  return Status::OK();
}

// Dict-form keys are decimal task indices ("0", "3"); int-sized.
bool ParseTaskKey(std::string_view key, int* task) {
  if (key.empty() || key.size() > 9) return false;
  int value = 0;
  for (char c : key) {
    if (!IsAsciiDigit(c)) return false;
    value = value * 10 + (c - '0');
  }
  *task = value;
  return true;
}

}  // namespace

bool IsValidJobName(std::string_view job) {
  if (job.empty() || !IsAsciiAlpha(job.front())) return false;
  for (char c : job)
    if (!IsAsciiAlnum(c) && c != '_') return false;
  return true;
}

bool IsVirtualAddress(std::string_view address) {
  return address.substr(0, 8) == "virtual:" && address.size() > 8;
}

std::string TaskAddress::HostPort() const {
  if (port == 0 && IsVirtualAddress(host)) return host;
  if (host.find(':') != std::string::npos) return internal::StrCat("[", host, "]:", port);
  return internal::StrCat(host, ":", port);
}

Status ParseHostPort(std::string_view address, std::string* host, uint16_t* port) {
  std::string_view host_part, port_part;
  if (!address.empty() && address.front() == '[') {
    const size_t close = address.find(']');
    if (close == std::string_view::npos)
      return BadAddress(address, "has no ']' closing its IPv6 host");
    if (close + 1 >= address.size() || address[close + 1] != ':')
      return BadAddress(address, "has no ':port' after its IPv6 host");
    host_part = address.substr(1, close - 1);
    port_part = address.substr(close + 2);
    if (!IsIpv6Literal(host_part)) return BadAddress(address, "has a bad IPv6 host");
  } else {
    const size_t colon = address.rfind(':');
    if (colon == std::string_view::npos) return BadAddress(address, "has no ':port'");
    host_part = address.substr(0, colon);
    port_part = address.substr(colon + 1);
    if (host_part.find(':') != std::string_view::npos)
      return BadAddress(address, "has an IPv6 host without brackets (write \"[host]:port\")");
    if (host_part.empty()) return BadAddress(address, "has an empty host");
    if (!IsHostName(host_part)) return BadAddress(address, "has a bad host");
  }
  int value = 0;
  bool digits = !port_part.empty() && port_part.size() <= 5;
  for (char c : port_part) {
    digits = digits && IsAsciiDigit(c);
    if (digits) value = value * 10 + (c - '0');
  }
  if (!digits || value < 1 || value > 65535)
    return BadAddress(address, "has a bad port (expected 1..65535)");
  *host = std::string(host_part);
  *port = static_cast<uint16_t>(value);
  return Status::OK();
}

// Collects jobs and tasks, validating each as it arrives so that the first
// error names the entry that caused it; `context_` says where the spec came
// from ("cluster spec", "TF_CONFIG").
class ClusterSpec::Builder {
 public:
  explicit Builder(std::string_view context) : context_(context) {}

  Status AddJob(std::string_view job) {
    if (job.empty()) return Error("a job name is empty");
    if (!IsValidJobName(job))
      return Error("job name \"", job, "\" is invalid (must match [a-zA-Z][_a-zA-Z0-9]*)");
    if (!spec_.tasks_.emplace(std::string(job), std::map<int, TaskAddress>()).second)
      return Error("job \"", job, "\" appears twice");
    return Status::OK();
  }

  Status AddTask(std::string_view job, int task, std::string_view address) {
    auto& tasks = spec_.tasks_.find(job)->second;
    TaskAddress t{std::string(job), task, "", 0};
    if (IsVirtualAddress(address)) {
      t.host = std::string(address);
    } else if (Status s = ParseHostPort(address, &t.host, &t.port); !s.ok())
      return Error(DescribeTask(job, task), ": ", s.message());
    if (tasks.count(task)) return Error(DescribeTask(job, task), " appears twice");
    // Host names and IPv6 hex digits are case-insensitive.
    std::string key = t.HostPort();
    for (char& c : key) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    auto [it, inserted] = used_.emplace(std::move(key), DescribeTask(job, task));
    if (!inserted)
      return Error(DescribeTask(job, task), ": address \"", address, "\" is already used by ",
                   it->second);
    tasks.emplace(task, std::move(t));
    return Status::OK();
  }

  Status Finish(ClusterSpec* out) {
    if (spec_.tasks_.empty()) return Error("the cluster has no jobs");
    for (const auto& [job, tasks] : spec_.tasks_) {
      if (tasks.empty()) return Error("job \"", job, "\" has no tasks");
      spec_.jobs_.push_back(job);
    }
    *out = std::move(spec_);
    return Status::OK();
  }

  template <typename... Args>
  Status Error(const Args&... args) const {
    return errors::InvalidArgument(context_, ": ", args...);
  }

 private:
  std::string context_;
  ClusterSpec spec_;
  std::map<std::string, std::string> used_;  // lower-cased "host:port" -> its task
};

Status ClusterSpec::FromFlag(std::string_view spec, ClusterSpec* out) {
  Builder b("cluster spec");
  if (Trim(spec).empty())
    return b.Error("the spec is empty (expected \"job=host:port,...;job=host:port,...\")");
  for (std::string_view entry : Split(spec, ';')) {
    entry = Trim(entry);
    if (entry.empty()) return b.Error("empty job entry (a stray ';') in \"", spec, "\"");
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos)
      return b.Error("job entry \"", entry, "\" has no '=' (expected job=host:port,...)");
    const std::string_view job = Trim(entry.substr(0, eq));
    if (job.empty()) return b.Error("empty job name in \"", entry, "\"");
    AF_RETURN_IF_ERROR(b.AddJob(job));
    const std::string_view list = Trim(entry.substr(eq + 1));
    if (list.empty()) continue;  // Finish() reports the job with no tasks
    int task = 0;
    for (std::string_view address : Split(list, ','))
      AF_RETURN_IF_ERROR(b.AddTask(job, task++, Trim(address)));
  }
  return b.Finish(out);
}

namespace {

// One job of TF_CONFIG's "cluster": a list of addresses, or an object from
// task index to address for sparse indices.
template <typename AddTask>
Status ReadTfConfigJob(const std::string& job, const JsonValue& value, AddTask add_task) {
  const auto not_a_string = [&](std::string_view where, const JsonValue& v) {
    return errors::InvalidArgument("TF_CONFIG: cluster.", job, where,
                                   " must be a \"host:port\" string, found ", DescribeJson(v));
  };
  if (value.kind == JsonValue::Kind::kArray) {
    for (size_t i = 0; i < value.items.size(); ++i) {
      const JsonValue& item = value.items[i];
      if (item.kind != JsonValue::Kind::kString)
        return not_a_string(internal::StrCat("[", i, "]"), item);
      AF_RETURN_IF_ERROR(add_task(static_cast<int>(i), item.text));
    }
    return Status::OK();
  }
  if (value.kind == JsonValue::Kind::kObject) {
    for (size_t i = 0; i < value.keys.size(); ++i) {
      int task;
      if (!ParseTaskKey(value.keys[i], &task))
        return errors::InvalidArgument("TF_CONFIG: cluster.", job, " key \"", value.keys[i],
                                       "\" is not a task index (a non-negative integer)");
      const JsonValue& item = value.items[i];
      if (item.kind != JsonValue::Kind::kString)
        return not_a_string(internal::StrCat("[\"", value.keys[i], "\"]"), item);
      AF_RETURN_IF_ERROR(add_task(task, item.text));
    }
    return Status::OK();
  }
  return errors::InvalidArgument(
      "TF_CONFIG: cluster.", job,
      " must be an array of \"host:port\" strings or an object from task index to "
      "\"host:port\", found ",
      DescribeJson(value));
}

std::string DescribeIndices(const std::vector<int>& indices) {
  std::string out;
  for (int i : indices) out += internal::StrCat(out.empty() ? "" : ", ", i);
  return out;
}

// TF_CONFIG's "task": which task of `spec` this process is.
Status ReadTfConfigTask(const JsonValue& root, const ClusterSpec& spec, std::string* job,
                        int* index) {
  job->clear();
  *index = -1;
  const JsonValue* task = root.Find("task");
  if (task == nullptr) return Status::OK();
  if (task->kind != JsonValue::Kind::kObject)
    return errors::InvalidArgument("TF_CONFIG: \"task\" must be an object, found ",
                                   DescribeJson(*task));
  AF_RETURN_IF_ERROR(CheckUniqueKeys(*task, "\"task\""));
  const JsonValue* type = task->Find("type");
  const JsonValue* index_value = task->Find("index");
  if (type == nullptr) {
    if (index_value == nullptr) return Status::OK();  // "task": {} says nothing
    return errors::InvalidArgument("TF_CONFIG: task.type is missing but task.index is ",
                                   DescribeJson(*index_value));
  }
  if (type->kind != JsonValue::Kind::kString)
    return errors::InvalidArgument("TF_CONFIG: task.type must be a string, found ",
                                   DescribeJson(*type));
  int64_t i = 0;  // TensorFlow's RunConfig defaults the index to 0
  if (index_value != nullptr && (!index_value->GetInt64(&i) || i < 0 || i > INT_MAX))
    return errors::InvalidArgument("TF_CONFIG: task.index must be a non-negative integer, found ",
                                   DescribeJson(*index_value));
  const std::string& name = type->text;
  const int n = spec.num_tasks(name);
  // The evaluator runs beside the cluster, not in it (TensorFlow's rule).
  const bool evaluator = name == "evaluator" && n == 0;
  if (n == 0 && !evaluator)
    return errors::InvalidArgument("TF_CONFIG: task.type \"", name,
                                   "\" is not a job of the cluster (jobs: ",
                                   Join(spec.jobs(), ", "), ")");
  if (!evaluator) {
    const std::vector<int> indices = spec.task_indices(name);
    const bool dense = indices.back() == n - 1;
    if (dense && i >= n)
      return errors::InvalidArgument("TF_CONFIG: task.index ", i, " is out of range for job \"",
                                     name, "\" (", n, n == 1 ? " task)" : " tasks)");
    if (!dense && !std::binary_search(indices.begin(), indices.end(), static_cast<int>(i)))
      return errors::InvalidArgument("TF_CONFIG: task.index ", i, " is not a task of job \"",
                                     name, "\" (tasks ", DescribeIndices(indices), ")");
  }
  *job = name;
  *index = static_cast<int>(i);
  return Status::OK();
}

}  // namespace

Status ClusterSpec::FromTfConfig(std::string_view json, ClusterSpec* out, std::string* task_job,
                                 int* task_index) {
  JsonValue root;
  if (Status s = ParseJson(json, &root); !s.ok())
    return errors::InvalidArgument("TF_CONFIG: not valid JSON: ", s.message());
  if (root.kind != JsonValue::Kind::kObject)
    return errors::InvalidArgument("TF_CONFIG: must be a JSON object, found ",
                                   DescribeJson(root));
  AF_RETURN_IF_ERROR(CheckUniqueKeys(root, "top-level"));
  const JsonValue* cluster = root.Find("cluster");
  if (cluster == nullptr) return errors::InvalidArgument("TF_CONFIG: \"cluster\" is missing");
  if (cluster->kind != JsonValue::Kind::kObject)
    return errors::InvalidArgument("TF_CONFIG: \"cluster\" must be an object, found ",
                                   DescribeJson(*cluster));
  Builder b("TF_CONFIG");
  for (size_t i = 0; i < cluster->keys.size(); ++i) {
    const std::string& job = cluster->keys[i];
    AF_RETURN_IF_ERROR(b.AddJob(job));
    const auto add_task = [&](int task, const std::string& address) {
      return b.AddTask(job, task, address);
    };
    AF_RETURN_IF_ERROR(ReadTfConfigJob(job, cluster->items[i], add_task));
  }
  ClusterSpec spec;
  AF_RETURN_IF_ERROR(b.Finish(&spec));
  std::string job;
  int index;
  AF_RETURN_IF_ERROR(ReadTfConfigTask(root, spec, &job, &index));
  *out = std::move(spec);
  if (task_job != nullptr) *task_job = std::move(job);
  if (task_index != nullptr) *task_index = index;
  return Status::OK();
}

int ClusterSpec::num_tasks(std::string_view job) const {
  auto it = tasks_.find(job);
  return it == tasks_.end() ? 0 : static_cast<int>(it->second.size());
}

std::vector<int> ClusterSpec::task_indices(std::string_view job) const {
  std::vector<int> indices;
  if (auto it = tasks_.find(job); it != tasks_.end())
    for (const auto& [task, address] : it->second) indices.push_back(task);
  return indices;
}

Status ClusterSpec::Address(std::string_view job, int task, std::string* host_port) const {
  auto it = tasks_.find(job);
  if (it == tasks_.end())
    return errors::NotFound("cluster spec: no job \"", job, "\" (jobs: ", Join(jobs_, ", "), ")");
  auto t = it->second.find(task);
  if (t == it->second.end())
    return errors::NotFound("cluster spec: job \"", job, "\" has no task ", task, " (tasks ",
                            DescribeIndices(task_indices(job)), ")");
  *host_port = t->second.HostPort();
  return Status::OK();
}

std::vector<TaskAddress> ClusterSpec::AllTasks() const {
  std::vector<TaskAddress> all;
  for (const auto& [job, tasks] : tasks_)
    for (const auto& [task, address] : tasks) all.push_back(address);
  return all;
}

std::string ClusterSpec::TaskName(std::string_view job, int task) {
  return internal::StrCat("/job:", job, "/replica:0/task:", task);
}

std::string ClusterSpec::ToFlag() const {
  std::string out;
  for (const auto& [job, tasks] : tasks_) {
    if (!out.empty()) out += ';';
    out += job;
    out += '=';
    bool first = true;
    for (const auto& [task, address] : tasks) {
      if (!first) out += ',';
      first = false;
      out += address.HostPort();
    }
  }
  return out;
}

}  // namespace af
