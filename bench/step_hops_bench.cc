// bench_step_hops: where a remote step's time goes (issue 25). One run on
// one machine prints, side by side:
//  - the floor: a raw TCP request/response on loopback between two threads
//    of this process (a 4-byte request, an 8-byte answer), p50 and p90;
//  - a scalar step through a remote `actorflow server` worker (fed here,
//    Identity there, Identity back here), by the direct step path and, in
//    the same run, with ACTORFLOW_DIRECT_PATH=off (CAF's messages all the
//    way, as before the path existed): p50, p90, p99;
//  - the direct path's hops, from marks both processes leave on one clock
//    (core/hop_trace.h): the median time of each hop over the timed steps.
// The server and this process share the host's cores (2 on the CI
// machine): a wake-up that waits for a core shows up as hop time.
//
//   bench_step_hops [--runs 2000]
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

#include "bench/bench_servers.h"
#include "bench/bench_util.h"
#include "client/session.h"
#include "core/hop_trace.h"

namespace af::bench {
namespace {

using Clock = std::chrono::steady_clock;
const std::string kRemote = "/job:worker/replica:0/task:1/device:CPU:0";
const std::string kLocal = "/job:localhost/replica:0/task:0/device:CPU:0";

void ReadFully(int fd, char* data, size_t n) {
  for (size_t off = 0; off < n;) {
    const ssize_t got = read(fd, data + off, n - off);
    if (got <= 0) return;
    off += static_cast<size_t>(got);
  }
}

// Round trips of a 4-byte request answered with 8 bytes, in microseconds.
std::vector<double> RawTcpRoundTrips(int runs) {
  int client = -1, server = -1;
  LoopbackTcpPair(&client, &server);
  const int total = runs + 200;
  std::thread echo([&] {
    char request[4], answer[8] = {};
    for (int i = 0; i < total; ++i) {
      ReadFully(server, request, sizeof request);
      if (write(server, answer, sizeof answer) != sizeof answer) return;
    }
  });
  std::vector<double> micros;
  char request[4] = {}, answer[8];
  for (int i = 0; i < total; ++i) {
    const auto t0 = Clock::now();
    if (write(client, request, sizeof request) != sizeof request) break;
    ReadFully(client, answer, sizeof answer);
    if (i >= 200)
      micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  echo.join();
  close(client);
  close(server);
  return micros;
}

tensorflow::GraphDef ScalarGraph() {
  tensorflow::GraphDef g;
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

void PrintQuantiles(const std::string& name, std::vector<double> micros,
                    const std::string& extra = "") {
  for (int p : {50, 90, 99}) {
    PrintResult("step_hops", name,
                extra + (extra.empty() ? "" : ",") + "\"runs\":" + std::to_string(micros.size()),
                "p" + std::to_string(p) + "_us", Quantile(micros, p / 100.0), "us");
  }
}

// Scalar steps through a fresh server; per-step microseconds. With
// `direct_off`, both ends run with ACTORFLOW_DIRECT_PATH=off.
std::vector<double> RemoteScalarSteps(BenchServer* server, bool direct_off, int runs) {
  if (direct_off) setenv("ACTORFLOW_DIRECT_PATH", "off", 1);
  server->Start({"--port", "0", "--task", "1", "--threads", "1"});
  SessionOptions options;
  options.remote_workers = {server->address()};
  options.default_timeout_ms = 60000;
  std::unique_ptr<Session> session;
  CheckOk(Session::Create(options, &session), "create session");
  if (direct_off) unsetenv("ACTORFLOW_DIRECT_PATH");
  CheckOk(session->Extend(ScalarGraph()), "extend");
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"scalar_in", Tensor::Scalar<float>(1)}};
  std::vector<Tensor> out;
  for (int i = 0; i < 300; ++i) CheckOk(session->Run(feeds, {"scalar_back"}, {}, &out), "warm up");
  std::vector<double> micros(runs);
  for (int i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    CheckOk(session->Run(feeds, {"scalar_back"}, {}, &out), "run");
    micros[i] = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  }
  CheckOk(session->Close(), "close");
  return micros;
}

// The hops of the timed direct steps: (from, from this process?) -> (to, ...).
struct HopSpan {
  const char* name;
  Hop from;
  bool from_client;
  Hop to;
  bool to_client;
};

const HopSpan kSpans[] = {
    {"client_prepares_the_step_and_starts_its_partition", Hop::kRunStart, true,
     Hop::kPartitionsStarted, true},
    {"client_writes_the_rungraph_and_feed_in_one_writev", Hop::kPartitionsStarted, true,
     Hop::kRequestWritten, true},
    {"rungraph_reaches_the_server_reader", Hop::kRequestWritten, true, Hop::kRequestRead, false},
    {"server_decodes_and_starts_the_partition", Hop::kRequestRead, false, Hop::kPartitionsStarted,
     false},
    {"feed_reaches_the_server_reader", Hop::kTensorWritten, true, Hop::kTensorRead, false},
    {"server_runs_identity_and_writes_result_and_reply_in_one_writev", Hop::kTensorRead, false,
     Hop::kReplyWritten, false},
    {"result_and_reply_reach_the_client_reader", Hop::kReplyWritten, false, Hop::kReplyRead,
     true},
    {"client_thread_wakes_and_returns", Hop::kReplyRead, true, Hop::kRunEnd, true},
    {"whole_step_as_marked", Hop::kRunStart, true, Hop::kRunEnd, true},
};

using StepMarks = std::map<int64_t, std::map<std::pair<Hop, bool>, uint64_t>>;

// The first mark of each (hop, side) per step.
void Collect(const std::vector<HopMark>& marks, bool client, StepMarks* out) {
  for (const HopMark& m : marks) {
    auto& slot = (*out)[m.step_id];
    slot.emplace(std::make_pair(m.hop, client), m.nanos);
  }
}

}  // namespace
}  // namespace af::bench

int main(int argc, char** argv) {
  using namespace af;
  using namespace af::bench;
  const int runs = RunsFlag(argc, argv, 2000);
  // The marks are kept only when the variable is set at process start:
  // run again with it.
  if (!HopTrace::enabled()) {
    setenv("ACTORFLOW_HOP_TRACE", "-", 1);
    execv("/proc/self/exe", argv);
    std::fprintf(stderr, "bench_step_hops: cannot re-run itself with ACTORFLOW_HOP_TRACE\n");
    return 1;
  }
  const std::vector<double> tcp = RawTcpRoundTrips(runs);
  PrintQuantiles("raw_tcp_loopback_round_trip", tcp);

  // The CAF path first (no marks), then the direct path with marks.
  unsetenv("ACTORFLOW_HOP_TRACE");
  {
    BenchServer server;
    const std::vector<double> caf = RemoteScalarSteps(&server, /*direct_off=*/true, runs);
    PrintQuantiles("remote_scalar_step_through_caf", caf);
  }
  const std::string server_marks = "/tmp/af_step_hops_server." + std::to_string(getpid());
  const size_t marks_before = HopTrace::Marks().size();
  std::vector<double> direct;
  {
    setenv("ACTORFLOW_HOP_TRACE", server_marks.c_str(), 1);
    BenchServer server;
    direct = RemoteScalarSteps(&server, /*direct_off=*/false, runs);
    unsetenv("ACTORFLOW_HOP_TRACE");
    PrintQuantiles("remote_scalar_step_direct", direct);
  }  // the server exits here and writes its marks
  const double tcp_p50 = Quantile(tcp, 0.5);
  PrintResult("step_hops", "direct_step_over_raw_tcp_round_trip", "", "ratio_p50",
              Quantile(direct, 0.5) / tcp_p50, "x");

  std::vector<HopMark> server_side;
  if (!HopTrace::Load(server_marks, &server_side)) {
    std::fprintf(stderr, "bench_step_hops: no marks from the server at %s\n", server_marks.c_str());
    return 1;
  }
  std::vector<HopMark> mine = HopTrace::Marks();
  mine.erase(mine.begin(), mine.begin() + static_cast<std::ptrdiff_t>(marks_before));
  StepMarks steps;
  Collect(mine, true, &steps);
  Collect(server_side, false, &steps);
  // Only the steps this thread timed (the last `runs` that began here).
  std::vector<int64_t> timed;
  for (const HopMark& m : mine) {
    if (m.hop == Hop::kRunStart) timed.push_back(m.step_id);
  }
  if (timed.size() > static_cast<size_t>(runs)) timed.erase(timed.begin(), timed.end() - runs);
  for (const HopSpan& span : kSpans) {
    std::vector<double> micros;
    for (int64_t id : timed) {
      const auto& m = steps[id];
      auto from = m.find({span.from, span.from_client});
      auto to = m.find({span.to, span.to_client});
      if (from == m.end() || to == m.end()) continue;
      micros.push_back((static_cast<double>(to->second) - static_cast<double>(from->second)) / 1e3);
    }
    if (micros.empty()) continue;
    PrintResult("step_hops", std::string("hop_") + span.name,
                "\"steps\":" + std::to_string(micros.size()), "p50_us", Quantile(micros, 0.5),
                "us");
  }
  unlink(server_marks.c_str());
  return 0;
}
