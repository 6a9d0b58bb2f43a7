// `actorflow cluster`: flag errors, TF_CONFIG for each worker task, the
// chief's exit code, restarts of a killed ps task on its address, SIGTERM
// to the launcher, task output streamed to the console, and no task process
// left behind in any of these.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <regex>
#include <sstream>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "core/cluster_spec.h"
#include "tests/distributed/server_process.h"

namespace af {
namespace {

using Clock = std::chrono::steady_clock;
using testing::RunActorflow;

// A fresh directory for one launcher's logs, removed with the test.
class LogDir {
 public:
  LogDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "af-cluster-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~LogDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  std::string Read(const std::string& name) const {
    std::ifstream in(File(name));
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  std::string path_;
};

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Polls `done` until it holds or `timeout` passes; returns its last value.
bool WaitFor(const std::function<bool()>& done,
             std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  const auto deadline = Clock::now() + timeout;
  while (!done()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// Every distinct number after "pid " and "child " in `text`: the task pids
// the launcher printed and the background children the test scripts print
// (a log's line may appear twice: in the log and streamed to the console).
std::vector<pid_t> PidsIn(const std::string& text) {
  std::vector<pid_t> pids;
  const std::regex pid(R"((?:pid|child) (\d+))");
  for (std::sregex_iterator it(text.begin(), text.end(), pid), end; it != end; ++it) {
    pids.push_back(static_cast<pid_t>(std::stol((*it)[1])));
  }
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  return pids;
}

bool Gone(pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

// The parent pid and the command line (NULs as spaces) of `pid`.
bool ReadProcess(pid_t pid, pid_t* parent, std::string* command) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  // The command name in parentheses may hold spaces and parentheses.
  std::istringstream after(text.substr(text.rfind(')') + 1));
  std::string state;
  after >> state >> *parent;
  std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
  std::getline(cmdline, *command, '\0');
  std::ostringstream all;
  all << cmdline.rdbuf();
  *command += " " + all.str();
  std::replace(command->begin(), command->end(), '\0', ' ');
  return true;
}

// The live children of `parent` whose command line contains `needle`.
std::vector<pid_t> ChildrenOf(pid_t parent, const std::string& needle) {
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t ppid = 0;
    std::string command;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (ReadProcess(pid, &ppid, &command) && ppid == parent &&
        command.find(needle) != std::string::npos) {
      found.push_back(pid);
    }
  }
  return found;
}

// The launcher this test started with `--logdir dir` (0 until it runs).
pid_t LauncherPid(const LogDir& dir) {
  const std::vector<pid_t> found = ChildrenOf(getpid(), "cluster --ps");
  for (pid_t pid : found) {
    pid_t ppid = 0;
    std::string command;
    if (ReadProcess(pid, &ppid, &command) && command.find(dir.path()) != std::string::npos) {
      return pid;
    }
  }
  return 0;
}

// "H:P" of the first "listening on H:P" line of `log`; empty if none.
std::string ListeningAddress(const std::string& log) {
  std::smatch match;
  if (!std::regex_search(log, match, std::regex(R"(listening on (\S+))"))) return "";
  return match[1];
}

bool Connects(const std::string& host_port) {
  std::string host;
  uint16_t port = 0;
  if (!ParseHostPort(host_port, &host, &port).ok()) return false;
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
  const bool ok = connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

// Runs `actorflow ARGS` on another thread, so that the test can act on the
// cluster while it runs.
struct Launch {
  explicit Launch(std::vector<std::string> args)
      : done(std::async(std::launch::async, [this, args] {
          return RunActorflow(args, &output, std::chrono::seconds(40));
        })) {}
  int Wait() { return done.get(); }  // then `output` is complete
  std::string output;
  std::future<int> done;
};

// The cluster part of a TF_CONFIG echoed as "TF_CONFIG=..." into a log,
// and its task index; empty spec if there is none.
void TfConfigIn(const std::string& log, ClusterSpec* spec, std::string* job, int* index) {
  const size_t at = log.find("TF_CONFIG=");
  if (at == std::string::npos) return;
  const size_t start = at + std::string("TF_CONFIG=").size();
  const std::string json = log.substr(start, log.find('\n', start) - start);
  BOOST_TEST_REQUIRE(ClusterSpec::FromTfConfig(json, spec, job, index).ok(), json);
}

BOOST_AUTO_TEST_SUITE(cluster_launcher)

BOOST_AUTO_TEST_CASE(flag_errors_print_the_usage) {
  const std::vector<std::vector<std::string>> wrong = {
      {"cluster"},
      {"cluster", "--ps", "1", "--workers", "1"},                               // no program
      {"cluster", "--ps", "1", "--workers", "1", "--"},                         // empty program
      {"cluster", "--workers", "1", "--", "true"},                              // no --ps
      {"cluster", "--ps", "1", "--workers", "0", "--", "true"},                 // no worker
      {"cluster", "--ps", "1", "--workers", "1", "--restart", "always", "--", "true"},
      {"cluster", "--ps", "1", "--workers", "1", "--frobnicate", "--", "true"},
      {"cluster", "--ps", "1", "--workers", "1", "--base_port", "65535", "--", "true"},
      {"cluster", "--ps", "1", "--workers", "1", "--stream", "some", "--", "true"},
  };
  for (const std::vector<std::string>& args : wrong) {
    std::string output;
    BOOST_TEST(RunActorflow(args, &output) == 2, output);
    BOOST_TEST(output.find("usage: actorflow cluster") != std::string::npos, output);
  }
}

BOOST_AUTO_TEST_CASE(workers_get_tf_config_and_the_chief_exit_code_is_the_launchers) {
  LogDir dir;
  BOOST_TEST_REQUIRE(!dir.path().empty());
  // Worker 1 keeps a background child; the chief waits until worker 1 has
  // said so, then exits 3.
  const std::string script =
      "echo \"TF_CONFIG=$TF_CONFIG\"\n"
      "case \"$TF_CONFIG\" in *'\"index\": 0}'*)\n"
      "  i=0; until grep -q child " + dir.File("worker-1.log") + " || [ $i -ge 200 ]; do\n"
      "    sleep 0.1; i=$((i+1)); done\n"
      "  exit 3;;\n"
      "esac\n"
      "sleep 25 & echo \"child $!\"; wait\n";
  std::string output;
  const int code = RunActorflow({"cluster", "--ps", "1", "--workers", "2", "--logdir", dir.path(),
                                 "--", "sh", "-c", script},
                                &output, std::chrono::seconds(40));
  BOOST_TEST(code == 3, output);

  const std::string ps_address = ListeningAddress(dir.Read("ps-0.log"));
  BOOST_TEST(!ps_address.empty(), dir.Read("ps-0.log"));
  ClusterSpec cluster[2];
  for (int i = 0; i < 2; ++i) {
    std::string job;
    int index = -1;
    const std::string log = dir.Read("worker-" + std::to_string(i) + ".log");
    TfConfigIn(log, &cluster[i], &job, &index);
    BOOST_TEST(job == "worker", log);
    BOOST_TEST(index == i, log);
  }
  BOOST_TEST(cluster[0].ToFlag() == cluster[1].ToFlag());
  BOOST_TEST(cluster[0].num_tasks("ps") == 1);
  BOOST_TEST(cluster[0].num_tasks("worker") == 2);
  std::string ps_in_config;
  BOOST_TEST(cluster[0].Address("ps", 0, &ps_in_config).ok());
  BOOST_TEST(ps_in_config == ps_address);

  // Three task pids and worker 1's background child: all ended.
  const std::vector<pid_t> pids = PidsIn(output + dir.Read("worker-1.log"));
  BOOST_TEST(pids.size() == 4u, output);
  for (pid_t pid : pids) BOOST_TEST(Gone(pid), "pid " << pid << " is still running");
}

BOOST_AUTO_TEST_CASE(a_killed_ps_task_is_restarted_on_its_address) {
  LogDir dir;
  BOOST_TEST_REQUIRE(!dir.path().empty());
  // The chief runs until the test creates "stop" (at most 25 s).
  const std::string chief =
      "echo chief running; i=0; until [ -e " + dir.File("stop") + " ] || [ $i -ge 250 ]; do sleep 0.1; i=$((i+1)); "
      "done; echo chief done";
  Launch launch({"cluster", "--ps", "1", "--workers", "1", "--restart", "on-failure",
                 "--max_restarts", "2", "--logdir", dir.path(), "--", "sh", "-c", chief});
  const auto listening = [&dir](size_t n) {
    return [&dir, n] { return Count(dir.Read("ps-0.log"), "listening on") >= n; };
  };
  BOOST_TEST_REQUIRE(WaitFor(listening(1)), dir.Read("ps-0.log"));
  // Killed while the chief runs, as a ps task dies in the middle of training.
  BOOST_TEST_REQUIRE(WaitFor([&dir] {
    return dir.Read("worker-0.log").find("chief running") != std::string::npos;
  }));
  const std::string address = ListeningAddress(dir.Read("ps-0.log"));
  std::vector<pid_t> ps;
  BOOST_TEST_REQUIRE(WaitFor([&] {
    const pid_t launcher = LauncherPid(dir);
    ps = launcher == 0 ? std::vector<pid_t>{} : ChildrenOf(launcher, " server ");
    return ps.size() == 1;
  }));
  BOOST_TEST_REQUIRE(kill(ps[0], SIGKILL) == 0);

  const bool restarted = WaitFor(listening(2));
  BOOST_TEST(restarted, dir.Read("ps-0.log"));
  if (restarted) BOOST_TEST(Connects(address), address);
  std::ofstream(dir.File("stop")) << "\n";
  const int code = launch.Wait();
  BOOST_TEST(code == 0, launch.output);
  BOOST_TEST(launch.output.find("restarting ps-0 (killed by signal 9), attempt 1/2") !=
                 std::string::npos,
             launch.output);
  // The new run listens where the old one did.
  const std::string log = dir.Read("ps-0.log");
  const size_t second = log.find("listening on", log.find("listening on") + 1);
  BOOST_TEST(second != std::string::npos);
  if (second != std::string::npos) BOOST_TEST(ListeningAddress(log.substr(second)) == address);
  BOOST_TEST(dir.Read("worker-0.log").find("chief done") != std::string::npos);
  const std::vector<pid_t> pids = PidsIn(launch.output);
  BOOST_TEST(pids.size() == 3u, launch.output);  // ps twice, the chief once
  for (pid_t pid : pids) BOOST_TEST(Gone(pid), "pid " << pid << " is still running");
}

BOOST_AUTO_TEST_CASE(sigterm_to_the_launcher_ends_every_task) {
  LogDir dir;
  BOOST_TEST_REQUIRE(!dir.path().empty());
  Launch launch({"cluster", "--ps", "1", "--workers", "2", "--logdir", dir.path(), "--", "sh",
                 "-c", "sleep 25 & echo \"child $!\"; wait"});
  BOOST_TEST_REQUIRE(WaitFor([&dir] {
    return dir.Read("worker-0.log").find("child") != std::string::npos &&
           dir.Read("worker-1.log").find("child") != std::string::npos;
  }));
  pid_t launcher = 0;
  BOOST_TEST_REQUIRE(WaitFor([&] { return (launcher = LauncherPid(dir)) != 0; }));
  BOOST_TEST_REQUIRE(kill(launcher, SIGTERM) == 0);
  const int code = launch.Wait();
  BOOST_TEST(code == 128 + SIGTERM, launch.output);  // the chief's: killed by the SIGTERM passed on
  BOOST_TEST(launch.output.find("got signal 15") != std::string::npos, launch.output);
  const std::vector<pid_t> pids =
      PidsIn(launch.output + dir.Read("worker-0.log") + dir.Read("worker-1.log"));
  BOOST_TEST(pids.size() == 5u, launch.output);
  for (pid_t pid : pids) BOOST_TEST(Gone(pid), "pid " << pid << " is still running");
}

// Task output on the console: the chief's lines by default, every task's
// with --stream all, none with --stream none; each line once, prefixed with
// its task, the logs unchanged, and the chief's last line (even one without
// a newline) repeated as the console's last.
BOOST_AUTO_TEST_CASE(task_lines_stream_to_the_console_with_their_task_name) {
  const auto run = [](const std::string& stream, const LogDir& dir) {
    // Worker 1 speaks first; the chief waits to see it in worker 1's log.
    const std::string script =
        "case \"$TF_CONFIG\" in *'\"index\": 0}'*)\n"
        "  i=0; until grep -q hello " + dir.File("worker-1.log") + " || [ $i -ge 200 ]; do\n"
        "    sleep 0.1; i=$((i+1)); done\n"
        "  echo 'chief step 1'; echo 'chief step 2'; printf 'result 42';;\n"
        "*) echo 'hello from worker 1'; sleep 25;;\n"
        "esac\n";
    std::string output;
    const int code = RunActorflow({"cluster", "--ps", "1", "--workers", "2", "--stream", stream,
                                   "--logdir", dir.path(), "--", "sh", "-c", script},
                                  &output, std::chrono::seconds(40));
    BOOST_TEST(code == 0, output);
    return output;
  };
  {
    LogDir dir;
    BOOST_TEST_REQUIRE(!dir.path().empty());
    const std::string output = run("all", dir);
    BOOST_TEST(Count(output, "[worker-0] chief step 1\n") == 1u, output);
    BOOST_TEST(Count(output, "[worker-0] chief step 2\n") == 1u, output);
    BOOST_TEST(Count(output, "[worker-1] hello from worker 1\n") == 1u, output);
    BOOST_TEST(Count(output, "[ps-0] ") >= 1u, output);  // the server's own lines
    BOOST_TEST(output.find("[worker-0] chief step 1") < output.find("[worker-0] chief step 2"));
    const std::string last = "actorflow cluster: worker-0's last line: result 42\n";
    BOOST_TEST(output.size() >= last.size());
    BOOST_TEST(output.substr(output.size() - std::min(output.size(), last.size())) == last, output);
    BOOST_TEST(dir.Read("worker-0.log") == "chief step 1\nchief step 2\nresult 42");
  }
  {
    LogDir dir;
    BOOST_TEST_REQUIRE(!dir.path().empty());
    const std::string output = run("chief", dir);
    BOOST_TEST(Count(output, "[worker-0] chief step 2\n") == 1u, output);
    BOOST_TEST(Count(output, "[worker-1]") == 0u, output);
    BOOST_TEST(Count(output, "[ps-0]") == 0u, output);
  }
  {
    LogDir dir;
    BOOST_TEST_REQUIRE(!dir.path().empty());
    const std::string output = run("none", dir);
    BOOST_TEST(Count(output, "[worker-") == 0u, output);
    BOOST_TEST(Count(output, "last line") == 0u, output);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
