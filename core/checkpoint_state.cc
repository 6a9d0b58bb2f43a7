#include "core/checkpoint_state.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cerrno>
#include <sstream>

#include "core/atomic_file_writer.h"
#include "core/checkpoint_format.h"
#include "core/checkpoint_reader.h"
#include "core/checkpoint_shards.h"

namespace af {

namespace {

std::string StatePath(const std::string& dir) {
  return dir + "/" + std::string(checkpoint::kStateFileName);
}

std::string JoinUnlessAbsolute(const std::string& dir, const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  return dir + "/" + path;
}

// Prefixes inside `dir` are written relative to it, so that the directory
// can be moved as a whole.
std::string RelativeToDir(const std::string& dir, const std::string& prefix) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  if (prefix.size() > d.size() + 1 && prefix.compare(0, d.size(), d) == 0 &&
      prefix[d.size()] == '/' && prefix.find('/', d.size() + 1) == std::string::npos)
    return prefix.substr(d.size() + 1);
  return prefix;
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::string FormatDouble(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest round trip
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

bool ParseDouble(const std::string& text, double* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string QuoteTextFormat(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '"': out += "\\\""; break;
      case '\'': out += "\\'"; break;
      case '\\': out += "\\\\"; break;
      default: {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x7f) {
          // Protobuf's CEscape: three octal digits for any other byte.
          out += '\\';
          out += static_cast<char>('0' + (u >> 6));
          out += static_cast<char>('0' + ((u >> 3) & 7));
          out += static_cast<char>('0' + (u & 7));
        } else {
          out += c;
        }
      }
    }
  }
  return out + "\"";
}

bool UnquoteTextFormat(std::string_view text, std::string* out) {
  if (text.size() < 2 || (text.front() != '"' && text.front() != '\'') ||
      text.back() != text.front())
    return false;
  const char quote = text.front();
  text = text.substr(1, text.size() - 2);
  out->clear();
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == quote) return false;
    if (c != '\\') {
      *out += c;
      continue;
    }
    if (++i >= text.size()) return false;
    const char e = text[i];
    switch (e) {
      case 'n': *out += '\n'; break;
      case 'r': *out += '\r'; break;
      case 't': *out += '\t'; break;
      case 'a': *out += '\a'; break;
      case 'b': *out += '\b'; break;
      case 'f': *out += '\f'; break;
      case 'v': *out += '\v'; break;
      case '?': case '"': case '\\': case '\'': *out += e; break;
      case 'x': case 'X': {
        int value = 0, digits = 0;
        while (digits < 2 && i + 1 < text.size() && HexDigit(text[i + 1]) >= 0) {
          value = value * 16 + HexDigit(text[++i]);
          ++digits;
        }
        if (digits == 0) return false;
        *out += static_cast<char>(value);
        break;
      }
      default: {
        if (e < '0' || e > '7') return false;
        int value = e - '0', digits = 1;
        while (digits < 3 && i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '7') {
          value = value * 8 + (text[++i] - '0');
          ++digits;
        }
        if (value > 0xff) return false;
        *out += static_cast<char>(value);
      }
    }
  }
  return true;
}

Status ReadCheckpointState(const std::string& dir, CheckpointState* state) {
  const std::string path = StatePath(dir);
  std::string text;
  AF_RETURN_IF_ERROR(ReadSmallFile(path, &text));
  *state = CheckpointState();
  std::istringstream lines(text);
  std::string line;
  int line_no = 0;
  while (std::getline(lines, line)) {
    ++line_no;
    line = Trim(line);
    if (line.empty() || line[0] == '#') continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos)
      return errors::DataLoss(path, ":", line_no, ": expected `field: value`");
    const std::string field = Trim(line.substr(0, colon));
    const std::string rest = Trim(line.substr(colon + 1));
    if (field == "all_model_checkpoint_timestamps" || field == "last_preserved_timestamp") {
      double t;
      if (!ParseDouble(rest, &t))
        return errors::DataLoss(path, ":", line_no, ": expected a number for ", field);
      if (field == "last_preserved_timestamp") {
        state->last_preserved_timestamp = t;
      } else {
        state->all_timestamps.push_back(t);
      }
      continue;
    }
    std::string value;
    if (!UnquoteTextFormat(rest, &value))
      return errors::DataLoss(path, ":", line_no, ": expected `", field, ": \"value\"`");
    if (field == "model_checkpoint_path") {
      state->latest = value;
    } else if (field == "all_model_checkpoint_paths") {
      state->all.push_back(value);
    } else {
      return errors::DataLoss(path, ":", line_no, ": unknown field '", field, "'");
    }
  }
  return Status::OK();
}

Status WriteCheckpointState(const std::string& dir, const CheckpointState& state) {
  std::string text = "model_checkpoint_path: " + QuoteTextFormat(state.latest) + "\n";
  for (const std::string& p : state.all)
    text += "all_model_checkpoint_paths: " + QuoteTextFormat(p) + "\n";
  for (double t : state.all_timestamps)
    text += "all_model_checkpoint_timestamps: " + FormatDouble(t) + "\n";
  if (state.last_preserved_timestamp != 0)
    text += "last_preserved_timestamp: " + FormatDouble(state.last_preserved_timestamp) + "\n";
  return WriteFileAtomically(StatePath(dir), text);
}

Status LatestCheckpoint(const std::string& dir, std::string* prefix) {
  CheckpointState state;
  Status s = ReadCheckpointState(dir, &state);
  if (errors::IsNotFound(s))
    return errors::NotFound("no checkpoint in ", dir, " (no '",
                            std::string(checkpoint::kStateFileName), "' file)");
  AF_RETURN_IF_ERROR(s);
  if (state.latest.empty())
    return errors::NotFound(StatePath(dir), " names no latest checkpoint");
  *prefix = JoinUnlessAbsolute(dir, state.latest);
  return Status::OK();
}

Status DeleteCheckpointFiles(const std::string& prefix) {
  // A sharded checkpoint's shards go with its index (core/checkpoint_shards.h).
  std::vector<std::string> files;
  if (!CheckpointFiles(prefix, &files).ok()) files = {checkpoint::DataFilePath(prefix)};
  for (const std::string& file : files) {
    if (::unlink(file.c_str()) != 0) return IoError("cannot delete checkpoint " + file, errno);
  }
  return Status::OK();
}

Status RecordCheckpoint(const std::string& dir, const std::string& prefix, int keep_last,
                        std::vector<std::string>* deleted) {
  CheckpointState state;
  Status s = ReadCheckpointState(dir, &state);
  if (!s.ok() && !errors::IsNotFound(s)) return s;
  const std::string entry = RelativeToDir(dir, prefix);
  // Timestamps are kept only while there is one per path, as TensorFlow
  // writes them.
  const bool timed = state.all_timestamps.size() == state.all.size();
  if (!timed) state.all_timestamps.clear();
  for (size_t i = state.all.size(); i-- > 0;) {
    if (state.all[i] != entry) continue;
    state.all.erase(state.all.begin() + static_cast<std::ptrdiff_t>(i));
    if (timed) state.all_timestamps.erase(state.all_timestamps.begin() + static_cast<std::ptrdiff_t>(i));
  }
  state.all.push_back(entry);
  if (timed) {
    const auto now = std::chrono::duration<double>(
        std::chrono::system_clock::now().time_since_epoch());
    state.all_timestamps.push_back(now.count());
  }
  state.latest = entry;
  std::vector<std::string> doomed;
  if (keep_last > 0 && state.all.size() > static_cast<size_t>(keep_last)) {
    const size_t drop = state.all.size() - static_cast<size_t>(keep_last);
    doomed.assign(state.all.begin(), state.all.begin() + static_cast<std::ptrdiff_t>(drop));
    state.all.erase(state.all.begin(), state.all.begin() + static_cast<std::ptrdiff_t>(drop));
    if (timed)
      state.all_timestamps.erase(state.all_timestamps.begin(),
                                 state.all_timestamps.begin() + static_cast<std::ptrdiff_t>(drop));
  }
  AF_RETURN_IF_ERROR(WriteCheckpointState(dir, state));
  for (const std::string& old : doomed) {
    const std::string full = JoinUnlessAbsolute(dir, old);
    Status d = DeleteCheckpointFiles(full);
    // Already gone is what we wanted.
    if (!d.ok() && !errors::IsNotFound(d)) return d;
    if (deleted != nullptr) deleted->push_back(full);
  }
  return Status::OK();
}

Status ResolveCheckpointPath(const std::string& dir_or_prefix, std::string* file) {
  struct stat st;
  if (::stat(dir_or_prefix.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::string prefix;
    AF_RETURN_IF_ERROR(LatestCheckpoint(dir_or_prefix, &prefix));
    return ResolveCheckpointFile(prefix, file);
  }
  return ResolveCheckpointFile(dir_or_prefix, file);
}

}  // namespace af
