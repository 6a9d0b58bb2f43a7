#include "client/chrome_trace.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/atomic_file_writer.h"

namespace af {
namespace {

void AppendJsonString(std::string_view text, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (byte < 0x20 || byte == 0x7f) {
          out->append("\\u00");
          out->push_back(kHex[byte >> 4]);
          out->push_back(kHex[byte & 0xf]);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

// Nanoseconds as microseconds with three decimals, without going through
// floating point (epoch-sized values would lose the nanoseconds).
void AppendMicros(int64_t nanos, std::string* out) {
  if (nanos < 0) {
    out->push_back('-');
    nanos = -nanos;
  }
  const std::string frac = std::to_string(nanos % 1000);
  out->append(std::to_string(nanos / 1000)).push_back('.');
  out->append(3 - frac.size(), '0').append(frac);
}

int64_t StartNanos(const tensorflow::NodeExecStats& n) {
  return n.all_start_nanos() != 0 ? n.all_start_nanos() : n.all_start_micros() * 1000;
}
int64_t DurationNanos(const tensorflow::NodeExecStats& n) {
  const int64_t d = n.all_start_nanos() != 0 ? n.all_end_rel_nanos()
                                             : n.all_end_rel_micros() * 1000;
  return std::max<int64_t>(d, 0);
}

// What a timeline label "<node> = <op>(<args>)" says. TensorFlow's own
// transfer labels leave out the closing parenthesis; both forms parse.
struct Label {
  std::string op;
  std::vector<std::string> inputs;
  bool is_send = false, is_recv = false;
  std::string tensor_name, peer_device;  // transfers only
};

Label ParseLabel(const tensorflow::NodeExecStats& n) {
  Label label;
  std::string_view text = n.timeline_label();
  const std::string prefix = n.node_name() + " = ";
  if (text.substr(0, prefix.size()) != prefix) return label;
  text.remove_prefix(prefix.size());
  const size_t open = text.find('(');
  label.op = std::string(text.substr(0, open));
  if (open == std::string_view::npos) return label;
  std::string_view args = text.substr(open + 1);
  if (!args.empty() && args.back() == ')') args.remove_suffix(1);
  label.is_send = label.op == "_Send" || label.op == "_HostSend";
  label.is_recv = label.op == "_Recv" || label.op == "_HostRecv";
  if (label.is_send || label.is_recv) {
    const size_t at = args.rfind(" @");
    if (at == std::string_view::npos) {
      label.is_send = label.is_recv = false;
    } else {
      label.tensor_name = std::string(args.substr(0, at));
      label.peer_device = std::string(args.substr(at + 2));
    }
    return label;
  }
  while (!args.empty()) {
    const size_t comma = args.find(", ");
    label.inputs.emplace_back(args.substr(0, comma));
    if (comma == std::string_view::npos) break;
    args.remove_prefix(comma + 2);
  }
  return label;
}

struct Slice {
  int pid = 0;
  uint32_t tid = 0;
  int64_t start = 0, duration = 0;  // nanoseconds from the trace's base
};

class TraceWriter {
 public:
  explicit TraceWriter(int64_t base) : base_(base) { json_ = "{\"traceEvents\":["; }

  void Metadata(std::string_view name, int pid, const uint32_t* tid, std::string_view key,
                std::string_view value) {
    MetadataBegin(name, pid, tid, key);
    AppendJsonString(value, &json_);
    json_ += "}}";
  }
  void Metadata(std::string_view name, int pid, const uint32_t* tid, std::string_view key,
                int64_t value) {
    MetadataBegin(name, pid, tid, key);
    json_ += std::to_string(value) + "}}";
  }

  void Complete(const tensorflow::NodeExecStats& n, const Label& label, const Slice& s) {
    Begin();
    json_ += "\"name\":";
    AppendJsonString(n.node_name(), &json_);
    json_ += ",\"cat\":";
    AppendJsonString(label.op.empty() ? "unknown" : label.op, &json_);
    Place("X", s.pid, s.tid, s.start);
    json_ += ",\"dur\":";
    AppendMicros(s.duration, &json_);
    json_ += ",\"args\":{\"name\":";
    AppendJsonString(n.node_name(), &json_);
    json_ += ",\"op\":";
    AppendJsonString(label.op, &json_);
    if (label.is_send || label.is_recv) {
      json_ += ",\"tensor_name\":";
      AppendJsonString(label.tensor_name, &json_);
      json_ += label.is_send ? ",\"recv_device\":" : ",\"send_device\":";
      AppendJsonString(label.peer_device, &json_);
    } else {
      json_ += ",\"inputs\":[";
      for (size_t i = 0; i < label.inputs.size(); ++i) {
        if (i > 0) json_.push_back(',');
        AppendJsonString(label.inputs[i], &json_);
      }
      json_.push_back(']');
    }
    json_ += "}}";
  }

  // A flow arrow's end points lie strictly inside their slices (when they
  // last at all), so viewers bind them to the Send and the Recv: the middle
  // of the Send, and just before the Recv finished.
  void Flow(std::string_view tensor_name, int id, const Slice& send, const Slice& recv) {
    Begin();
    json_ += "\"name\":";
    AppendJsonString(tensor_name, &json_);
    json_ += ",\"cat\":\"transfer\",\"id\":" + std::to_string(id);
    Place("s", send.pid, send.tid, send.start + send.duration / 2);
    json_ += "}";
    Begin();
    json_ += "\"name\":";
    AppendJsonString(tensor_name, &json_);
    json_ += ",\"cat\":\"transfer\",\"id\":" + std::to_string(id);
    Place("f", recv.pid, recv.tid,
          recv.start + recv.duration - std::min<int64_t>(recv.duration / 2, 1000));
    json_ += ",\"bp\":\"e\"}";
  }

  // One counter sample at the step's start: `args` are the series.
  void Counter(std::string_view name, int pid,
               const std::vector<std::pair<std::string, uint64_t>>& args) {
    Begin();
    json_ += "\"name\":";
    AppendJsonString(name, &json_);
    json_ += ",\"cat\":\"traffic\"";
    Place("C", pid, 0, 0);
    json_ += ",\"args\":{";
    for (size_t i = 0; i < args.size(); ++i) {
      if (i > 0) json_.push_back(',');
      AppendJsonString(args[i].first, &json_);
      json_ += ":" + std::to_string(args[i].second);
    }
    json_ += "}}";
  }

  std::string Finish(const StepTraffic& traffic) {
    json_ += "],\"displayTimeUnit\":\"ns\",\"otherData\":{\"start_unix_micros\":";
    AppendMicros(base_, &json_);
    if (!traffic.empty()) {
      json_ += ",\"traffic\":[";
      for (size_t i = 0; i < traffic.size(); ++i) {
        if (i > 0) json_.push_back(',');
        json_ += "{\"src\":";
        AppendJsonString(traffic[i].src, &json_);
        json_ += ",\"dst\":";
        AppendJsonString(traffic[i].dst, &json_);
        json_ += ",\"bytes\":" + std::to_string(traffic[i].bytes) +
                 ",\"tensors\":" + std::to_string(traffic[i].tensors) + "}";
      }
      json_.push_back(']');
    }
    json_ += "}}\n";
    return std::move(json_);
  }

 private:
  void Begin() {
    if (!first_) json_.push_back(',');
    first_ = false;
    json_.push_back('{');
  }
  void MetadataBegin(std::string_view name, int pid, const uint32_t* tid, std::string_view key) {
    Begin();
    json_ += "\"name\":";
    AppendJsonString(name, &json_);
    json_ += ",\"ph\":\"M\",\"pid\":" + std::to_string(pid);
    if (tid != nullptr) json_ += ",\"tid\":" + std::to_string(*tid);
    json_ += ",\"args\":{";
    AppendJsonString(key, &json_);
    json_.push_back(':');
  }
  void Place(std::string_view phase, int pid, uint32_t tid, int64_t ts) {
    json_ += ",\"ph\":\"";
    json_ += phase;
    json_ += "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
             ",\"ts\":";
    AppendMicros(ts, &json_);
  }

  int64_t base_;
  std::string json_;
  bool first_ = true;
};

}  // namespace

std::string StepStatsToChromeTrace(const tensorflow::StepStats& step_stats,
                                   const StepTraffic& traffic) {
  int64_t base = std::numeric_limits<int64_t>::max();
  for (const auto& dev : step_stats.dev_stats())
    for (const auto& n : dev.node_stats()) base = std::min(base, StartNanos(n));
  if (base == std::numeric_limits<int64_t>::max()) base = 0;
  TraceWriter writer(base);

  // One process per device name (a device listed twice is merged).
  std::map<std::string, int> pids;
  std::map<std::pair<int, uint32_t>, std::string> threads;
  for (const auto& dev : step_stats.dev_stats()) {
    auto [it, added] = pids.emplace(dev.device(), static_cast<int>(pids.size()) + 1);
    const int pid = it->second;
    if (added) {
      writer.Metadata("process_name", pid, nullptr, "name", dev.device());
      writer.Metadata("process_sort_index", pid, nullptr, "sort_index", int64_t{pid});
    }
    for (const auto& n : dev.node_stats()) {
      const uint32_t tid = n.thread_id();
      if (threads.count({pid, tid}) != 0) continue;
      auto name = dev.thread_names().find(tid);
      threads[{pid, tid}] =
          name != dev.thread_names().end() ? name->second : "thread " + std::to_string(tid);
    }
  }
  for (const auto& [key, name] : threads) {
    writer.Metadata("thread_name", key.first, &key.second, "name", name);
  }

  // Transfers wait for their partner by (tensor, sender, receiver), each
  // queue in start order.
  using TransferKey = std::tuple<std::string, std::string, std::string>;
  struct Transfer {
    Slice slice;
    std::string tensor_name;
  };
  std::map<TransferKey, std::deque<Transfer>> sends, recvs;
  for (const auto& dev : step_stats.dev_stats()) {
    const int pid = pids.at(dev.device());
    for (const auto& n : dev.node_stats()) {
      const Label label = ParseLabel(n);
      const Slice slice{pid, n.thread_id(), StartNanos(n) - base, DurationNanos(n)};
      writer.Complete(n, label, slice);
      if (label.is_send) {
        sends[{label.tensor_name, dev.device(), label.peer_device}].push_back(
            {slice, label.tensor_name});
      } else if (label.is_recv) {
        recvs[{label.tensor_name, label.peer_device, dev.device()}].push_back(
            {slice, label.tensor_name});
      }
    }
  }
  int next_flow = 1;
  for (auto& [key, queue] : sends) {
    auto match = recvs.find(key);
    if (match == recvs.end()) continue;
    auto by_start = [](const Transfer& a, const Transfer& b) {
      return a.slice.start < b.slice.start;
    };
    std::stable_sort(queue.begin(), queue.end(), by_start);
    std::stable_sort(match->second.begin(), match->second.end(), by_start);
    const size_t pairs = std::min(queue.size(), match->second.size());
    for (size_t i = 0; i < pairs; ++i) {
      writer.Flow(queue[i].tensor_name, next_flow++, queue[i].slice, match->second[i].slice);
    }
  }
  if (!traffic.empty()) {
    const int pid = static_cast<int>(pids.size()) + 1;
    writer.Metadata("process_name", pid, nullptr, "name", "traffic between tasks");
    writer.Metadata("process_sort_index", pid, nullptr, "sort_index", int64_t{pid});
    std::map<std::string, std::vector<std::pair<std::string, uint64_t>>> into;
    for (const TaskTraffic& entry : traffic) into[entry.dst].emplace_back(entry.src, entry.bytes);
    for (const auto& [dst, series] : into) writer.Counter("bytes into " + dst, pid, series);
  }
  return writer.Finish(traffic);
}

Status WriteChromeTrace(const tensorflow::StepStats& step_stats, const std::string& path,
                        const StepTraffic& traffic) {
  const std::string json = StepStatsToChromeTrace(step_stats, traffic);
  std::unique_ptr<AtomicFileWriter> file;
  Status s = AtomicFileWriter::Create(path, &file);
  if (s.ok()) s = file->Append(json.data(), json.size());
  if (s.ok()) s = file->Commit();
  if (!s.ok()) return s.WithContext("writing trace file '" + path + "'");
  return Status::OK();
}

}  // namespace af
