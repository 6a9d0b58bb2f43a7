// `actorflow server` processes for the distributed benchmarks: started from
// the directory of the running benchmark binary, ended (SIGTERM) with their
// handle or when the benchmark dies (PR_SET_PDEATHSIG).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace af::bench {

class BenchServer {
 public:
  BenchServer() = default;
  ~BenchServer();
  BenchServer(const BenchServer&) = delete;
  BenchServer& operator=(const BenchServer&) = delete;

  // Runs `actorflow server ARGS...` and waits for its "listening on" line;
  // exits the benchmark with a message when the server does not start.
  void Start(const std::vector<std::string>& args);
  const std::string& address() const { return address_; }
  // "host:port" of its metrics endpoint (started with --metrics_port), else empty.
  const std::string& metrics_address() const { return metrics_address_; }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  std::string address_;
  std::string metrics_address_;
};

// The directory holding the running binary (where `actorflow` is built).
std::string BinaryDirectory();

// `n` loopback ports that were free a moment ago (bound to port 0, then
// released), for cluster specs that must name addresses before servers run.
std::vector<uint16_t> PickFreePorts(int n);

}  // namespace af::bench
