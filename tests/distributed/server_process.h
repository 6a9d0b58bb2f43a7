// An `actorflow server` child process for tests: started with --port 0 (the
// server picks a free port and prints it), killed in every path (the
// destructor, and --exit_with_parent if this test process dies).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace af::testing {

class ServerProcess {
 public:
  ServerProcess() = default;
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Starts the server with `args` after the subcommand and waits (at most
  // `timeout`) for its "listening on" line.
  Status Start(const std::vector<std::string>& args,
               std::chrono::milliseconds timeout = std::chrono::seconds(30));
  uint16_t port() const { return port_; }
  // Adds "--port 0" before the arguments (default). Off when the address
  // comes from --cluster or TF_CONFIG.
  bool any_port = true;
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  const std::string& output() const { return output_; }
  pid_t pid() const { return pid_; }  // -1 when not running
  // Reads the server's output until it holds `marker` (true) or `timeout`
  // passes or the server's output ends (false).
  bool WaitForOutput(const std::string& marker, std::chrono::milliseconds timeout);

  // Sends `signal` and waits up to `timeout` for the exit; escalates to
  // SIGKILL after that. Returns the wait status, or -1 if not running.
  int Stop(int signal, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // Sends `signal` without waiting (SIGSTOP, SIGCONT).
  void Signal(int signal) const;

 private:
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  uint16_t port_ = 0;
  std::string output_;
};

// Two ps tasks of one cluster on 127.0.0.1, each an `actorflow server
// --cluster SPEC --job ps --task i` (plus `extra` arguments) at the
// address `spec` names for it.
struct PsPair {
  // Two servers on two free ports; tries other ports when one is taken
  // before its server binds it.
  Status Start(const std::vector<std::string>& extra = {});
  Status StartOnFreePorts(const std::vector<std::string>& extra);
  std::string spec;  // "ps=127.0.0.1:P0,127.0.0.1:P1"
  ServerProcess ps0, ps1;
};

// `n` ports free right now: servers started on port 0 report theirs and
// are stopped again.
std::vector<uint16_t> FreePorts(int n);
// "127.0.0.1:<port>".
std::string Address(uint16_t port);

// Runs `actorflow ARGS...` to completion (at most `timeout`, then killed)
// and returns its exit code (-1 if it did not exit normally).
int RunActorflow(const std::vector<std::string>& args, std::string* output,
                 std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace af::testing
