#include "core/slurm_cluster.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>

namespace af {
namespace {

bool ParseCount(std::string_view text, long long* out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

// Splits at commas outside brackets.
std::vector<std::string_view> SplitOutsideBrackets(std::string_view list) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] == '[') ++depth;
    if (list[i] == ']') --depth;
    if (list[i] == ',' && depth == 0) {
      parts.push_back(list.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(list.substr(start));
  return parts;
}

constexpr size_t kMaxHosts = 1 << 20;

// Expands the first bracket group of `pattern` and recurses on the rest.
Status ExpandPattern(std::string_view pattern, std::string_view whole,
                     std::vector<std::string>* hosts) {
  const size_t open = pattern.find('[');
  if (open == std::string_view::npos) {
    if (pattern.find(']') != std::string_view::npos) {
      return errors::InvalidArgument("host list '", whole, "': ']' without '['");
    }
    if (hosts->size() >= kMaxHosts) {
      return errors::InvalidArgument("host list '", whole, "' names more than ", kMaxHosts,
                                     " hosts");
    }
    hosts->emplace_back(pattern);
    return Status::OK();
  }
  const size_t close = pattern.find(']', open);
  if (close == std::string_view::npos) {
    return errors::InvalidArgument("host list '", whole, "': '[' without ']'");
  }
  const std::string_view prefix = pattern.substr(0, open);
  const std::string_view rest = pattern.substr(close + 1);
  const std::string_view ranges = pattern.substr(open + 1, close - open - 1);
  for (std::string_view range : SplitOutsideBrackets(ranges)) {
    const size_t dash = range.find('-');
    const std::string_view low = range.substr(0, dash);
    const std::string_view high = dash == std::string_view::npos ? low : range.substr(dash + 1);
    long long from = 0, to = 0;
    if (!ParseCount(low, &from) || !ParseCount(high, &to) || from < 0 || to < from) {
      return errors::InvalidArgument("host list '", whole, "': '", range,
                                     "' is not a number or a range a-b with a <= b");
    }
    if (to - from >= static_cast<long long>(kMaxHosts)) {
      return errors::InvalidArgument("host list '", whole, "': range '", range, "' is too long");
    }
    for (long long i = from; i <= to; ++i) {
      std::string number = std::to_string(i);
      if (number.size() < low.size()) number.insert(0, low.size() - number.size(), '0');
      AF_RETURN_IF_ERROR(ExpandPattern(std::string(prefix) + number + std::string(rest), whole,
                                       hosts));
    }
  }
  return Status::OK();
}

const char* Lookup(const EnvironmentLookup& env, const char* name) {
  const char* value = env(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

}  // namespace

Status ExpandSlurmHostList(std::string_view list, std::vector<std::string>* hosts) {
  hosts->clear();
  if (list.empty()) return errors::InvalidArgument("empty host list");
  for (std::string_view part : SplitOutsideBrackets(list)) {
    if (part.empty()) return errors::InvalidArgument("host list '", list, "' has an empty entry");
    AF_RETURN_IF_ERROR(ExpandPattern(part, list, hosts));
  }
  return Status::OK();
}

Status ExpandSlurmTasksPerNode(std::string_view spec, std::vector<int>* counts) {
  counts->clear();
  for (std::string_view part : SplitOutsideBrackets(spec)) {
    long long n = 0, times = 1;
    const size_t paren = part.find('(');
    if (paren != std::string_view::npos) {
      // "2(x3)": two tasks on each of three nodes.
      if (part.size() < paren + 4 || part.substr(paren, 2) != "(x" || part.back() != ')' ||
          !ParseCount(part.substr(paren + 2, part.size() - paren - 3), &times) || times < 1) {
        return errors::InvalidArgument("tasks per node '", spec, "': '", part,
                                       "' is not N or N(xK)");
      }
      part = part.substr(0, paren);
    }
    if (!ParseCount(part, &n) || n < 1 || n > 1 << 16 || times > 1 << 20) {
      return errors::InvalidArgument("tasks per node '", spec, "': '", part,
                                     "' is not a positive count");
    }
    counts->insert(counts->end(), static_cast<size_t>(times), static_cast<int>(n));
  }
  return Status::OK();
}

Status ParseSlurmJobs(std::string_view spec, std::vector<std::pair<std::string, int>>* jobs) {
  jobs->clear();
  std::map<std::string, int> sorted;
  for (std::string_view part : SplitOutsideBrackets(spec)) {
    const size_t eq = part.find_first_of("=:");
    long long n = 0;
    if (eq == 0 || eq == std::string_view::npos || !ParseCount(part.substr(eq + 1), &n) ||
        n < 1 || n > 1 << 20) {
      return errors::InvalidArgument("jobs '", spec, "': '", part,
                                     "' is not NAME=COUNT with a positive count");
    }
    if (!sorted.emplace(std::string(part.substr(0, eq)), static_cast<int>(n)).second) {
      return errors::InvalidArgument("jobs '", spec, "' names '", part.substr(0, eq), "' twice");
    }
  }
  jobs->assign(sorted.begin(), sorted.end());
  return Status::OK();
}

Status ResolveSlurmCluster(const std::vector<std::pair<std::string, int>>& jobs, int port_base,
                           const EnvironmentLookup& env, ClusterSpec* cluster, std::string* job,
                           int* task) {
  const char* rank_text = Lookup(env, "SLURM_PROCID");
  if (rank_text == nullptr) {
    return errors::Unavailable("SLURM_PROCID is not set: not a task of a Slurm job step (srun)");
  }
  long long rank = 0;
  if (!ParseCount(rank_text, &rank) || rank < 0) {
    return errors::InvalidArgument("SLURM_PROCID '", rank_text, "' is not a rank");
  }
  const char* nodes_var = Lookup(env, "SLURM_STEP_NODELIST") ? "SLURM_STEP_NODELIST"
                                                              : "SLURM_JOB_NODELIST";
  const char* per_node_var = Lookup(env, "SLURM_STEP_TASKS_PER_NODE") ? "SLURM_STEP_TASKS_PER_NODE"
                                                                       : "SLURM_TASKS_PER_NODE";
  if (Lookup(env, nodes_var) == nullptr || Lookup(env, per_node_var) == nullptr) {
    return errors::InvalidArgument("Slurm's environment lacks ", nodes_var, " or ", per_node_var);
  }
  std::vector<std::string> hosts;
  std::vector<int> per_node;
  Status s = ExpandSlurmHostList(Lookup(env, nodes_var), &hosts);
  if (!s.ok()) return s.WithContext(nodes_var);
  s = ExpandSlurmTasksPerNode(Lookup(env, per_node_var), &per_node);
  if (!s.ok()) return s.WithContext(per_node_var);
  if (per_node.size() != hosts.size()) {
    return errors::InvalidArgument(nodes_var, " names ", hosts.size(), " nodes but ",
                                   per_node_var, " gives task counts for ", per_node.size());
  }
  std::vector<std::string> addresses;
  for (size_t i = 0; i < hosts.size(); ++i) {
    for (int offset = 0; offset < per_node[i]; ++offset) {
      const int port = port_base + offset;
      if (port < 1 || port > 65535) {
        return errors::InvalidArgument("port ", port, " (base ", port_base, " + ", offset,
                                       ") is not a port");
      }
      addresses.push_back(hosts[i] + ":" + std::to_string(port));
    }
  }
  long long num_tasks = static_cast<long long>(addresses.size());
  const char* count_var = Lookup(env, "SLURM_STEP_NUM_TASKS") ? "SLURM_STEP_NUM_TASKS"
                                                               : "SLURM_NTASKS";
  if (const char* count = Lookup(env, count_var); count != nullptr) {
    if (!ParseCount(count, &num_tasks) || num_tasks != static_cast<long long>(addresses.size())) {
      return errors::InvalidArgument(count_var, " is ", count, " but ", per_node_var, " adds up to ",
                                     addresses.size(), " tasks");
    }
  }
  std::vector<std::pair<std::string, int>> dealt = jobs;
  if (dealt.empty()) dealt.emplace_back("worker", static_cast<int>(num_tasks));
  long long wanted = 0;
  for (const auto& [name, n] : dealt) wanted += n;
  if (wanted != num_tasks) {
    return errors::InvalidArgument("the jobs ask for ", wanted, " tasks but the Slurm step has ",
                                   num_tasks, " (srun --ntasks)");
  }
  if (rank >= num_tasks) {
    return errors::InvalidArgument("SLURM_PROCID ", rank, " is beyond the step's ", num_tasks,
                                   " tasks");
  }
  std::string flag;
  size_t next = 0;
  for (const auto& [name, n] : dealt) {
    if (!flag.empty()) flag += ";";
    flag += name + "=";
    for (int i = 0; i < n; ++i, ++next) {
      if (i > 0) flag += ",";
      flag += addresses[next];
      if (static_cast<long long>(next) == rank) {
        *job = name;
        *task = i;
      }
    }
  }
  return ClusterSpec::FromFlag(flag, cluster);
}

Status ClusterFromSlurmEnvironment(ClusterSpec* cluster, std::string* job, int* task,
                                   bool* found) {
  *found = false;
  const char* spec = std::getenv(kSlurmJobsEnv);
  if (spec == nullptr || *spec == '\0') return Status::OK();
  std::vector<std::pair<std::string, int>> jobs;
  Status s = ParseSlurmJobs(spec, &jobs);
  if (!s.ok()) return s.WithContext(kSlurmJobsEnv);
  long long port_base = kSlurmDefaultPortBase;
  if (const char* base = std::getenv(kSlurmPortBaseEnv); base != nullptr && *base != '\0') {
    if (!ParseCount(base, &port_base) || port_base < 1 || port_base > 65535) {
      return errors::InvalidArgument(kSlurmPortBaseEnv, " '", base, "' is not a port");
    }
  }
  AF_RETURN_IF_ERROR(ResolveSlurmCluster(jobs, static_cast<int>(port_base),
                                         [](const char* name) { return std::getenv(name); },
                                         cluster, job, task));
  *found = true;
  return Status::OK();
}

}  // namespace af
