// A program outside the Actorflow tree, built against an installed Actorflow
// (examples/consumer/CMakeLists.txt). It fits a linear regression
// y = 3 x0 - 2 x1 + 0.5 to noisy synthetic data with gradient descent and
// prints the loss as it falls. With --server HOST:PORT (a worker started with
// `actorflow server`) it then builds the same model on that worker's CPU
// and runs one training step there, traced, to show which device ran it.
//
//   consumer [--steps N] [--server HOST:PORT]
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

// The installed headers' own spelling: <actorflow/...>.
#include <actorflow/client/client_session.h>
#include <actorflow/client/optimizers/gradient_descent.h>
#include <actorflow/client/standard_ops.h>
#include <actorflow/core/version.h>

namespace {

constexpr int kExamples = 256;
constexpr float kTrueW0 = 3.0f, kTrueW1 = -2.0f, kTrueB = 0.5f;

struct Data {
  af::Tensor x{af::DT_FLOAT, af::TensorShape{kExamples, 2}};
  af::Tensor y{af::DT_FLOAT, af::TensorShape{kExamples, 1}};
};

Data MakeData() {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Data d;
  for (int e = 0; e < kExamples; ++e) {
    const float x0 = normal(rng), x1 = normal(rng);
    d.x.data<float>()[2 * e] = x0;
    d.x.data<float>()[2 * e + 1] = x1;
    d.y.data<float>()[e] = kTrueW0 * x0 + kTrueW1 * x1 + kTrueB + 0.01f * normal(rng);
  }
  return d;
}

struct Model {
  af::Output x, y, loss, w, b;
  af::Operation train;
};

// Everything built in `scope` (and so on its device, when it names one).
af::Status BuildModel(const af::Scope& scope, Model* m) {
  m->x = af::ops::Placeholder(scope.WithOpName("x"), af::DT_FLOAT,
                              af::PartialTensorShape({-1, 2}));
  m->y = af::ops::Placeholder(scope.WithOpName("y"), af::DT_FLOAT,
                              af::PartialTensorShape({-1, 1}));
  af::Variable w(scope.WithOpName("w"), af::ops::Const(scope, 0.0f, af::TensorShape{2, 1}));
  af::Variable b(scope.WithOpName("b"), af::ops::Const(scope, 0.0f, af::TensorShape{1}));
  m->w = w;
  m->b = b;
  auto prediction = af::ops::Add(scope, af::ops::MatMul(scope, m->x, w), b);
  auto error = af::ops::Sub(scope, prediction, m->y);
  m->loss = af::ops::Mean(scope.WithOpName("loss"), af::ops::Square(scope, error), {0, 1});
  af::GradientDescentOptimizer sgd(0.1);
  AF_RETURN_IF_ERROR(sgd.Minimize(scope, m->loss, &m->train));
  return scope.status();
}

int Fail(const std::string& what, const af::Status& s) {
  std::cerr << "consumer: " << what << ": " << s << "\n";
  return 1;
}

// Trains in this process; the loss must fall below 1% of where it started.
int TrainLocally(const Data& data, int steps) {
  af::Scope root = af::Scope::NewRootScope();
  Model m;
  af::Status s = BuildModel(root, &m);
  if (!s.ok()) return Fail("building the model", s);
  af::ClientSession session(root);
  std::vector<af::Tensor> out;
  s = session.Run({}, {}, {af::GlobalVariablesInitializer(root)}, &out);
  if (!s.ok()) return Fail("initializing", s);
  const af::ClientSession::FeedType feeds = {{m.x, data.x}, {m.y, data.y}};
  float first = 0, last = 0;
  for (int step = 0; step <= steps; ++step) {
    // The loss fetched with the update is the one before it.
    s = step < steps ? session.Run(feeds, {m.loss}, {m.train}, &out)
                     : session.Run(feeds, {m.loss}, &out);
    if (!s.ok()) return Fail("step " + std::to_string(step), s);
    last = out[0].scalar<float>();
    if (step == 0) first = last;
    if (step % 10 == 0 || step == steps) std::cout << "step " << step << " loss " << last << "\n";
  }
  s = session.Run({m.w, m.b}, &out);
  if (!s.ok()) return Fail("reading the weights", s);
  std::cout << "learned w = [" << out[0].data<float>()[0] << ", " << out[0].data<float>()[1]
            << "], b = " << out[1].data<float>()[0] << " (true: [3, -2], 0.5)\n";
  if (!(last < 0.01f * first)) {
    std::cerr << "consumer: the loss did not fall enough: " << first << " -> " << last << "\n";
    return 1;
  }
  std::cout << "local training: loss " << first << " -> " << last << "\n";
  return 0;
}

// The model placed on the server's CPU; one traced training step.
int StepOnServer(const Data& data, const std::string& address) {
  const std::string device = "/job:worker/replica:0/task:0/device:CPU:0";
  af::Scope root = af::Scope::NewRootScope();
  Model m;
  af::Status s = BuildModel(root.WithDevice(device), &m);
  if (!s.ok()) return Fail("building the remote model", s);
  af::SessionOptions options;
  options.remote_workers = {address};
  af::ClientSession session(root, options);
  if (!session.status().ok()) return Fail("connecting to " + address, session.status());
  std::vector<af::Tensor> out;
  s = session.Run({}, {}, {af::GlobalVariablesInitializer(root)}, &out);
  if (!s.ok()) return Fail("initializing on " + address, s);
  af::RunOptions run_options;
  run_options.trace_level = af::RunOptions::SOFTWARE_TRACE;
  af::RunMetadata metadata;
  s = session.Run(run_options, {{m.x, data.x}, {m.y, data.y}}, {m.loss}, {m.train}, &out,
                  &metadata);
  if (!s.ok()) return Fail("the step on " + address, s);
  const float before = out[0].scalar<float>();
  s = session.Run({{m.x, data.x}, {m.y, data.y}}, {m.loss}, &out);
  if (!s.ok()) return Fail("the loss after the step on " + address, s);
  int remote_nodes = 0;
  for (const auto& dev : metadata.step_stats.dev_stats()) {
    if (dev.device() == device) remote_nodes += dev.node_stats_size();
  }
  std::cout << "remote step on " << device << " at " << address << ": " << remote_nodes
            << " nodes ran there, loss " << before << " -> " << out[0].scalar<float>() << "\n";
  if (remote_nodes == 0 || !(out[0].scalar<float>() < before)) {
    std::cerr << "consumer: the remote step did not run on the server or did not train\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 60;
  std::string server;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--steps" && i + 1 < argc) {
      steps = std::atoi(argv[++i]);
    } else if (arg == "--server" && i + 1 < argc) {
      server = argv[++i];
    } else {
      std::cerr << "usage: consumer [--steps N] [--server HOST:PORT]\n";
      return 2;
    }
  }
  std::cout << "actorflow " << AF_VERSION_STRING << "\n";
  const Data data = MakeData();
  if (int rc = TrainLocally(data, steps); rc != 0) return rc;
  if (!server.empty()) {
    if (int rc = StepOnServer(data, server); rc != 0) return rc;
  }
  std::cout << "consumer: ok\n";
  return 0;
}
