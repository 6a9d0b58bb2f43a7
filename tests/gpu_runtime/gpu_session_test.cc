// Sessions on emulated GPUs (this suite runs with ACTORFLOW_EMULATED_GPUS=2):
// GPU devices appear beside the CPU, placement honours GPU kernels and soft
// placement, tensors cross the host-device boundary and the boundary between
// GPUs in both directions (with delays on the copy streams, so a missing
// wait would show), variables live and train on a GPU, and the demo CNN
// trains on 2 GPUs + the CPU exactly as on the CPU alone.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cmath>
#include <set>
#include <string>

#include "client/client_session.h"
#include "client/optimizers/gradient_descent.h"
#include "client/optimizers/momentum.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/gpu/emulated_backend.h"
#include "core/gpu/gpu_device_context.h"
#include "examples/models/mnist_models.h"
#include "graph/placement_settings.h"
#include "tests/kernels/op_test_util.h"

namespace af {
namespace {

constexpr char kGpu0[] = "/job:localhost/replica:0/task:0/device:GPU:0";
constexpr char kGpu1[] = "/job:localhost/replica:0/task:0/device:GPU:1";

Tensor Values(const TensorShape& shape, float start, float step) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = start + step * i;
  return t;
}

std::set<std::string> DevicesThatRan(const RunMetadata& metadata) {
  std::set<std::string> devices;
  for (const auto& d : metadata.step_stats.dev_stats()) {
    if (d.node_stats_size() > 0) devices.insert(d.device());
  }
  return devices;
}

// Delays on every copy stream of both GPUs: a kernel that ran before its
// input's copy finished would read the fresh memory's NaN poison.
struct SlowCopies {
  SlowCopies() { Set(std::chrono::microseconds(3000)); }
  ~SlowCopies() { Set(std::chrono::microseconds(0)); }
  static void Set(std::chrono::microseconds d) {
    for (int i = 0; i < 2; ++i) {
      gpu::GpuDeviceContext* ctx = nullptr;
      if (!gpu::GetProcessGpuContext(i, &ctx).ok()) continue;
      gpu::SetEmulatedStreamDelay(ctx->host_to_device_stream(), d);
      gpu::SetEmulatedStreamDelay(ctx->device_to_host_stream(), d);
      gpu::SetEmulatedStreamDelay(ctx->device_to_device_stream(), d);
    }
  }
};

BOOST_AUTO_TEST_SUITE(gpu_session)

BOOST_AUTO_TEST_CASE(the_process_has_two_emulated_gpus) {
  BOOST_REQUIRE_MESSAGE(gpu::ProcessGpuCount() == 2, "run with ACTORFLOW_EMULATED_GPUS=2");
  gpu::GpuDeviceContext* ctx = nullptr;
  AF_REQUIRE_OK(gpu::GetProcessGpuContext(1, &ctx));
  BOOST_TEST(ctx->emulated());
  BOOST_TEST(ctx->properties().total_memory > 0);
  BOOST_TEST(gpu::GetProcessGpuContext(2, &ctx).code() == Code::NOT_FOUND);
}

BOOST_AUTO_TEST_CASE(tensors_cross_between_host_and_both_gpus) {
  SlowCopies slow;
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = ops::Placeholder(root.WithOpName("w"), DT_FLOAT);
  auto on0 = ops::MatMul(root.WithDevice(kGpu0), x, w);            // host -> GPU 0
  auto on1 = ops::Mul(root.WithDevice(kGpu1), on0, on0);           // GPU 0 -> GPU 1
  auto back0 = ops::AddV2(root.WithDevice(kGpu0), on1, on0);       // GPU 1 -> GPU 0
  auto host = ops::Neg(root.WithDevice("/device:CPU:0"), back0);   // GPU 0 -> host
  ClientSession session(root);
  AF_REQUIRE_OK(session.status());
  const Tensor xv = Values({3, 4}, 0.5f, 0.25f), wv = Values({4, 2}, -1.0f, 0.5f);
  RunOptions options;
  options.trace_level = RunOptions::FULL_TRACE;
  for (int step = 0; step < 3; ++step) {
    std::vector<Tensor> out;
    RunMetadata metadata;
    AF_REQUIRE_OK(session.Run(options, {{x, xv}, {w, wv}}, {host, on1}, {}, &out, &metadata));
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 2; ++j) {
        double m = 0;
        for (int k = 0; k < 4; ++k) m += xv.data<float>()[i * 4 + k] * wv.data<float>()[k * 2 + j];
        const double want = -(m * m + m);
        BOOST_TEST(std::fabs(out[0].data<float>()[i * 2 + j] - want) <= 1e-4 * (1 + std::fabs(want)));
        BOOST_TEST(std::fabs(out[1].data<float>()[i * 2 + j] - m * m) <= 1e-4 * (1 + m * m));
      }
    }
    const std::set<std::string> ran = DevicesThatRan(metadata);
    BOOST_TEST(ran.count(kGpu0) == 1);
    BOOST_TEST(ran.count(kGpu1) == 1);
  }
}

BOOST_AUTO_TEST_CASE(integers_stay_in_host_memory_on_a_gpu) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto shape = ops::Shape(root.WithDevice(kGpu0), ops::Square(root.WithDevice(kGpu0), x));
  auto reshaped = ops::Reshape(root.WithDevice(kGpu1), x, ops::Const(root.WithDevice(kGpu1), {4, 3}));
  ClientSession session(root);
  std::vector<Tensor> out;
  AF_REQUIRE_OK(session.Run({{x, Values({3, 4}, 1, 1)}}, {shape, reshaped}, &out));
  AF_EXPECT_OK(test::CheckTensor(out[0], DT_INT32, TensorShape({2}), {3, 4}));
  BOOST_TEST(out[1].shape() == TensorShape({4, 3}));
  BOOST_TEST(out[1].data<float>()[11] == 12.0f);
}

BOOST_AUTO_TEST_CASE(ops_without_a_gpu_kernel_need_soft_placement) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  // ArgMax has no GPU kernel (its int output would come from device data).
  auto arg = ops::ArgMax(root.WithDevice(kGpu0), ops::Square(root.WithDevice(kGpu0), x), 1);
  {
    ClientSession session(root);
    std::vector<Tensor> out;
    Status s = session.Run({{x, Values({2, 3}, -1, 0.5f)}}, {arg}, &out);
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
    BOOST_TEST(s.message().find("ArgMax") != std::string::npos, s.ToString());
  }
  SetSoftDevicePlacement(true);
  {
    ClientSession session(root);
    std::vector<Tensor> out;
    Status s = session.Run({{x, Values({2, 3}, -1, 0.5f)}}, {arg}, &out);
    SetSoftDevicePlacement(false);
    AF_REQUIRE_OK(s);
    // Squares of -1, -0.5, 0 | 0.5, 1, 1.5: largest first, then last.
    AF_EXPECT_OK(test::CheckTensor(out[0], DT_INT64, TensorShape({2}), {0, 2}));
  }
}

BOOST_AUTO_TEST_CASE(variables_live_and_train_on_a_gpu) {
  SlowCopies slow;
  Scope root = Scope::NewRootScope();
  Scope on_gpu = root.WithDevice(kGpu1);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = Variable(on_gpu.WithOpName("w"), ops::Const(on_gpu, {{1.0f}, {2.0f}}));
  auto loss = ops::Sum(on_gpu, ops::Square(on_gpu, ops::MatMul(on_gpu, x, w)), {0, 1});
  GradientDescentOptimizer sgd(0.01);
  Operation train;
  AF_REQUIRE_OK(sgd.Minimize(on_gpu, loss, &train));
  ClientSession session(root);
  AF_REQUIRE_OK(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr));
  const Tensor xv = Values({1, 2}, 1.0f, 1.0f);  // [1, 2]
  double w0 = 1, w1 = 2;
  for (int step = 0; step < 4; ++step) {
    AF_REQUIRE_OK(session.Run({{x, xv}}, {}, {train}, nullptr));
    const double y = w0 + 2 * w1;  // d(y^2)/dw = 2y * x
    w0 -= 0.01 * 2 * y * 1;
    w1 -= 0.01 * 2 * y * 2;
  }
  std::vector<Tensor> out;
  AF_REQUIRE_OK(session.Run({w}, &out));
  AF_EXPECT_OK(test::CheckTensor(out[0], DT_FLOAT, TensorShape({2, 1}), {w0, w1}, 1e-5));
}

// The demo CNN split over both GPUs and the CPU: the forward pass on GPU 0,
// the gradients on GPU 1 (activations and gradients cross between the GPUs
// every step), the input and what has no GPU kernel on the CPU.
struct CnnRun {
  float first_loss = 0;
  std::vector<Tensor> gradients;  // of every trainable variable, before any update
  std::vector<float> losses;      // of 4 momentum steps after that
  std::set<std::string> devices;  // that ran a node
};

CnnRun RunCnn(bool gpus) {
  CnnRun result;
  Scope root = Scope::NewRootScope();
  auto images = ops::Placeholder(root.WithOpName("images"), DT_FLOAT,
                                 PartialTensorShape({-1, 28, 28, 1}));
  auto labels = ops::Placeholder(root.WithOpName("labels"), DT_INT32, PartialTensorShape({-1}));
  models::Model model;
  AF_REQUIRE_OK(models::BuildModel(gpus ? root.WithDevice(kGpu0) : root, "cnn", images, labels, 3,
                                   &model));
  const Scope backward = gpus ? root.WithDevice(kGpu1) : root;
  MomentumOptimizer sgd(0.01, 0.9);
  std::vector<GradAndVar> grads;
  AF_REQUIRE_OK(sgd.ComputeGradients(backward, model.loss, {}, &grads));
  Operation step;
  AF_REQUIRE_OK(sgd.ApplyGradients(backward, grads, Output(), &step));
  std::vector<Output> gradient_outputs;
  for (const GradAndVar& g : grads) gradient_outputs.push_back(g.first.dense());

  SessionOptions options;
  options.num_gpu_devices = gpus ? 2 : 0;
  SetSoftDevicePlacement(gpus);
  ClientSession session(root, options);
  AF_REQUIRE_OK(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr));
  Tensor x(DT_FLOAT, TensorShape({8, 28, 28, 1}));
  Tensor y(DT_INT32, TensorShape({8}));
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = ((i * 37) % 101) / 101.0f;
  for (int64_t i = 0; i < 8; ++i) y.data<int32_t>()[i] = static_cast<int32_t>(i % 10);
  const ClientSession::FeedType feeds = {{images, x}, {labels, y}};

  std::vector<Output> fetches = gradient_outputs;
  fetches.push_back(model.loss);
  std::vector<Tensor> out;
  RunOptions trace;
  trace.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  AF_REQUIRE_OK(session.Run(trace, feeds, fetches, {}, &out, &metadata));
  result.devices = DevicesThatRan(metadata);
  result.first_loss = out.back().data<float>()[0];
  out.pop_back();
  result.gradients = out;
  for (int s = 0; s < 4; ++s) {
    AF_REQUIRE_OK(session.Run(feeds, {model.loss}, {step}, &out));
    result.losses.push_back(out[0].data<float>()[0]);
  }
  SetSoftDevicePlacement(false);
  return result;
}

BOOST_AUTO_TEST_CASE(the_demo_cnn_trains_on_two_gpus_and_the_cpu_as_on_the_cpu) {
  const CnnRun cpu = RunCnn(false);
  const CnnRun gpu = RunCnn(true);
  BOOST_TEST(gpu.devices.count(kGpu0) == 1);
  BOOST_TEST(gpu.devices.count(kGpu1) == 1);
  // Forward and backward: the same kernels on the same inputs, so the same
  // values up to the order of parallel sums.
  BOOST_TEST(std::fabs(gpu.first_loss - cpu.first_loss) <= 1e-5 * std::fabs(cpu.first_loss));
  BOOST_REQUIRE_EQUAL(gpu.gradients.size(), cpu.gradients.size());
  for (size_t v = 0; v < cpu.gradients.size(); ++v) {
    const Tensor& c = cpu.gradients[v];
    const Tensor& g = gpu.gradients[v];
    BOOST_REQUIRE(c.shape() == g.shape());
    double scale = 0, worst = 0;
    for (int64_t i = 0; i < c.NumElements(); ++i) {
      scale = std::max(scale, std::fabs(static_cast<double>(c.data<float>()[i])));
      worst = std::max(worst, std::fabs(static_cast<double>(g.data<float>()[i] - c.data<float>()[i])));
    }
    BOOST_TEST(worst <= 1e-4 * scale, "gradient " << v << ": worst difference " << worst
                                                   << " against a largest element of " << scale);
  }
  // Training: ref-variable updates race with the reads of the same step in
  // TensorFlow's semantics (on the CPU alone two runs differ by ~1e-3), so
  // the steps agree loosely and the loss must fall on both.
  for (size_t i = 0; i < cpu.losses.size(); ++i) {
    BOOST_TEST(std::fabs(gpu.losses[i] - cpu.losses[i]) <= 0.05 * std::fabs(cpu.losses[i]),
               "step " << i << ": " << gpu.losses[i] << " vs " << cpu.losses[i]);
  }
  BOOST_TEST(gpu.losses.back() < gpu.first_loss);
  BOOST_TEST(cpu.losses.back() < cpu.first_loss);
}

BOOST_AUTO_TEST_CASE(a_second_session_on_the_same_gpus_starts_from_the_same_state) {
  // Variables outlive sessions (containers are per device, per process):
  // the second session's initializers overwrite the first's trained values
  // in place, and its first step must see them.
  const CnnRun first = RunCnn(true);
  const CnnRun second = RunCnn(true);
  BOOST_TEST(second.first_loss == first.first_loss);
  BOOST_TEST(second.losses == first.losses, "the GPU streams order every update");
}

BOOST_AUTO_TEST_CASE(out_of_device_memory_names_the_op_and_the_allocator_state) {
  Scope root = Scope::NewRootScope();
  // 2^31 floats: 8 GiB, over the emulated GPU's 4 GiB.
  auto big = ops::Fill(root.WithDevice(kGpu0).WithOpName("big"),
                       ops::Const(root.WithDevice(kGpu0), {1 << 16, 1 << 15}), 1.0f);
  auto sum = ops::Sum(root.WithDevice(kGpu0), big, {0, 1});
  ClientSession session(root);
  std::vector<Tensor> out;
  Status s = session.Run({sum}, &out);
  BOOST_TEST(s.code() == Code::RESOURCE_EXHAUSTED, s.ToString());
  BOOST_TEST(s.message().find("big") != std::string::npos, s.ToString());
  BOOST_TEST(s.message().find("largest free chunk") != std::string::npos, s.ToString());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
