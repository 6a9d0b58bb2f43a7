#include "core/file_access_policy.h"

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>

namespace af {
namespace {

namespace fs = std::filesystem;

std::mutex g_mu;
// Shared and replaced whole, so a check never holds the lock while it
// touches the file system.
std::shared_ptr<const std::vector<fs::path>> g_allowed;

std::string Joined(const std::vector<fs::path>& dirs) {
  std::string out;
  for (const fs::path& dir : dirs) out += (out.empty() ? "" : ":") + dir.string();
  return out;
}

bool Inside(const fs::path& path, const fs::path& dir) {
  const fs::path relative = path.lexically_relative(dir);
  return !relative.empty() && *relative.begin() != "..";
}

}  // namespace

Status SetAllowedDirectories(const std::vector<std::string>& directories) {
  auto resolved = std::make_shared<std::vector<fs::path>>();
  for (const std::string& dir : directories) {
    std::error_code ec;
    const fs::path canonical = fs::canonical(dir, ec);
    if (ec || !fs::is_directory(canonical, ec)) {
      return errors::InvalidArgument("allowed directory '", dir,
                                     "' does not exist or is not a directory");
    }
    resolved->push_back(canonical);
  }
  std::lock_guard<std::mutex> lock(g_mu);
  if (resolved->empty()) {
    g_allowed.reset();
  } else {
    g_allowed = std::move(resolved);
  }
  return Status::OK();
}

std::vector<std::string> AllowedDirectories() {
  std::shared_ptr<const std::vector<fs::path>> allowed;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    allowed = g_allowed;
  }
  std::vector<std::string> out;
  if (allowed) {
    for (const fs::path& dir : *allowed) out.push_back(dir.string());
  }
  return out;
}

Status CheckFileAccess(const std::string& path) {
  std::shared_ptr<const std::vector<fs::path>> allowed;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    allowed = g_allowed;
  }
  if (!allowed) return Status::OK();
  std::error_code ec;
  // weakly_canonical resolves the symlinks of the part that exists (a
  // link out of the tree lands outside) and removes `.` and `..`.
  const fs::path resolved = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (!ec) {
    for (const fs::path& dir : *allowed) {
      if (Inside(resolved, dir)) return Status::OK();
    }
  }
  return errors::PermissionDenied("file '", path, "' ",
                                  ec ? "cannot be resolved (" + ec.message() + ")"
                                     : "resolves to '" + resolved.string() + "'",
                                  ", outside the directories this server lets graphs use "
                                  "(--allowed_dirs ",
                                  Joined(*allowed), ")");
}

std::vector<std::string> DefaultServerDirectories() {
  std::vector<std::string> dirs;
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (!ec) dirs.push_back(cwd.string());
  const fs::path tmp = fs::temp_directory_path(ec);
  if (!ec) dirs.push_back(tmp.string());
  return dirs;
}

}  // namespace af
