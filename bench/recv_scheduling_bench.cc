// Recv scheduling (issue 26, whitepaper §5.2): a deep MLP whose weights
// live on an `actorflow server` ps task, run from this process as the
// worker, with the recv_scheduling pass off and on (sessions on the same
// variables, steps interleaved). Printed per case and setting: this
// process's peak tensor memory above what it held before the step (the CPU
// allocator's peak, which also counts every received tensor) and the
// median step time.
//
//   forward  the MLP's output is fetched (inference): without scheduling
//            every layer's weights arrive at once and wait for their layer;
//            with it each is sent about two layers before its use.
//   train    a GradientDescent step: the backward pass uses every layer's
//            weights again, so with scheduling alone they stay until then
//            and the peak barely moves; with resending on (a third session,
//            recv_scheduling_resend) each weight crosses again shortly
//            before its backward use, twice the weight bytes per step.
//
//   bench_recv_scheduling [--layers 16] [--width 2048] [--batch 64] [--steps 5]
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_servers.h"
#include "bench/bench_util.h"
#include "client/client_session.h"
#include "client/optimizers/gradient_descent.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/cluster_spec.h"

namespace af::bench {
namespace {

struct Flags {
  int layers = 16;
  int64_t width = 2048;
  int64_t batch = 64;
  int steps = 5;
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const char* value = argv[i + 1];
    if (key == "--layers") f.layers = std::atoi(value);
    else if (key == "--width") f.width = std::atoll(value);
    else if (key == "--batch") f.batch = std::atoll(value);
    else if (key == "--steps") f.steps = std::atoi(value);
    else CheckOk(errors::InvalidArgument("unknown flag ", key), "flags");
  }
  if (argc % 2 == 0) CheckOk(errors::InvalidArgument("flag without a value"), "flags");
  if (f.layers < 1 || f.width < 1 || f.batch < 1 || f.steps < 1)
    CheckOk(errors::InvalidArgument("every flag must be >= 1"), "flags");
  return f;
}

struct DeepMlp {
  explicit DeepMlp(const Flags& f) : root(Scope::NewRootScope()) {
    const Scope ps = root.WithDevice("/job:ps/replica:0/task:0");
    const Scope worker = root.WithDevice("/job:localhost/replica:0/task:0");
    // With its shape: the schedule's cost model counts an unknown batch as 1.
    x = ops::Placeholder(worker.WithOpName("x"), DT_FLOAT,
                         ops::Placeholder::Shape(PartialTensorShape({f.batch, f.width})));
    Output h = x;
    const float scale = 1.0f / static_cast<float>(f.width);
    for (int i = 0; i < f.layers; ++i) {
      // Made on the ps task, so no initial value crosses.
      Variable w(ps.WithOpName("w" + std::to_string(i)), PartialTensorShape({f.width, f.width}),
                 DT_FLOAT, [&](const Scope& s) {
                   return ops::Mul(s,
                                   ops::RandomUniform(s, ops::Const(s, {f.width, f.width}),
                                                      DT_FLOAT),
                                   ops::Const(s, scale));
                 });
      h = ops::Relu(worker, ops::MatMul(worker, h, w));
    }
    y = h;
    const Output loss = ops::Sum(worker, ops::Square(worker, y), ops::Const(worker, {0, 1}));
    GradientDescentOptimizer sgd(1e-9);
    CheckOk(sgd.Minimize(worker, loss, &train), "gradients");
    initializers.push_back(GlobalVariablesInitializer(root));
    CheckOk(root.status(), "graph");
  }
  Scope root;
  Output x, y;
  Operation train;
  std::vector<Operation> initializers;
};

struct Sample {
  std::vector<double> peak_mib, seconds;
};

// One step; what it added to this process's peak tensor memory.
void Step(const ClientSession& session, const DeepMlp& mlp, const Tensor& x, bool train,
          Sample* sample) {
  const PeakTensorMemory memory;
  const auto start = std::chrono::steady_clock::now();
  std::vector<Tensor> out;
  if (train) {
    CheckOk(session.Run({{mlp.x, x}}, {}, {mlp.train}, nullptr), "train step");
  } else {
    CheckOk(session.Run({{mlp.x, x}}, {mlp.y}, &out), "forward step");
  }
  sample->seconds.push_back(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  sample->peak_mib.push_back(memory.MiB());
}

void Measure(const Flags& f) {
  BenchServer ps;
  const uint16_t port = PickFreePorts(1)[0];
  const std::string spec = "ps=127.0.0.1:" + std::to_string(port);
  ps.Start({"--cluster", spec, "--job", "ps", "--task", "0"});
  SessionOptions base;
  CheckOk(ClusterSpec::FromFlag(spec, &base.cluster), "cluster spec");
  base.default_timeout_ms = 300000;
  base.worker_lost_after_ms = 30000;
  SessionOptions off = base, on = base, resend = base;
  off.optimizer.do_recv_scheduling = false;
  on.optimizer.do_recv_scheduling = true;
  resend.optimizer.do_recv_scheduling = true;
  resend.optimizer.recv_scheduling_resend = true;

  const DeepMlp mlp(f);
  const ClientSession session_off(mlp.root, off);
  const ClientSession session_on(mlp.root, on);
  const ClientSession session_resend(mlp.root, resend);
  CheckOk(session_on.Run({}, {}, mlp.initializers, nullptr), "initialize");
  Tensor x(DT_FLOAT, TensorShape{f.batch, f.width});
  for (int64_t k = 0; k < x.NumElements(); ++k) x.data<float>()[k] = 0.5f;

  const double weights_mib = static_cast<double>(f.layers) * f.width * f.width * 4 / (1 << 20);
  const std::string extra = "\"layers\":" + std::to_string(f.layers) +
                            ",\"width\":" + std::to_string(f.width) +
                            ",\"batch\":" + std::to_string(f.batch) +
                            ",\"weights_mib\":" + std::to_string(weights_mib);
  struct Setting {
    const char* name;
    const ClientSession* session;
    Sample sample;
  };
  for (bool train : {false, true}) {
    // Resending only changes what a second use of a weight does.
    std::vector<Setting> settings = {{"off", &session_off, {}}, {"on", &session_on, {}}};
    if (train) settings.push_back({"resend", &session_resend, {}});
    Sample warm;
    for (Setting& s : settings) Step(*s.session, mlp, x, train, &warm);  // plans, first transfers
    for (int step = 0; step < f.steps; ++step)
      for (Setting& s : settings) Step(*s.session, mlp, x, train, &s.sample);
    const std::string c = train ? "train" : "forward";
    auto peak = [](const Sample& s) { return *std::max_element(s.peak_mib.begin(), s.peak_mib.end()); };
    for (const Setting& s : settings) {
      const std::string fields = extra + ",\"recv_scheduling\":\"" + s.name + "\"";
      PrintResult("recv_scheduling", c, fields, "peak_step_memory", peak(s.sample), "MiB");
      PrintResult("recv_scheduling", c, fields, "step_time_p50",
                  Quantile(s.sample.seconds, 0.5) * 1e3, "ms");
      if (&s == &settings[0]) continue;
      PrintResult("recv_scheduling", c, fields, "peak_memory_over_off",
                  peak(s.sample) / peak(settings[0].sample), "x");
      PrintResult("recv_scheduling", c, fields, "step_time_over_off",
                  Quantile(s.sample.seconds, 0.5) / Quantile(settings[0].sample.seconds, 0.5), "x");
    }
  }
}

}  // namespace
}  // namespace af::bench

int main(int argc, char** argv) {
  af::bench::Measure(af::bench::ParseFlags(argc, argv));
  return 0;
}
