// Trains a recurrent Fashion-MNIST classifier: an LSTM cell runs in a
// WhileLoop over the 28 rows of each image (read from a TensorArray), and
// the loss is differentiated through the loop (AddSymbolicGradients builds
// the backward loop). Prints the loss, the test accuracy and the time of
// every epoch.
//
//   build/bin/lstm_fashion_mnist [--epochs 10] [--batch 128] [--hidden 128]
//       [--learning_rate 0.001] [--threads 2] [--data_dir DIR] [--seed 1]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "client/client_session.h"
#include "client/optimizers/adam.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/flag_spelling.h"
#include "core/logging.h"
#include "examples/fashion_mnist/batch_sampler.h"
#include "examples/fashion_mnist/input_pipeline.h"
#include "examples/models/lstm_model.h"

namespace af {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int epochs = 10;
  int batch = 128;
  int hidden = 128;
  double learning_rate = 0.001;
  int threads = 2;
  int64_t seed = 1;
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
};

const char* kUsage =
    "usage: lstm_fashion_mnist [--epochs 10] [--batch 128] [--hidden 128]\n"
    "                          [--learning_rate 0.001] [--threads 2] [--data_dir DIR] [--seed 1]\n";

Status ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return errors::InvalidArgument("flag ", flag, " needs a value");
    const char* v = argv[i + 1];
    if (flag == "--epochs") o->epochs = std::atoi(v);
    else if (flag == "--batch") o->batch = std::atoi(v);
    else if (flag == "--hidden") o->hidden = std::atoi(v);
    else if (flag == "--learning_rate") o->learning_rate = std::atof(v);
    else if (flag == "--threads") o->threads = std::atoi(v);
    else if (flag == "--seed") o->seed = std::atoll(v);
    else if (flag == "--data_dir") o->data_dir = v;
    else return errors::InvalidArgument("unknown flag ", flag);
  }
  if (o->epochs < 1 || o->batch < 1 || o->hidden < 1 || o->threads < 1)
    return errors::InvalidArgument("--epochs, --batch, --hidden and --threads must be positive");
  return Status::OK();
}

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// Test accuracy over the whole t10k set, in batches of 1000.
Status Evaluate(ClientSession* session, const Output& pixels, const Output& labels,
                const Output& num_correct, const fmnist::RawExamples& test, double* accuracy) {
  const int64_t n = test.labels.NumElements();
  double correct = 0;
  std::vector<Tensor> out;
  for (int64_t start = 0; start < n; start += 1000) {
    const int64_t size = std::min<int64_t>(1000, n - start);
    Tensor p(DT_UINT8, TensorShape({size, 784}));
    Tensor l(DT_INT32, TensorShape({size}));
    std::copy_n(test.pixels.data<uint8_t>() + start * 784, size * 784, p.data<uint8_t>());
    std::copy_n(test.labels.data<int32_t>() + start, size, l.data<int32_t>());
    AF_RETURN_IF_ERROR(session->Run({{pixels, p}, {labels, l}}, {num_correct}, &out));
    correct += out[0].scalar<float>();
  }
  *accuracy = correct / static_cast<double>(n);
  return Status::OK();
}

Status Train(const Options& o) {
  fmnist::RawExamples train, test;
  {
    Scope data_root = Scope::NewRootScope();
    ClientSession data_session(data_root);
    AF_RETURN_IF_ERROR(fmnist::ReadRawExamples(data_root, data_session, o.data_dir, "train", &train));
    AF_RETURN_IF_ERROR(fmnist::ReadRawExamples(data_root, data_session, o.data_dir, "t10k", &test));
  }

  Scope root = Scope::NewRootScope();
  auto pixels = ops::Placeholder(root.WithOpName("pixels"), DT_UINT8, PartialTensorShape({-1, 784}));
  auto labels = ops::Placeholder(root.WithOpName("labels"), DT_INT32, PartialTensorShape({-1}));
  auto images = fmnist::StandardizePixels(root.NewSubScope("input"), pixels);
  models::LstmClassifier model;
  AF_RETURN_IF_ERROR(models::BuildLstmClassifier(root, images, labels, o.hidden, o.seed, &model));
  AdamOptimizer adam(o.learning_rate);
  Operation train_op;
  AF_RETURN_IF_ERROR(adam.Minimize(root, model.loss, &train_op));
  AF_RETURN_IF_ERROR(root.status());

  SessionOptions session_options;
  session_options.threads_per_device = o.threads;
  ClientSession session(root, session_options);
  std::vector<Tensor> out;
  AF_RETURN_IF_ERROR(session.Run({}, {}, {GlobalVariablesInitializer(root)}, &out));

  fmnist::BatchSampler sampler(train, o.batch, static_cast<uint64_t>(o.seed));
  const int64_t steps_per_epoch = train.labels.NumElements() / o.batch;
  std::printf("LSTM (%d hidden) over 28 rows, batch %d, Adam %.4g: %lld steps per epoch\n",
              o.hidden, o.batch, o.learning_rate, static_cast<long long>(steps_per_epoch));
  double accuracy = 0;
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    const auto start = Clock::now();
    double loss_sum = 0;
    Tensor p, l;
    for (int64_t step = 0; step < steps_per_epoch; ++step) {
      sampler.Next(&p, &l);
      AF_RETURN_IF_ERROR(session.Run({{pixels, p}, {labels, l}}, {model.loss}, {train_op}, &out));
      loss_sum += out[0].scalar<float>();
    }
    const double train_seconds = Seconds(start);
    AF_RETURN_IF_ERROR(Evaluate(&session, pixels, labels, model.num_correct, test, &accuracy));
    std::printf("epoch %d: mean loss %.4f, test accuracy %.4f, %.1f s training (%.0f examples/s, "
                "%.1f ms per batch forward+backward)\n",
                epoch, loss_sum / static_cast<double>(steps_per_epoch), accuracy, train_seconds,
                static_cast<double>(steps_per_epoch * o.batch) / train_seconds,
                1000.0 * train_seconds / static_cast<double>(steps_per_epoch));
    std::fflush(stdout);
  }
  std::printf("final test accuracy %.4f\n", accuracy);
  return Status::OK();
}

}  // namespace
}  // namespace af

int main(int argc, char** argv) {
  af::SnakeCaseFlags(argc, argv);
  if (std::string error; !af::ConsumeLogLevelFlag(&argc, argv, &error)) {
    std::fprintf(stderr, "%s: %s\n", argv[0], error.c_str());
    return 2;
  }
  af::Options options;
  af::Status s = af::ParseOptions(argc, argv, &options);
  if (!s.ok()) {
    std::fprintf(stderr, "lstm_fashion_mnist: %s\n%s", s.ToString().c_str(), af::kUsage);
    return 2;
  }
  s = af::Train(options);
  if (!s.ok()) {
    AF_LOG(ERROR) << s.ToString();
    return 1;
  }
  return 0;
}
