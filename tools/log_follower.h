// Follows the logs of a cluster's tasks as `tail -f` would and prints each
// new line to the console with the task's name ("[worker-0] step 100 ..."),
// so that `actorflow cluster` shows training progress while every task's
// output still goes to its own file (a task never blocks on the console).
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

namespace af::tools {

class LogFollower {
 public:
  explicit LogFollower(std::ostream& out) : out_(out) {}
  ~LogFollower();
  LogFollower(const LogFollower&) = delete;
  LogFollower& operator=(const LogFollower&) = delete;

  // Starts (or goes on) following `path` for `name` from byte `offset`; a
  // log already followed keeps its place (a restart appends to it).
  void Follow(const std::string& name, const std::string& path, int64_t offset);
  // Prints every complete line written since the last call.
  void Poll();
  // Poll, then prints what is left after the last newline of each log.
  void Drain();
  // The last non-empty line printed for `name` (empty if none).
  std::string LastLine(const std::string& name) const;

 private:
  struct Followed {
    int fd = -1;
    int64_t offset = 0;
    std::string partial;  // read, not yet ended by a newline
    std::string last_line;
  };
  void Print(const std::string& name, Followed* f, const std::string& line);
  void ReadNew(const std::string& name, Followed* f);

  std::ostream& out_;
  std::map<std::string, Followed> logs_;
};

}  // namespace af::tools
