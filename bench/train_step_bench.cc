// bench_train_step: examples/s of one training step (forward, loss,
// backward, SGD with momentum 0.9) for the MLP 784-256-256-10 and the Deep
// MNIST CNN (examples/models) at batch 64 and 256 on synthetic data fed
// from memory — the same step that bench/peers/torch_fmnist.py times
// for PyTorch. Prints the median step time as examples/s.
//
//   bench_train_step [--models mlp,cnn] [--batches 64,256] [--steps 200]
//                    [--warmup 20] [--threads 2] [--device cpu|gpu]
//
// --device gpu builds the model and its training under /device:GPU:0 (soft
// placement on), with the batch fed from host memory every step as the
// CPU run's is; bench/peers/torch_cnn_gpu.py is its PyTorch peer.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "client/client_session.h"
#include "client/optimizers/momentum.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "examples/models/mnist_models.h"
#include "graph/placement_settings.h"

namespace af {
namespace {

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

struct Options {
  std::vector<std::string> models = {"mlp", "cnn"};
  std::vector<int> batches = {64, 256};
  int steps = 200, warmup = 20, threads = 2;
  std::string device = "cpu";
};

Options ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--models") o.models = SplitList(value);
    else if (flag == "--batches") {
      o.batches.clear();
      for (const auto& b : SplitList(value)) o.batches.push_back(std::atoi(b.c_str()));
    } else if (flag == "--steps") o.steps = std::atoi(value.c_str());
    else if (flag == "--warmup") o.warmup = std::atoi(value.c_str());
    else if (flag == "--threads") o.threads = std::atoi(value.c_str());
    else if (flag == "--device") o.device = value;
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      std::exit(2);
    }
  }
  return o;
}

void BenchOne(const std::string& model_name, int batch, const Options& opt) {
  Scope root = Scope::NewRootScope();
  auto images = ops::Placeholder(root.WithOpName("images"), DT_FLOAT,
                                 PartialTensorShape({-1, 28, 28, 1}));
  auto labels = ops::Placeholder(root.WithOpName("labels"), DT_INT32, PartialTensorShape({-1}));
  models::Model model;
  const Scope model_scope = opt.device == "gpu" ? root.WithDevice("/device:GPU:0") : root;
  bench::CheckOk(models::BuildModel(model_scope, model_name, images, labels, 1, &model),
                 "build model");
  MomentumOptimizer sgd(0.01, 0.9);
  Operation train;
  bench::CheckOk(sgd.Minimize(model_scope, model.loss, &train), "minimize");
  bench::CheckOk(root.status(), "graph");

  SessionOptions session_options;
  session_options.threads_per_device = opt.threads;
  session_options.num_gpu_devices = opt.device == "gpu" ? 1 : 0;
  if (opt.device == "gpu") SetSoftDevicePlacement(true);
  ClientSession session(root, session_options);
  bench::CheckOk(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr), "init");

  std::mt19937 rng(7);
  std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
  std::uniform_int_distribution<int32_t> label(0, 9);
  Tensor x(DT_FLOAT, TensorShape{batch, 28, 28, 1});
  Tensor y(DT_INT32, TensorShape{batch});
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = pixel(rng);
  for (int64_t i = 0; i < batch; ++i) y.data<int32_t>()[i] = label(rng);
  const ClientSession::FeedType feeds = {{images, x}, {labels, y}};

  if (opt.device == "gpu") {
    // Run returns once a GPU step's work is enqueued, so steps are timed
    // together, ending with a fetch of the loss (which waits for the
    // GPU); the median Run is the host's share of a step.
    for (int s = 0; s < opt.warmup; ++s)
      bench::CheckOk(session.Run(feeds, {}, {train}, nullptr), "train step");
    std::vector<Tensor> loss;
    bench::CheckOk(session.Run(feeds, {model.loss}, {}, &loss), "loss");
    std::vector<double> host_seconds;
    const auto t0 = std::chrono::steady_clock::now();
    for (int s = 0; s < opt.steps; ++s) {
      const auto h0 = std::chrono::steady_clock::now();
      bench::CheckOk(session.Run(feeds, {}, {train}, nullptr), "train step");
      host_seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - h0).count());
    }
    bench::CheckOk(session.Run(feeds, {model.loss}, {}, &loss), "loss");
    const double total =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::sort(host_seconds.begin(), host_seconds.end());
    const double step = total / opt.steps;
    std::ostringstream extra;
    extra << "\"model\":\"" << model_name << "\",\"device\":\"gpu\",\"batch\":" << batch
          << ",\"step_ms\":" << step * 1e3
          << ",\"host_ms_per_run_median\":" << host_seconds[host_seconds.size() / 2] * 1e3
          << ",\"final_loss\":" << loss[0].data<float>()[0];
    bench::PrintResult("train_step", model_name + "_b" + std::to_string(batch) + "_gpu",
                       extra.str(), "examples_per_s", batch / step, "1/s");
    return;
  }
  std::vector<double> step_seconds;
  for (int s = 0; s < opt.warmup + opt.steps; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    bench::CheckOk(session.Run(feeds, {}, {train}, nullptr), "train step");
    const double dt =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s >= opt.warmup) step_seconds.push_back(dt);
  }
  std::sort(step_seconds.begin(), step_seconds.end());
  const double median = step_seconds[step_seconds.size() / 2];
  std::ostringstream extra;
  extra << "\"model\":\"" << model_name << "\",\"batch\":" << batch
        << ",\"threads\":" << opt.threads << ",\"step_ms_median\":" << median * 1e3
        << ",\"step_ms_p10\":" << step_seconds[step_seconds.size() / 10] * 1e3
        << ",\"step_ms_p90\":" << step_seconds[step_seconds.size() * 9 / 10] * 1e3;
  bench::PrintResult("train_step", model_name + "_b" + std::to_string(batch), extra.str(),
                     "examples_per_s", batch / median, "1/s");
}

}  // namespace
}  // namespace af

int main(int argc, char** argv) {
  const af::Options opt = af::ParseOptions(argc, argv);
  for (const auto& model : opt.models)
    for (int batch : opt.batches) af::BenchOne(model, batch, opt);
  return 0;
}
