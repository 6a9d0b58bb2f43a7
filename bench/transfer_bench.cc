// bench_transfer: tensor transport between two processes over loopback.
// This process feeds a tensor whose consumer runs in an `actorflow server`
// child (a Send/Recv across processes: chunked with a credit window above
// 1 MiB), for 4 KiB, 64 KiB, 1 MiB, 64 MiB and 1 GiB; in the same run a raw
// TCP socket pair on loopback does the same exchange — the bytes (1 MiB
// writes into a reused destination buffer) and an 8-byte answer, between
// two processes that live across the repeats — and the ratio is printed.
// Then the round-trip latency of a scalar step through the remote worker,
// of a step whose 64 small results come back from it (batched into one
// message; ACTORFLOW_PUSH_BATCHING=off on the command sends one each),
// and of one whose master runs in the server (SessionOptions::target).
//
// With --secret_file the cluster runs with the secret (mutual TLS on CAF),
// and the feeds are measured twice in the same run: with the data plane in
// plaintext (loopback's default) and encrypted (AES-128-OCB records,
// ACTORFLOW_DATA_PLANE_ENCRYPTION=always), with their ratio.
//
//   bench_transfer [--sizes 4096,65536,1048576,67108864,1073741824] [--runs 2000]
//                  [--secret_file PATH]
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>
#include <thread>

#include "bench/bench_servers.h"
#include "bench/bench_util.h"
#include "client/session.h"
#include "core/types.h"

namespace af::bench {
namespace {

using Clock = std::chrono::steady_clock;
const std::string kRemote = "/job:worker/replica:0/task:1/device:CPU:0";
const std::string kLocal = "/job:localhost/replica:0/task:0/device:CPU:0";

// Seconds for the raw-TCP version of a feed step: `bytes` written through
// a loopback connection (1 MiB writes) to another process that reads them
// into one reused buffer and answers with 8 bytes, as the remote Shape's
// answer comes back (the mean of `repeats`, as for the steps; both ends
// live across the repeats).
double RawTcpSeconds(size_t bytes, int repeats) {
  int sender = -1, receiver = -1;
  LoopbackTcpPair(&sender, &receiver);
  const int warm_up = 3;
  // The answering end is another process, as the server is.
  const pid_t child = fork();
  if (child == 0) {
    close(sender);
    std::vector<char> destination(bytes);
    char answer[8] = {};
    for (int r = 0; r < repeats + warm_up; ++r) {
      for (size_t off = 0; off < bytes;) {
        const ssize_t got =
            read(receiver, destination.data() + off, std::min<size_t>(1 << 20, bytes - off));
        if (got <= 0) _exit(0);
        off += static_cast<size_t>(got);
      }
      if (write(receiver, answer, sizeof answer) != sizeof answer) _exit(0);
    }
    _exit(0);
  }
  close(receiver);
  std::vector<char> source(bytes, 7);
  std::vector<double> times;
  for (int r = 0; r < repeats + warm_up; ++r) {
    const auto t0 = Clock::now();
    for (size_t off = 0; off < bytes;) {
      const ssize_t w = write(sender, source.data() + off, std::min<size_t>(1 << 20, bytes - off));
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    char answer[8];
    for (size_t off = 0; off < sizeof answer;) {
      const ssize_t got = read(sender, answer + off, sizeof answer - off);
      if (got <= 0) break;
      off += static_cast<size_t>(got);
    }
    if (r >= warm_up) times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  close(sender);
  waitpid(child, nullptr, 0);
  // The mean, as TimePerCall gives for the steps.
  double total = 0;
  for (double t : times) total += t;
  return total / static_cast<double>(times.size());
}

// x (here) -> Shape(x) (there) -> back: the whole tensor crosses once, a
// few bytes come back.
tensorflow::GraphDef TransferGraph() {
  tensorflow::GraphDef g;
  tensorflow::NodeDef* x = AddNode(&g, "x", "Placeholder", {});
  SetTypeAttr(x, "dtype", DT_UINT8);
  x->set_device(kLocal);
  tensorflow::NodeDef* shape = AddNode(&g, "shape", "Shape", {"x"});
  SetTypeAttr(shape, "T", DT_UINT8);
  SetTypeAttr(shape, "out_type", DT_INT64);
  shape->set_device(kRemote);
  tensorflow::NodeDef* s = AddNode(&g, "scalar_in", "Placeholder", {});
  SetTypeAttr(s, "dtype", DT_FLOAT);
  s->set_device(kLocal);
  tensorflow::NodeDef* there = AddNode(&g, "scalar_there", "Identity", {"scalar_in"});
  SetTypeAttr(there, "T", DT_FLOAT);
  there->set_device(kRemote);
  tensorflow::NodeDef* back = AddNode(&g, "scalar_back", "Identity", {"scalar_there"});
  SetTypeAttr(back, "T", DT_FLOAT);
  back->set_device(kLocal);
  return g;
}

// A burst of small tensors: x crosses to the server, 64 products come
// back, summed here (the case the push outboxes batch).
constexpr int kBurst = 64;
tensorflow::GraphDef BurstGraph() {
  tensorflow::GraphDef g;
  tensorflow::NodeDef* x = AddNode(&g, "burst_x", "Placeholder", {});
  SetTypeAttr(x, "dtype", DT_FLOAT);
  x->set_device(kLocal);
  std::vector<std::string> back;
  for (int i = 0; i < kBurst; ++i) {
    const std::string name = "burst_" + std::to_string(i);
    tensorflow::NodeDef* there = AddNode(&g, name, "Mul", {"burst_x", "burst_x"});
    SetTypeAttr(there, "T", DT_FLOAT);
    there->set_device(kRemote);
    back.push_back(name);
  }
  tensorflow::NodeDef* sum = AddNode(&g, "burst_sum", "AddN", back);
  SetTypeAttr(sum, "T", DT_FLOAT);
  (*sum->mutable_attr())["N"].set_i(kBurst);
  sum->set_device(kLocal);
  return g;
}

// A scalar fed and fetched through a server whose master runs the step.
tensorflow::GraphDef ScalarGraph() {
  tensorflow::GraphDef g;
  tensorflow::NodeDef* s = AddNode(&g, "scalar_in", "Placeholder", {});
  SetTypeAttr(s, "dtype", DT_FLOAT);
  tensorflow::NodeDef* there = AddNode(&g, "scalar_there", "Identity", {"scalar_in"});
  SetTypeAttr(there, "T", DT_FLOAT);
  return g;
}

// Round trips of one small step, after a warm-up: p50, p90, p99.
void ReportStepLatency(Session* session, const std::vector<std::pair<std::string, Tensor>>& feeds,
                       const std::string& fetch, const std::string& name, int runs) {
  std::vector<Tensor> out;
  for (int i = 0; i < 200; ++i) CheckOk(session->Run(feeds, {fetch}, {}, &out), "warm up");
  std::vector<double> micros(runs);
  for (int i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    CheckOk(session->Run(feeds, {fetch}, {}, &out), "run");
    micros[i] = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  }
  std::sort(micros.begin(), micros.end());
  for (int p : {50, 90, 99}) {
    PrintResult("transfer", name, "\"runs\":" + std::to_string(runs),
                "p" + std::to_string(p) + "_us", micros[static_cast<size_t>(runs) * p / 100], "us");
  }
}

// Timed repeats of a transfer of `bytes`: a few for the large sizes.
int RepeatsFor(size_t bytes) {
  return bytes >= (size_t{1} << 30) ? 3 : bytes >= (64u << 20) ? 8 : 0;
}

// Seconds per step that feeds `bytes` to the server's Shape node.
double FeedSeconds(Session* session, size_t bytes) {
  Tensor x(DT_UINT8, TensorShape{static_cast<int64_t>(bytes)});
  std::memset(x.raw_data(), 7, bytes);
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", x}};
  std::vector<Tensor> out;
  auto run = [&] { CheckOk(session->Run(feeds, {"shape"}, {}, &out), "run"); };
  const int repeats = RepeatsFor(bytes);
  return repeats > 0 ? TimePerCall(run, 0.0, repeats, 1) : TimePerCall(run);
}

// Feeds of each size to a fresh server started with `server_args`: GB/s
// per size, printed with `suffix` on the case names.
std::map<size_t, double> MeasureFeeds(const std::vector<std::string>& server_args,
                                      const std::string& secret_file,
                                      const std::vector<size_t>& sizes, const std::string& suffix) {
  BenchServer server;
  server.Start(server_args);
  SessionOptions options;
  options.remote_workers = {server.address()};
  options.default_timeout_ms = 600000;
  options.cluster_secret_file = secret_file;
  std::unique_ptr<Session> session;
  CheckOk(Session::Create(options, &session), "create session");
  CheckOk(session->Extend(TransferGraph()), "extend");
  std::map<size_t, double> result;
  for (size_t bytes : sizes) {
    result[bytes] = static_cast<double>(bytes) / FeedSeconds(session.get(), bytes) / 1e9;
    PrintResult("transfer", "feed_to_remote_" + std::to_string(bytes) + suffix,
                "\"bytes\":" + std::to_string(bytes), "gb_per_s", result[bytes], "GB/s");
  }
  CheckOk(session->Close(), "close");
  return result;
}

std::vector<size_t> ParseSizes(const std::string& text) {
  std::vector<size_t> sizes;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) sizes.push_back(std::stoull(item));
  return sizes;
}

}  // namespace
}  // namespace af::bench

int main(int argc, char** argv) {
  using namespace af;
  using namespace af::bench;
  std::vector<size_t> sizes = {4096, 64 << 10, 1 << 20, 64 << 20, size_t{1} << 30};
  int runs = 2000;
  std::string secret_file;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--sizes") sizes = ParseSizes(argv[i + 1]);
    else if (flag == "--runs") runs = std::max(10, std::atoi(argv[i + 1]));
    else if (flag == "--secret_file") secret_file = argv[i + 1];
  }
  std::vector<std::string> server_args = {"--port", "0", "--task", "1", "--threads", "1"};
  if (!secret_file.empty()) {
    server_args.insert(server_args.end(), {"--secret_file", secret_file});
    const std::map<size_t, double> plain = MeasureFeeds(server_args, secret_file, sizes, "");
    // The encrypted run: this process's connector asks for it, and the
    // server (started after the change) agrees.
    setenv("ACTORFLOW_DATA_PLANE_ENCRYPTION", "always", 1);
    const std::map<size_t, double> sealed =
        MeasureFeeds(server_args, secret_file, sizes, "_encrypted");
    unsetenv("ACTORFLOW_DATA_PLANE_ENCRYPTION");
    for (const auto& [bytes, gbps] : sealed) {
      PrintResult("transfer", "encrypted_over_plaintext_" + std::to_string(bytes),
                  "\"bytes\":" + std::to_string(bytes), "ratio", gbps / plain.at(bytes), "x");
    }
    return 0;
  }
  BenchServer server;
  server.Start(server_args);
  SessionOptions options;
  options.remote_workers = {server.address()};
  options.default_timeout_ms = 600000;
  std::unique_ptr<Session> session;
  CheckOk(Session::Create(options, &session), "create session");
  CheckOk(session->Extend(TransferGraph()), "extend");
  for (size_t bytes : sizes) {
    const double seconds = FeedSeconds(session.get(), bytes);
    const double tcp = RawTcpSeconds(bytes, RepeatsFor(bytes) > 0 ? RepeatsFor(bytes) : 200);
    const double gbps = static_cast<double>(bytes) / seconds / 1e9;
    const double tcp_gbps = static_cast<double>(bytes) / tcp / 1e9;
    const std::string extra = "\"bytes\":" + std::to_string(bytes) +
                              ",\"peer\":\"raw_tcp_loopback\",\"peer_gb_per_s\":" +
                              std::to_string(tcp_gbps) + ",\"ratio\":" + std::to_string(gbps / tcp_gbps);
    PrintResult("transfer", "feed_to_remote_" + std::to_string(bytes), extra, "gb_per_s", gbps,
                "GB/s");
  }
  const std::vector<std::pair<std::string, Tensor>> scalar = {{"scalar_in", Tensor::Scalar<float>(1)}};
  ReportStepLatency(session.get(), scalar, "scalar_back", "remote_scalar_step", runs);
  CheckOk(session->Extend(BurstGraph()), "extend burst");
  ReportStepLatency(session.get(), {{"burst_x", Tensor::Scalar<float>(1)}}, "burst_sum",
                    "remote_burst_of_64_scalars_step", runs);
  // The same step with the master in the server (af://): the client sends
  // the feed and gets the fetch; the server's master runs it there.
  SessionOptions targeted;
  targeted.target = "af://" + server.address();
  std::unique_ptr<Session> remote_master;
  CheckOk(Session::Create(targeted, &remote_master), "create af:// session");
  CheckOk(remote_master->Extend(ScalarGraph()), "extend af://");
  ReportStepLatency(remote_master.get(), scalar, "scalar_there", "af_target_scalar_step", runs);
  CheckOk(remote_master->Close(), "close af://");
  CheckOk(session->Close(), "close");
  return 0;
}
