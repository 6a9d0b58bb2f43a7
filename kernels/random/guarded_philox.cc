#include "kernels/random/guarded_philox.h"

#include <random>

namespace af::random {

namespace {

uint64_t NondeterministicSeed() {
  static std::mutex mu;
  static std::random_device device;
  std::lock_guard<std::mutex> lock(mu);
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

}  // namespace

void GuardedPhilox::Init(int64_t seed, int64_t seed2) {
  uint64_t s = static_cast<uint64_t>(seed), s2 = static_cast<uint64_t>(seed2);
  if (s == 0 && s2 == 0) {
    s = NondeterministicSeed();
    s2 = NondeterministicSeed();
  }
  stream_ = PhiloxStream(s, s2);
  next_block_ = 0;
}

Status GuardedPhilox::Init(OpKernelConstruction* ctx) {
  int64_t seed = 0, seed2 = 0;
  AF_RETURN_IF_ERROR(ctx->GetAttr("seed", &seed));
  AF_RETURN_IF_ERROR(ctx->GetAttr("seed2", &seed2));
  Init(seed, seed2);
  return Status::OK();
}

}  // namespace af::random
