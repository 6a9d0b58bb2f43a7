#include "bench/bench_servers.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>

#include "bench/bench_util.h"
#include "core/status.h"

namespace af::bench {

BenchServer::~BenchServer() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
}

std::string BinaryDirectory() {
  char self[PATH_MAX] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  const std::string path = n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string();
  return path.substr(0, path.rfind('/'));
}

void BenchServer::Start(const std::vector<std::string>& args) {
  const std::string binary = BinaryDirectory() + "/actorflow";
  std::vector<std::string> argv_storage = {binary, "server"};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  if (pipe(out) != 0) CheckOk(errors::Internal("pipe"), "start server");
  pid_ = fork();
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(out[1]);
  std::string text;
  char buf[256];
  const std::string marker = "listening on ";
  while (text.find(marker) == std::string::npos ||
         text.find('\n', text.find(marker)) == std::string::npos) {
    const ssize_t got = read(out[0], buf, sizeof buf);
    if (got <= 0) {
      CheckOk(errors::Unavailable(binary, " server did not start: ", text), "start server");
    }
    text.append(buf, static_cast<size_t>(got));
  }
  const size_t at = text.find(marker) + marker.size();
  // "host:port", then possibly words about the server's authentication.
  address_ = text.substr(at, text.find_first_of(" \n", at) - at);
  // With --metrics_port, the line before says where the metrics are.
  const std::string metrics = "metrics on http://";
  if (const size_t m = text.find(metrics); m != std::string::npos) {
    const size_t from = m + metrics.size();
    metrics_address_ = text.substr(from, text.find('/', from) - from);
  }
  close(out[0]);
}

std::vector<uint16_t> PickFreePorts(int n) {
  std::vector<int> sockets;
  std::vector<uint16_t> ports;
  for (int i = 0; i < n; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      CheckOk(errors::Unavailable("no free loopback port"), "pick ports");
    }
    sockets.push_back(fd);
    ports.push_back(ntohs(addr.sin_port));
  }
  for (int fd : sockets) close(fd);
  return ports;
}

}  // namespace af::bench
