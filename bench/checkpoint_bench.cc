// Save and load time of a ~100 MB checkpoint (25 float tensors of 4 MB, as
// a mid-size model's variables) in both formats: TensorFlow's tensor bundle
// (PREFIX.index + PREFIX.data-00000-of-00001) and .afckpt. Load reads every
// tensor and checks its CRC32C, as RestoreV2 does. Figures include the
// fsync of each file (a checkpoint is durable when Save returns), so they
// depend on the disk more than on the code. Also the load time of
// TensorFlow's half-plus-two checkpoint (the SavedModels in tests/data/saved_models).
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/bundle/bundle_reader.h"
#include "core/bundle/bundle_writer.h"
#include "core/checkpoint_format.h"
#include "core/checkpoint_reader.h"
#include "core/checkpoint_writer.h"

namespace af::bench {
namespace {

constexpr int kTensors = 25;
constexpr int64_t kFloatsPerTensor = 1 << 20;  // 4 MiB each, 100 MiB in all

std::vector<Tensor> MakeTensors() {
  std::vector<Tensor> out;
  for (int i = 0; i < kTensors; ++i) {
    Tensor t(DT_FLOAT, TensorShape{kFloatsPerTensor});
    float* p = t.data<float>();
    for (int64_t j = 0; j < kFloatsPerTensor; ++j) p[j] = static_cast<float>((j * 7 + i) % 1000);
    out.push_back(std::move(t));
  }
  return out;
}

void SaveBundle(const std::string& prefix, const std::vector<Tensor>& tensors) {
  std::unique_ptr<bundle::BundleWriter> w;
  CheckOk(bundle::BundleWriter::Create(prefix, &w), "create bundle");
  for (size_t i = 0; i < tensors.size(); ++i)
    CheckOk(w->Add("layer" + std::to_string(i) + "/kernel", tensors[i]), "add");
  CheckOk(w->Finish(), "finish bundle");
}

void SaveAfckpt(const std::string& prefix, const std::vector<Tensor>& tensors) {
  std::unique_ptr<CheckpointWriter> w;
  CheckOk(CheckpointWriter::Create(checkpoint::DataFilePath(prefix), &w), "create afckpt");
  for (size_t i = 0; i < tensors.size(); ++i)
    CheckOk(w->Add("layer" + std::to_string(i) + "/kernel", tensors[i]), "add");
  CheckOk(w->Finish(), "finish afckpt");
}

void LoadAll(const std::string& file) {
  std::unique_ptr<CheckpointReader> r;
  CheckOk(CheckpointReader::Open(file, &r), "open " + file);
  CheckOk(r->VerifyAll(), "read " + file);
}

}  // namespace
}  // namespace af::bench

int main() {
  using namespace af;
  using namespace af::bench;
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/af_ckpt_bench";
  std::filesystem::create_directories(dir);
  const std::vector<Tensor> tensors = MakeTensors();
  const double mb = static_cast<double>(kTensors) * kFloatsPerTensor * 4 / 1e6;
  const std::string extra = "\"mb\":" + std::to_string(mb);

  const std::string bundle_prefix = dir + "/bundle";
  const std::string afckpt_prefix = dir + "/own";
  const double save_bundle = TimePerCall([&] { SaveBundle(bundle_prefix, tensors); }, 2.0, 3, 1);
  PrintResult("checkpoint", "save_bundle", extra, "seconds", save_bundle, "s");
  PrintResult("checkpoint", "save_bundle", extra, "throughput", mb / save_bundle, "MB/s");
  const double save_own = TimePerCall([&] { SaveAfckpt(afckpt_prefix, tensors); }, 2.0, 3, 1);
  PrintResult("checkpoint", "save_afckpt", extra, "seconds", save_own, "s");
  PrintResult("checkpoint", "save_afckpt", extra, "throughput", mb / save_own, "MB/s");

  const double load_bundle = TimePerCall([&] { LoadAll(bundle_prefix + ".index"); }, 2.0, 3, 1);
  PrintResult("checkpoint", "load_bundle", extra, "seconds", load_bundle, "s");
  PrintResult("checkpoint", "load_bundle", extra, "throughput", mb / load_bundle, "MB/s");
  const double load_own =
      TimePerCall([&] { LoadAll(checkpoint::DataFilePath(afckpt_prefix)); }, 2.0, 3, 1);
  PrintResult("checkpoint", "load_afckpt", extra, "seconds", load_own, "s");
  PrintResult("checkpoint", "load_afckpt", extra, "throughput", mb / load_own, "MB/s");

  const std::string half_plus_two =
      std::string(AF_SOURCE_DIR) +
      "/tests/data/saved_models/saved_model_half_plus_two_cpu/00000123/variables/variables.index";
  const double small = TimePerCall([&] { LoadAll(half_plus_two); }, 0.5, 10, 3);
  PrintResult("checkpoint", "load_tf_half_plus_two", "\"tensors\":5", "seconds", small, "s");

  std::filesystem::remove_all(dir);
  return 0;
}
