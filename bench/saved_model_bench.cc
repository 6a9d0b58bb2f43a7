// bench/saved_model: how long LoadSavedModel takes on TensorFlow Serving's
// half-plus-two SavedModel (read saved_model.pb, create a session, import
// the graph, restore the variables, run the main op; median of N loads),
// and what one call of its serving_default signature costs once loaded
// (RunSignature: keys -> tensor names -> a cached Session::Run; median and
// p99). Args: [export_dir] [loads].
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "client/saved_model/constants.h"
#include "client/saved_model/loader.h"
#include "client/saved_model/signature_runner.h"

namespace af::bench {
namespace {

using Clock = std::chrono::steady_clock;

std::string DefaultModel() {
  return std::string(AF_SOURCE_DIR) +
         "/tests/data/saved_models/saved_model_half_plus_two_cpu/00000123";
}

SessionOptions Options() {
  SessionOptions options;
  options.num_gpu_devices = 0;
  return options;
}

void LoadTime(const std::string& dir, int loads) {
  std::vector<double> ms;
  for (int i = 0; i < loads; ++i) {
    SavedModelBundle bundle;
    const auto start = Clock::now();
    CheckOk(LoadSavedModel(Options(), RunOptions(), dir, {kSavedModelTagServe}, &bundle), "load");
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    CheckOk(bundle.session->Reset({}), "reset");
    CheckOk(bundle.session->Close(), "close");
  }
  PrintResult("saved_model", "half_plus_two_load", "\"loads\":" + std::to_string(loads), "p99_ms",
              Quantile(ms, 0.99), "ms");
  PrintResult("saved_model", "half_plus_two_load", "\"loads\":" + std::to_string(loads),
              "median_ms", Quantile(ms, 0.5), "ms");
}

void CallTime(const std::string& dir, int calls) {
  SavedModelBundle bundle;
  CheckOk(LoadSavedModel(Options(), RunOptions(), dir, {kSavedModelTagServe}, &bundle), "load");
  const std::map<std::string, Tensor> inputs = {
      {"x", Tensor::FromVector<float>({1, 2, 5}, TensorShape{3, 1})}};
  std::map<std::string, Tensor> out;
  for (int i = 0; i < 200; ++i)
    CheckOk(RunSignature(bundle, kDefaultServingSignatureDefKey, inputs, {}, &out), "warm up");
  if (out.at("y").data<float>()[2] != 4.5f) CheckOk(errors::Internal("y[2] != 4.5"), "check");
  std::vector<double> us;
  for (int i = 0; i < calls; ++i) {
    const auto start = Clock::now();
    CheckOk(RunSignature(bundle, kDefaultServingSignatureDefKey, inputs, {}, &out), "call");
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  const std::string extra = "\"calls\":" + std::to_string(calls) + ",\"batch\":3";
  PrintResult("saved_model", "serving_default_call", extra, "p99_us", Quantile(us, 0.99), "us");
  PrintResult("saved_model", "serving_default_call", extra, "median_us", Quantile(us, 0.5), "us");
  CheckOk(bundle.session->Reset({}), "reset");
}

}  // namespace
}  // namespace af::bench

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : af::bench::DefaultModel();
  const int loads = argc > 2 ? std::atoi(argv[2]) : 20;
  af::bench::LoadTime(dir, loads > 0 ? loads : 20);
  af::bench::CallTime(dir, 5000);
  return 0;
}
