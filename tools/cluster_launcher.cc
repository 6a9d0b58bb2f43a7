#include "tools/cluster_launcher.h"

#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/cluster_secret.h"
#include "core/cluster_spec.h"
#include "core/status.h"
#include "tools/cluster_plan.h"
#include "tools/log_follower.h"
#include "tools/subcommands.h"

extern char** environ;

namespace af::tools {
namespace {

constexpr std::string_view kListening = "listening on ";
// A task that dies at once is not restarted in a tight loop; short, because
// every worker waits on a parameter server that is down.
constexpr auto kRestartDelay = std::chrono::milliseconds(250);
// The longest the launcher sleeps between looks at its children and logs.
constexpr auto kPoll = std::chrono::milliseconds(50);
// How long SIGKILLed tasks get to be reaped before the launcher gives up.
constexpr auto kKillWait = std::chrono::seconds(5);
constexpr size_t kLogTailLines = 5;

std::string DescribeStatus(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "ended with wait status " + std::to_string(status);
}

// What a shell reports for the same status.
int ExitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return kExitError;
}

bool Failed(int status) { return !WIFEXITED(status) || WEXITSTATUS(status) != 0; }

// This process's children, including orphans of the tasks that came back to
// it as a subreaper; empty where the kernel has no /proc/.../children.
std::vector<pid_t> ListChildren() {
  const pid_t self = getpid();  // the launcher is single-threaded: its tid
  std::ifstream in("/proc/" + std::to_string(self) + "/task/" + std::to_string(self) +
                   "/children");
  std::vector<pid_t> pids;
  for (pid_t pid = 0; in >> pid;) pids.push_back(pid);
  return pids;
}

class Launcher {
 public:
  Launcher(const ClusterLaunchOptions& options, std::ostream& out, std::ostream& err)
      : options_(options), out_(out), err_(err), follower_(out) {
    // Stop signals and child exits are taken synchronously (sigtimedwait) so
    // that no handler runs in the middle of a fork or a reap.
    sigemptyset(&handled_);
    sigaddset(&handled_, SIGINT);
    sigaddset(&handled_, SIGTERM);
    sigaddset(&handled_, SIGCHLD);
    sigprocmask(SIG_BLOCK, &handled_, &original_mask_);
    // A closed stdout must not kill the launcher and orphan the cluster.
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, &original_sigpipe_);
    // An inherited SIG_IGN would make the kernel reap the tasks itself, and
    // the chief's exit status would be lost.
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    sigaction(SIGCHLD, &default_action, &original_sigchld_);
    // Processes a task leaves behind (a shell's background jobs) become the
    // launcher's children when their parent dies, so that it can stop and
    // reap them instead of leaving them to init.
    prctl(PR_SET_CHILD_SUBREAPER, 1);
  }

  ~Launcher() {
    // Signals still pending would act the moment they are unblocked, and
    // turn the chief's exit code into death by that signal.
    timespec zero{0, 0};
    while (sigtimedwait(&handled_, nullptr, &zero) > 0) {
    }
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    sigaction(SIGCHLD, &original_sigchld_, nullptr);
    sigaction(SIGPIPE, &original_sigpipe_, nullptr);
    sigprocmask(SIG_SETMASK, &original_mask_, nullptr);
  }

  int Run() {
    if (Status s = Prepare(); !s.ok()) {
      Error(s.message());
      return kExitError;
    }
    Say("cluster " + spec_);
    Say("logs in " + logdir_);
    Say("cluster secret in " + secret_path_ + " (every task gets " + kSecretFileEnv + ")");
    for (ClusterTask& t : tasks_) {
      if (!t.is_ps()) continue;
      if (!Spawn(&t, /*append=*/false)) {
        StopAll(SIGTERM);
        return kExitError;
      }
    }
    if (!WaitForParameterServers()) return received_signal_ ? 128 + received_signal_ : kExitError;
    starting_ = false;
    for (const ClusterTask& t : tasks_) {
      if (t.is_chief()) {
        Say("TF_CONFIG of worker 0: " + t.tf_config +
            (options_.num_workers > 1 ? " (worker I gets \"index\": I)" : ""));
      }
    }
    for (ClusterTask& t : tasks_) {
      if (!t.is_ps() && !Spawn(&t, /*append=*/false)) EndWithoutRun(&t);
    }
    Supervise();
    const ClusterTask& chief = tasks_[options_.num_ps];
    follower_.Drain();
    // The result a chief prints last (accuracy, a JSON line) ends the
    // console too, after the other tasks' endings.
    if (const std::string last = follower_.LastLine(chief.Name()); !last.empty()) {
      Say(chief.Name() + "'s last line: " + last);
    }
    if (chief.last_status != -1) return ExitCodeOf(chief.last_status);
    return received_signal_ ? 128 + received_signal_ : kExitError;
  }

 private:
  void Say(const std::string& line) { out_ << "actorflow cluster: " << line << std::endl; }
  void Error(const std::string& line) {
    out_.flush();
    err_ << "actorflow cluster: " << line << std::endl;
  }

  Status Prepare() {
    self_ = getpid();
    ClusterPlan plan;
    AF_RETURN_IF_ERROR(PlanCluster(options_, &plan));
    logdir_ = std::move(plan.logdir);
    secret_path_ = std::move(plan.secret_path);
    spec_ = std::move(plan.spec);
    tasks_ = std::move(plan.tasks);
    return Status::OK();
  }

  // Starts the task with its output going to its log; false (said why) if
  // it could not be started or its program could not be executed.
  bool Spawn(ClusterTask* t, bool append) {
    const int log = open(t->log_path.c_str(),
                         O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (append ? 0 : O_TRUNC), 0644);
    if (log < 0) {
      Error("cannot open " + t->log_path + ": " + strerror(errno));
      return false;
    }
    struct stat st {};
    fstat(log, &st);
    t->log_start = st.st_size;
    // Everything the child needs is built before fork: between fork and
    // exec only async-signal-safe calls are allowed.
    const std::string& exec_path = t->exec_path;
    std::vector<char*> argv, envp;
    for (std::string& a : t->argv) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (std::string& e : t->env) envp.push_back(e.data());
    envp.push_back(nullptr);
    int report[2];  // carries exec's errno; closed by a successful exec
    if (pipe2(report, O_CLOEXEC) != 0) {
      Error(std::string("cannot create a pipe: ") + strerror(errno));
      close(log);
      return false;
    }
    out_.flush();
    err_.flush();
    const pid_t pid = fork();
    if (pid == 0) {
      // Its own process group, so that signals reach the programs a task
      // starts (a shell's children), and it dies with the launcher even if
      // the launcher is killed.
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != self_) _exit(127);
      const int in = open("/dev/null", O_RDONLY);
      if (in >= 0 && in != STDIN_FILENO) {
        dup2(in, STDIN_FILENO);
        close(in);
      }
      dup2(log, STDOUT_FILENO);
      dup2(log, STDERR_FILENO);
      sigaction(SIGPIPE, &original_sigpipe_, nullptr);
      sigaction(SIGCHLD, &original_sigchld_, nullptr);
      sigprocmask(SIG_SETMASK, &original_mask_, nullptr);
      execvpe(exec_path.c_str(), argv.data(), envp.data());
      const int error = errno;
      ssize_t ignored = write(report[1], &error, sizeof error);
      (void)ignored;
      _exit(127);
    }
    close(report[1]);
    close(log);
    if (pid < 0) {
      close(report[0]);
      Error("cannot start " + t->Name() + ": fork: " + strerror(errno));
      return false;
    }
    setpgid(pid, pid);  // also here: whichever runs first, the group exists before any kill
    int exec_error = 0;
    ssize_t got;
    do {
      got = read(report[0], &exec_error, sizeof exec_error);
    } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == static_cast<ssize_t>(sizeof exec_error)) {
      int status = 0;
      waitpid(pid, &status, 0);
      const std::string message =
          "cannot run '" + exec_path + "' for " + t->Name() + ": " + strerror(exec_error);
      std::ofstream(t->log_path, std::ios::app) << "actorflow cluster: " << message << "\n";
      Error(message);
      return false;
    }
    t->pid = pid;
    t->listening = false;
    t->listen_deadline = Clock::now() + options_.start_timeout;
    if (options_.stream == StreamOutput::kAll ||
        (options_.stream == StreamOutput::kChief && t->is_chief())) {
      follower_.Follow(t->Name(), t->log_path, t->log_start);
    }
    Say("job " + t->job + " task " + std::to_string(t->index) + " at " + t->address + " pid " +
        std::to_string(pid) + " log " + t->log_path);
    return true;
  }

  // A worker whose program cannot be run: as if it had exited with 127,
  // the shell's code for that; never restarted, since it would fail again.
  void EndWithoutRun(ClusterTask* t) {
    t->ended = true;
    t->pid = -1;
    t->last_status = 127 << 8;
    if (t->is_chief()) chief_ended_ = true;
  }

  // The output of the task's current run, from the log.
  std::string ReadRun(const ClusterTask& t) const {
    std::ifstream in(t.log_path, std::ios::binary);
    in.seekg(t.log_start);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // The last lines of the current run's output, indented, for messages
  // about a task that failed to start.
  std::string LogTail(const ClusterTask& t) const {
    std::vector<std::string> lines;
    std::istringstream text(ReadRun(t));
    for (std::string line; std::getline(text, line);) lines.push_back(line);
    if (lines.empty()) return "\n    (the log is empty)";
    std::string tail;
    for (size_t i = lines.size() > kLogTailLines ? lines.size() - kLogTailLines : 0;
         i < lines.size(); ++i) {
      tail += "\n    " + lines[i];
    }
    return tail;
  }

  // True once the current run has printed its "listening on" line.
  bool CheckListening(ClusterTask* t) {
    if (t->listening || t->pid <= 0) return t->listening;
    const std::string text = ReadRun(*t);
    const size_t at = text.find(kListening);
    const size_t eol = at == std::string::npos ? at : text.find('\n', at);
    if (eol == std::string::npos) return false;
    t->listening = true;
    // The address only: servers may add remarks after it.
    const std::string rest = text.substr(at + kListening.size(), eol - at - kListening.size());
    Say(t->Name() + " listening on " + rest.substr(0, rest.find(' ')));
    return true;
  }

  bool WaitForParameterServers() {
    const auto deadline = Clock::now() + options_.start_timeout;
    while (true) {
      StartDueRestarts();
      bool all = true;
      for (ClusterTask& t : tasks_) {
        if (!t.is_ps() || CheckListening(&t)) continue;
        all = false;
        // It listened, died and will not run again: the cluster cannot start.
        if (t.ended) start_failed_ = true;
      }
      if (all) return true;
      if (start_failed_) {
        StopAll(SIGTERM);
        return false;
      }
      if (Clock::now() >= deadline) {
        for (ClusterTask& t : tasks_) {
          if (t.is_ps() && !t.listening) {
            Error(t.Name() + " did not say \"listening on\" within " +
                  std::to_string(options_.start_timeout.count() / 1000) + " s; its log " +
                  t.log_path + ":" + LogTail(t));
          }
        }
        StopAll(SIGTERM);
        return false;
      }
      follower_.Poll();
      if (const int s = WaitSignal(kPoll); s != 0) {
        received_signal_ = s;
        Say("got signal " + std::to_string(s) + " while starting; stopping every task");
        StopAll(s);
        return false;
      }
      ReapAll();
    }
  }

  void Supervise() {
    while (true) {
      follower_.Poll();
      if (chief_ended_) {
        if (AnyRunning()) Say("stopping the other tasks");
        StopAll(SIGTERM);
        return;
      }
      if (const int s = WaitSignal(kPoll); s != 0) {
        received_signal_ = s;
        Say("got signal " + std::to_string(s) + "; passing it to every task");
        StopAll(s);
        return;
      }
      ReapAll();
      StartDueRestarts();
      const auto now = Clock::now();
      for (ClusterTask& t : tasks_) {
        // A restarted server that never listens would leave its address
        // dead for good; killing it lets the restart policy try again.
        if (t.is_ps() && t.pid > 0 && !CheckListening(&t) && now >= t.listen_deadline) {
          Error(t.Name() + " did not say \"listening on\" within " +
                std::to_string(options_.start_timeout.count() / 1000) + " s; killing it; log " +
                t.log_path);
          kill(-t.pid, SIGKILL);
        }
      }
    }
  }

  void StartDueRestarts() {
    const auto now = Clock::now();
    for (ClusterTask& t : tasks_) {
      if (!t.restart_pending || now < t.restart_at) continue;
      t.restart_pending = false;
      std::ofstream(t.log_path, std::ios::app)
          << "actorflow cluster: restart " << t.restarts << "/" << options_.max_restarts << " of "
          << t.Name() << " (last run " << DescribeStatus(t.last_status) << ")\n";
      if (!Spawn(&t, /*append=*/true)) EndWithoutRun(&t);
    }
  }

  // SIGINT or SIGTERM if one came within `timeout`, else 0 (a child's exit
  // also ends the wait early).
  int WaitSignal(Clock::duration timeout) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count();
    const timespec wait{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
    const int s = sigtimedwait(&handled_, nullptr, &wait);
    return s == SIGINT || s == SIGTERM ? s : 0;
  }

  // Reaps every child that ended: tasks (OnExit) and the orphans of tasks.
  void ReapAll() {
    while (true) {
      int status = 0;
      const pid_t pid = waitpid(-1, &status, WNOHANG);
      if (pid < 0 && errno == ECHILD) {
        LoseRunningTasks();
        return;
      }
      if (pid <= 0) return;
      for (ClusterTask& t : tasks_) {
        if (t.pid == pid) OnExit(&t, status);
      }
    }
  }

  // No children while tasks are believed running: something else reaped
  // them. Their status is unknown; treating them as failed keeps the
  // supervisor from waiting forever on a chief that is gone.
  void LoseRunningTasks() {
    for (ClusterTask& t : tasks_) {
      if (t.pid <= 0) continue;
      Error(t.Name() + " (pid " + std::to_string(t.pid) + ") was reaped by someone else");
      OnExit(&t, kExitError << 8);
    }
  }

  // Children that are no task: what tasks left behind.
  std::vector<pid_t> Stragglers() const {
    std::vector<pid_t> pids = ListChildren();
    std::erase_if(pids, [this](pid_t pid) {
      return std::any_of(tasks_.begin(), tasks_.end(),
                         [pid](const ClusterTask& t) { return t.pid == pid; });
    });
    return pids;
  }

  void OnExit(ClusterTask* t, int status) {
    // A server may print "listening on" and die before the launcher looked:
    // then it did start, and its death is a failure like any later one.
    const bool was_listening = t->is_ps() && CheckListening(t);
    t->listening = false;
    t->pid = -1;
    t->last_status = status;
    const std::string what = t->Name() + " " + DescribeStatus(status);
    if (stopping_) {
      t->ended = true;
      Say(what);
      return;
    }
    if (starting_ && t->is_ps() && !was_listening) {
      t->ended = true;
      start_failed_ = true;
      Error(what + " before it was listening on " + t->address + "; its log " + t->log_path +
            ":" + LogTail(*t));
      return;
    }
    // A parameter server is never done while the chief runs: any exit is
    // a failure.
    const bool failed = t->is_ps() || Failed(status);
    if (failed && options_.restart_on_failure && t->restarts < options_.max_restarts) {
      ++t->restarts;
      Say("restarting " + t->Name() + " (" + DescribeStatus(status) + "), attempt " +
          std::to_string(t->restarts) + "/" + std::to_string(options_.max_restarts));
      t->restart_pending = true;
      t->restart_at = Clock::now() + kRestartDelay;
      return;
    }
    t->ended = true;
    if (t->is_chief()) {
      chief_ended_ = true;
      Say("chief " + what);
      return;
    }
    if (!failed) {
      Say(what);
      return;
    }
    const std::string policy =
        options_.restart_on_failure
            ? "no restarts left (" + std::to_string(options_.max_restarts) + " used)"
            : "not restarted (--restart never)";
    Error(what + "; " + policy + "; its log " + t->log_path);
  }

  bool AnyRunning() const {
    for (const ClusterTask& t : tasks_) {
      if (t.pid > 0) return true;
    }
    return false;
  }

  void SignalAll(int signal) {
    for (const ClusterTask& t : tasks_) {
      // The group may be gone while the task itself is not yet reaped, or
      // the program may have left it.
      if (t.pid > 0 && kill(-t.pid, signal) != 0) kill(t.pid, signal);
    }
    for (pid_t pid : Stragglers()) kill(pid, signal);
  }

  bool AnyLeft() const { return AnyRunning() || !Stragglers().empty(); }

  std::string DescribeLeft() const {
    std::string left;
    for (const ClusterTask& t : tasks_) {
      if (t.pid > 0) left += " " + t.Name() + " (pid " + std::to_string(t.pid) + ")";
    }
    for (pid_t pid : Stragglers()) left += " pid " + std::to_string(pid);
    return left;
  }

  // Sends `signal` to every running task and to what tasks left behind,
  // and waits for all of them; those still running after the grace period
  // (or a second SIGINT/SIGTERM) are killed.
  void StopAll(int signal) {
    stopping_ = true;
    for (ClusterTask& t : tasks_) t.restart_pending = false;
    ReapAll();
    if (!AnyLeft()) return;
    if (const std::vector<pid_t> left = Stragglers(); !left.empty()) {
      Say("stopping " + std::to_string(left.size()) + " process(es) the tasks left behind");
    }
    SignalAll(signal);
    auto deadline = Clock::now() + options_.stop_grace;
    bool killed = false;
    while (true) {
      const int s = WaitSignal(kPoll);
      follower_.Poll();
      ReapAll();
      if (!AnyLeft()) return;
      if (killed) {
        if (Clock::now() >= deadline) {
          Error("still running after SIGKILL:" + DescribeLeft());
          return;
        }
        // Children of killed processes come back to the launcher now.
        SignalAll(SIGKILL);
      } else if (s != 0 || Clock::now() >= deadline) {
        Say((s != 0 ? "got signal " + std::to_string(s) + " again"
                    : "still running after " +
                          std::to_string(options_.stop_grace.count() / 1000) +
                          " s:" + DescribeLeft()) +
            "; sending SIGKILL");
        SignalAll(SIGKILL);
        killed = true;
        deadline = Clock::now() + kKillWait;
      }
    }
  }

  const ClusterLaunchOptions& options_;
  std::ostream& out_;
  std::ostream& err_;
  LogFollower follower_;  // prints the streamed tasks' lines to out_
  sigset_t handled_{};
  sigset_t original_mask_{};
  struct sigaction original_sigpipe_ {};
  struct sigaction original_sigchld_ {};
  pid_t self_ = -1;
  std::string logdir_;
  std::string secret_path_;
  std::string spec_;
  std::vector<ClusterTask> tasks_;  // ps 0..N-1, then worker 0..M-1
  bool starting_ = true;     // until every ps listens
  bool start_failed_ = false;
  bool stopping_ = false;
  bool chief_ended_ = false;
  int received_signal_ = 0;
};

}  // namespace

int RunCluster(const ClusterLaunchOptions& options, std::ostream& out, std::ostream& err) {
  Launcher launcher(options, out, err);
  return launcher.Run();
}

}  // namespace af::tools
