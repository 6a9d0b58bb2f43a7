#include "tools/log_follower.h"

#include <fcntl.h>
#include <unistd.h>

namespace af::tools {
namespace {

// A line longer than this (a progress bar redrawn with '\r', say) is
// printed in pieces rather than held without end.
constexpr size_t kMaxLineBytes = 64 * 1024;

}  // namespace

LogFollower::~LogFollower() {
  for (auto& [name, f] : logs_) {
    if (f.fd >= 0) close(f.fd);
  }
}

void LogFollower::Follow(const std::string& name, const std::string& path, int64_t offset) {
  Followed& f = logs_[name];
  if (f.fd >= 0) return;
  f.fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  f.offset = offset;
}

void LogFollower::Print(const std::string& name, Followed* f, const std::string& line) {
  std::string text = line;
  if (!text.empty() && text.back() == '\r') text.pop_back();
  out_ << "[" << name << "] " << text << "\n";
  if (text.find_first_not_of(" \t\r") != std::string::npos) f->last_line = text;
}

void LogFollower::ReadNew(const std::string& name, Followed* f) {
  if (f->fd < 0) return;
  char buffer[16384];
  bool printed = false;
  while (true) {
    const ssize_t n = pread(f->fd, buffer, sizeof buffer, f->offset);
    if (n <= 0) break;
    f->offset += n;
    f->partial.append(buffer, static_cast<size_t>(n));
    size_t begin = 0;
    for (size_t eol = f->partial.find('\n'); eol != std::string::npos;
         eol = f->partial.find('\n', begin)) {
      Print(name, f, f->partial.substr(begin, eol - begin));
      begin = eol + 1;
      printed = true;
    }
    f->partial.erase(0, begin);
    if (f->partial.size() > kMaxLineBytes) {
      Print(name, f, f->partial);
      f->partial.clear();
      printed = true;
    }
  }
  if (printed) out_.flush();
}

void LogFollower::Poll() {
  for (auto& [name, f] : logs_) ReadNew(name, &f);
}

void LogFollower::Drain() {
  Poll();
  for (auto& [name, f] : logs_) {
    if (f.partial.empty()) continue;
    Print(name, &f, f.partial);
    f.partial.clear();
  }
  out_.flush();
}

std::string LogFollower::LastLine(const std::string& name) const {
  auto it = logs_.find(name);
  return it == logs_.end() ? std::string() : it->second.last_line;
}

}  // namespace af::tools
