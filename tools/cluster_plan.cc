#include "tools/cluster_plan.h"

#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>

#include "core/cluster_secret.h"
#include "core/cluster_spec.h"

extern char** environ;

namespace af::tools {
namespace {

std::string JoinHostPort(const std::string& host, int port) {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Holds every socket until all are bound, so that the kernel hands out
// distinct ports. The servers bind them again right after (with
// SO_REUSEADDR); another program could take one in between, and then that
// task fails to start and says so.
Status PickFreePorts(const std::string& host, int n, std::vector<int>* ports) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), "0", &hints, &found); rc != 0) {
    return errors::InvalidArgument("cannot resolve --host ", host, ": ", gai_strerror(rc));
  }
  std::vector<int> fds;
  Status status;
  for (int i = 0; i < n; ++i) {
    const int fd = socket(found->ai_family, found->ai_socktype | SOCK_CLOEXEC, found->ai_protocol);
    if (fd < 0 || bind(fd, found->ai_addr, found->ai_addrlen) != 0) {
      status = errors::Unavailable("cannot bind a port on ", host, ": ", strerror(errno));
      if (fd >= 0) close(fd);
      break;
    }
    fds.push_back(fd);
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ports->push_back(addr.ss_family == AF_INET6
                         ? ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port)
                         : ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port));
  }
  for (int fd : fds) close(fd);
  freeaddrinfo(found);
  return status;
}

}  // namespace

Status PlanCluster(const ClusterLaunchOptions& options, ClusterPlan* out) {
  const int total = options.num_ps + options.num_workers;
  std::vector<int> ports;
  if (options.base_port > 0) {
    for (int i = 0; i < total; ++i) ports.push_back(options.base_port + i);
  } else {
    AF_RETURN_IF_ERROR(PickFreePorts(options.host, total, &ports));
  }
  if (options.logdir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/actorflow-cluster-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      return errors::Unavailable("cannot create a log directory ", pattern, ": ",
                                 strerror(errno));
    }
    out->logdir = pattern;
  } else {
    std::error_code ec;
    std::filesystem::create_directories(options.logdir, ec);
    if (ec) return errors::Unavailable("cannot create --logdir ", options.logdir, ": ", ec.message());
    out->logdir = options.logdir;
  }

  // Credentials for the tasks, as a cluster manager hands out: a fresh
  // secret in the log directory (kept when the directory is reused, so
  // tasks of an earlier run there still match).
  out->secret_path = out->logdir + "/cluster.secret";
  if (Status s = WriteNewSecretFile(out->secret_path); !s.ok()) {
    std::string existing;
    if (s.code() != Code::ALREADY_EXISTS) return s;
    AF_RETURN_IF_ERROR(ReadSecretFile(out->secret_path, &existing));
  }

  std::vector<std::string> ps_addresses, worker_addresses;
  for (int i = 0; i < total; ++i) {
    (i < options.num_ps ? ps_addresses : worker_addresses)
        .push_back(JoinHostPort(options.host, ports[i]));
  }
  auto join = [](const std::vector<std::string>& list, bool json) {
    std::string s;
    for (const std::string& a : list) s += (s.empty() ? "" : (json ? ", " : ",")) + (json ? JsonString(a) : a);
    return s;
  };
  out->spec = (ps_addresses.empty() ? "" : "ps=" + join(ps_addresses, false) + ";") +
          "worker=" + join(worker_addresses, false);
  const std::string cluster_json =
      "{" + (ps_addresses.empty() ? "" : "\"ps\": [" + join(ps_addresses, true) + "], ") +
      "\"worker\": [" + join(worker_addresses, true) + "]}";
  ClusterSpec check;
  AF_RETURN_IF_ERROR(ClusterSpec::FromFlag(out->spec, &check));

  std::vector<std::string> base_env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (entry.rfind("TF_CONFIG=", 0) == 0) continue;
    if (entry.rfind(std::string(kSecretFileEnv) + "=", 0) == 0) continue;
    base_env.emplace_back(*e);
  }
  base_env.push_back(std::string(kSecretFileEnv) + "=" + out->secret_path);
  // The actorflow binary itself, even if the file was replaced since.
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  const std::string exe_name = n > 0 ? std::string(exe, static_cast<size_t>(n)) : "actorflow";
  for (int i = 0; i < total; ++i) {
    ClusterTask t;
    t.job = i < options.num_ps ? "ps" : "worker";
    t.index = i < options.num_ps ? i : i - options.num_ps;
    t.address = t.is_ps() ? ps_addresses[t.index] : worker_addresses[t.index];
    t.log_path = out->logdir + "/" + t.Name() + ".log";
    if (t.is_ps()) {
      t.exec_path = "/proc/self/exe";
      t.argv = {exe_name, "server", "--cluster", out->spec, "--job", "ps",
                "--task", std::to_string(t.index), "--exit_with_parent"};
    } else {
      t.exec_path = options.program[0];
      t.argv = options.program;
    }
    t.env = base_env;
    // The ps tasks take their task from --cluster; TF_CONFIG is there for
    // programs they start.
    t.tf_config = "{\"cluster\": " + cluster_json + ", \"task\": {\"type\": \"" + t.job +
                  "\", \"index\": " + std::to_string(t.index) + "}}";
    t.env.push_back("TF_CONFIG=" + t.tf_config);
    // Each log line names its task (core/logging.h).
    t.env.push_back("ACTORFLOW_TASK_NAME=/job:" + t.job + "/task:" + std::to_string(t.index));
    out->tasks.push_back(std::move(t));
  }
  return Status::OK();
  return Status::OK();
}

}  // namespace af::tools
