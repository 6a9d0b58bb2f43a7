#include "bench/bench_util.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "core/allocator.h"
#include "core/logging.h"
#include "core/types.h"

namespace af::bench {

double TimePerCall(const std::function<void()>& fn, double min_seconds, int min_iters,
                   int warmup) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < warmup; ++i) fn();
  // Calibrate: how many calls fill a fifth of the budget.
  int64_t batch = 1;
  for (;;) {
    const auto t0 = Clock::now();
    for (int64_t i = 0; i < batch; ++i) fn();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (s >= min_seconds / 5 || batch >= (int64_t{1} << 30)) break;
    batch = s <= 0 ? batch * 10 : std::max(batch + 1, static_cast<int64_t>(batch * (min_seconds / 5) / s));
  }
  batch = std::max<int64_t>(batch, min_iters);
  std::vector<double> per_call;
  for (int b = 0; b < 5; ++b) {
    const auto t0 = Clock::now();
    for (int64_t i = 0; i < batch; ++i) fn();
    per_call.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / batch);
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

void PrintResult(const std::string& bench, const std::string& case_name,
                 const std::string& extra_json_fields, const std::string& metric,
                 double value, const std::string& unit) {
  std::printf("{\"bench\":\"%s\",\"case\":\"%s\",%s%s\"metric\":\"%s\",\"value\":%.6g,"
              "\"unit\":\"%s\"}\n",
              bench.c_str(), case_name.c_str(), extra_json_fields.c_str(),
              extra_json_fields.empty() ? "" : ",", metric.c_str(), value, unit.c_str());
  std::fflush(stdout);
}

int RunsFlag(int argc, char** argv, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--runs") return std::max(10, std::atoi(argv[i + 1]));
  }
  return fallback;
}

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * (v.size() - 1) + 0.5))];
}

void LoopbackTcpPair(int* client, int* server) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  listen(listener, 1);
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  *client = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(*client, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    CheckOk(errors::Unavailable("connect to the loopback listener"), "raw TCP pair");
  }
  *server = accept(listener, nullptr, nullptr);
  close(listener);
  const int one = 1;
  setsockopt(*client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt(*server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

PeakTensorMemory::PeakTensorMemory() : before_(GetCpuAllocator()->GetStats().bytes_in_use) {
  if (auto* counting = dynamic_cast<CountingAllocatorBase*>(GetCpuAllocator())) counting->ResetPeak();
}

double PeakTensorMemory::MiB() const {
  return static_cast<double>(GetCpuAllocator()->GetStats().peak_bytes_in_use - before_) / (1 << 20);
}

void CheckOk(const Status& s, const std::string& what) {
  if (s.ok()) return;
  AF_LOG(ERROR) << "benchmark setup failed (" << what << "): " << s.ToString();
  std::exit(1);
}

tensorflow::NodeDef* AddNode(tensorflow::GraphDef* g, const std::string& name,
                             const std::string& op, const std::vector<std::string>& inputs) {
  tensorflow::NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (const auto& in : inputs) n->add_input(in);
  return n;
}

void SetTypeAttr(tensorflow::NodeDef* n, const std::string& attr, int dtype) {
  (*n->mutable_attr())[attr].set_type(static_cast<tensorflow::DataType>(dtype));
}

void SetIntAttr(tensorflow::NodeDef* n, const std::string& attr, int64_t v) {
  (*n->mutable_attr())[attr].set_i(v);
}

void SetStringAttr(tensorflow::NodeDef* n, const std::string& attr, const std::string& v) {
  (*n->mutable_attr())[attr].set_s(v);
}

void SetBoolAttr(tensorflow::NodeDef* n, const std::string& attr, bool v) {
  (*n->mutable_attr())[attr].set_b(v);
}

tensorflow::NodeDef* AddScalarConst(tensorflow::GraphDef* g, const std::string& name,
                                    int32_t value, const std::string& control_input) {
  tensorflow::NodeDef* n =
      AddNode(g, name, "Const", control_input.empty() ? std::vector<std::string>{}
                                                      : std::vector<std::string>{"^" + control_input});
  SetTypeAttr(n, "dtype", DT_INT32);
  tensorflow::TensorProto* t = (*n->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(tensorflow::DT_INT32);
  t->mutable_tensor_shape();
  t->add_int_val(value);
  return n;
}

}  // namespace af::bench
