#include "tests/distributed/server_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <thread>

extern char** environ;

namespace af::testing {
namespace {

using Clock = std::chrono::steady_clock;

// Spawns actorflow with stdout and stderr on a pipe; returns the pid.
pid_t Spawn(const std::vector<std::string>& args, int* read_fd) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  std::vector<std::string> argv_storage = {AF_ACTORFLOW_BIN};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, AF_ACTORFLOW_BIN, &actions, nullptr, argv.data(), environ) != 0) {
    pid = -1;
  }
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    return -1;
  }
  *read_fd = fds[0];
  return pid;
}

// Reads what is available within `wait`; false at end of stream.
bool ReadSome(int fd, std::string* into, std::chrono::milliseconds wait) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(wait.count())) <= 0) return true;
  char buffer[4096];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  if (n <= 0) return false;
  into->append(buffer, static_cast<size_t>(n));
  return true;
}

// Waits for `pid` until `deadline`; true with `status` once it exited.
bool WaitUntil(pid_t pid, Clock::time_point deadline, int* status) {
  while (true) {
    const pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid) return true;
    if (r < 0) return true;  // not our child any more
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

ServerProcess::~ServerProcess() { Stop(SIGKILL, std::chrono::seconds(5)); }

Status ServerProcess::Start(const std::vector<std::string>& args,
                            std::chrono::milliseconds timeout) {
  std::vector<std::string> full = {"server", "--exit_with_parent"};
  // Any free port, unless the test gives the address (a cluster spec, or
  // TF_CONFIG in the environment).
  if (any_port) full.insert(full.end(), {"--port", "0"});
  full.insert(full.end(), args.begin(), args.end());
  pid_ = Spawn(full, &stdout_fd_);
  if (pid_ < 0) return errors::Internal("cannot start ", AF_ACTORFLOW_BIN);
  const auto deadline = Clock::now() + timeout;
  const std::string marker = "listening on ";
  while (Clock::now() < deadline) {
    const size_t at = output_.find(marker);
    const size_t eol = at == std::string::npos ? at : output_.find('\n', at);
    if (eol != std::string::npos) {
      const std::string address = output_.substr(at + marker.size(), eol - at - marker.size());
      port_ = static_cast<uint16_t>(std::stoi(address.substr(address.rfind(':') + 1)));
      return Status::OK();
    }
    if (!ReadSome(stdout_fd_, &output_, std::chrono::milliseconds(100))) break;
  }
  Stop(SIGKILL);
  return errors::Unavailable("actorflow server did not start; output: ", output_);
}

bool ServerProcess::WaitForOutput(const std::string& marker, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (output_.find(marker) == std::string::npos) {
    if (stdout_fd_ < 0 || Clock::now() >= deadline) return false;
    if (!ReadSome(stdout_fd_, &output_, std::chrono::milliseconds(50))) return false;
  }
  return true;
}

void ServerProcess::Signal(int signal) const {
  if (pid_ > 0) kill(pid_, signal);
}

int ServerProcess::Stop(int signal, std::chrono::milliseconds timeout) {
  if (pid_ < 0) return -1;
  int status = -1;
  kill(pid_, signal);
  if (!WaitUntil(pid_, Clock::now() + timeout, &status)) {
    kill(pid_, SIGKILL);
    WaitUntil(pid_, Clock::now() + std::chrono::seconds(10), &status);
  }
  while (stdout_fd_ >= 0 && ReadSome(stdout_fd_, &output_, std::chrono::milliseconds(0))) {
    pollfd p{stdout_fd_, POLLIN, 0};
    if (poll(&p, 1, 0) <= 0) break;
  }
  if (stdout_fd_ >= 0) close(stdout_fd_);
  stdout_fd_ = -1;
  pid_ = -1;
  return status;
}

int RunActorflow(const std::vector<std::string>& args, std::string* output,
                 std::chrono::milliseconds timeout) {
  int fd = -1;
  const pid_t pid = Spawn(args, &fd);
  if (pid < 0) return -1;
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline && ReadSome(fd, output, std::chrono::milliseconds(50))) {
  }
  int status = 0;
  if (!WaitUntil(pid, deadline, &status)) {
    kill(pid, SIGKILL);
    WaitUntil(pid, Clock::now() + std::chrono::seconds(10), &status);
  }
  close(fd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<uint16_t> FreePorts(int n) {
  std::vector<std::unique_ptr<ServerProcess>> probes;
  std::vector<uint16_t> ports;
  for (int i = 0; i < n; ++i) {
    probes.push_back(std::make_unique<ServerProcess>());
    if (!probes.back()->Start({}).ok()) return ports;  // the caller sees too few
    ports.push_back(probes.back()->port());
  }
  for (auto& p : probes) p->Stop(SIGTERM);
  return ports;
}

std::string Address(uint16_t port) { return "127.0.0.1:" + std::to_string(port); }

Status PsPair::Start(const std::vector<std::string>& extra) {
  // Ports found free can be taken by another process (a test running
  // beside this one) before the servers bind them: new ports then.
  Status started;
  for (int attempt = 0; attempt < 3; ++attempt) {
    started = StartOnFreePorts(extra);
    if (started.ok() || started.message().find("cannot listen") == std::string::npos)
      return started;
    ps0.Stop(SIGKILL);
    ps1.Stop(SIGKILL);
  }
  return started;
}

Status PsPair::StartOnFreePorts(const std::vector<std::string>& extra) {
  const std::vector<uint16_t> ports = FreePorts(2);
  if (ports.size() != 2) return errors::Unavailable("no two free ports for the ps tasks");
  spec = "ps=" + Address(ports[0]) + "," + Address(ports[1]);
  ServerProcess* tasks[] = {&ps0, &ps1};
  for (int t = 0; t < 2; ++t) {
    std::vector<std::string> args = {"--cluster", spec, "--job", "ps", "--task",
                                     std::to_string(t)};
    args.insert(args.end(), extra.begin(), extra.end());
    tasks[t]->any_port = false;
    AF_RETURN_IF_ERROR(tasks[t]->Start(args));
  }
  return Status::OK();
}

}  // namespace af::testing
