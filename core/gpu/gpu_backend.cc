#include "core/gpu/gpu_backend.h"

#include <cstdlib>
#include <memory>
#include <mutex>

#include "core/gpu/emulated_backend.h"

namespace af::gpu {
namespace {

struct BackendChoice {
  std::mutex mu;  // guards everything below
  BackendFactory cuda_factory;
  int emulated_override = 0;
  bool chosen = false;
  Backend* chosen_backend = nullptr;
  std::unique_ptr<Backend> emulated;
};

BackendChoice& Choice() {
  static BackendChoice* choice = new BackendChoice();  // never destroyed: devices outlive statics
  return *choice;
}

int EmulatedGpusFromEnvironment() {
  const char* v = std::getenv("ACTORFLOW_EMULATED_GPUS");
  if (v == nullptr || *v == '\0') return 0;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  if (end == v || n < 0) return 0;
  return static_cast<int>(n > 16 ? 16 : n);
}

}  // namespace

Backend* ProcessBackend() {
  BackendChoice& c = Choice();
  std::lock_guard<std::mutex> lock(c.mu);
  if (c.chosen) return c.chosen_backend;
  c.chosen = true;
  const int emulated = c.emulated_override > 0 ? c.emulated_override : EmulatedGpusFromEnvironment();
  if (emulated > 0) {
    c.emulated = NewEmulatedBackend(EmulatedBackendOptions{emulated});
    c.chosen_backend = c.emulated.get();
  } else if (c.cuda_factory) {
    c.chosen_backend = c.cuda_factory();
  }
  return c.chosen_backend;
}

void UseEmulatedGpus(int n) {
  BackendChoice& c = Choice();
  std::lock_guard<std::mutex> lock(c.mu);
  c.emulated_override = n;
  // An emulated backend already made stays alive (devices may hold it);
  // the next ProcessBackend() makes a fresh choice.
  if (c.emulated) c.emulated.release();  // NOLINT: intentionally kept alive
  c.chosen = false;
  c.chosen_backend = nullptr;
}

void RegisterCudaBackendFactory(BackendFactory factory) {
  BackendChoice& c = Choice();
  std::lock_guard<std::mutex> lock(c.mu);
  c.cuda_factory = std::move(factory);
}

bool CudaBuilt() {
  BackendChoice& c = Choice();
  std::lock_guard<std::mutex> lock(c.mu);
  return static_cast<bool>(c.cuda_factory);
}

}  // namespace af::gpu
