// Helpers shared by the tensor serialization tests (TensorProto and .npy):
// tensors of every type with deterministic contents, a deterministic
// byte mutator for the fuzz-style tests, and an allocator that records the
// largest request so tests can assert nothing absurd was allocated.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/allocator.h"
#include "core/tensor.h"

namespace af::test {

// splitmix64: tiny, deterministic on every platform, good enough to pick
// mutation sites.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, n); n > 0.
  uint64_t Below(uint64_t n) { return Next() % n; }

 private:
  uint64_t state_;
};

// Passes through to the CPU allocator and remembers the largest request.
class RecordingAllocator final : public Allocator {
 public:
  std::string Name() const override { return "recording"; }
  void* AllocateRaw(size_t alignment, size_t bytes) override {
    size_t seen = largest_.load();
    while (bytes > seen && !largest_.compare_exchange_weak(seen, bytes)) {
    }
    return GetCpuAllocator()->AllocateRaw(alignment, bytes);
  }
  void DeallocateRaw(void* ptr, size_t bytes) override {
    GetCpuAllocator()->DeallocateRaw(ptr, bytes);
  }
  AllocatorStats GetStats() const override { return {}; }
  size_t largest() const { return largest_.load(); }
  void Reset() { largest_ = 0; }

 private:
  std::atomic<size_t> largest_{0};
};

// Every fixed-size type with a deterministic, type-appropriate bit pattern
// (including negative values, NaN-free floats, 0/1 bools).
inline Tensor PatternTensor(DataType dtype, const TensorShape& shape, uint64_t seed = 1) {
  Tensor t(dtype, shape);
  Rng rng(seed);
  if (dtype == DT_STRING) {
    auto* s = t.data<std::string>();
    for (int64_t i = 0; i < t.NumElements(); ++i)
      s[i] = std::string(static_cast<size_t>(rng.Below(5)), static_cast<char>('a' + i % 26)) +
             std::string(1, static_cast<char>(rng.Below(256)));
    return t;
  }
  if (dtype == DT_BOOL) {
    for (int64_t i = 0; i < t.NumElements(); ++i) t.data<bool>()[i] = rng.Below(2) == 1;
    return t;
  }
  auto* bytes = static_cast<unsigned char*>(t.raw_data());
  for (size_t i = 0; i < t.TotalBytes(); ++i) bytes[i] = static_cast<unsigned char>(rng.Next());
  // Keep floating types free of NaN so value comparisons stay meaningful:
  // clear the top exponent bit of every element.
  const int elem = DataTypeSize(dtype);
  const bool floating = DataTypeIsFloating(dtype) || DataTypeIsComplex(dtype);
  if (floating) {
    const int part = DataTypeIsComplex(dtype) ? elem / 2 : elem;
    for (size_t off = 0; off + part <= t.TotalBytes(); off += part)
      bytes[off + part - 1] &= 0xbf;
  }
  return t;
}

inline bool SameTensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.dtype() == DT_STRING) {
    for (int64_t i = 0; i < a.NumElements(); ++i)
      if (a.data<std::string>()[i] != b.data<std::string>()[i]) return false;
    return true;
  }
  return a.tensor_data() == b.tensor_data();
}

// Types a tensor can hold with fixed-size elements, plus string.
inline std::vector<DataType> AllTensorTypes() {
  return {DT_FLOAT,  DT_DOUBLE, DT_INT32,  DT_UINT8,  DT_INT16,     DT_INT8,
          DT_STRING, DT_COMPLEX64, DT_INT64, DT_BOOL, DT_QINT8,    DT_QUINT8,
          DT_QINT32, DT_BFLOAT16, DT_QINT16, DT_QUINT16, DT_UINT16, DT_COMPLEX128,
          DT_HALF,   DT_UINT32, DT_UINT64};
}

// The types .npy can hold.
inline std::vector<DataType> NpyTypes() {
  return {DT_HALF,  DT_FLOAT,  DT_DOUBLE, DT_INT8,   DT_INT16,     DT_INT32,     DT_INT64,
          DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64, DT_COMPLEX64, DT_COMPLEX128, DT_BOOL};
}

inline std::string FromHex(std::string_view hex) {
  std::string out;
  auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(nibble(hex[i]) * 16 + nibble(hex[i + 1])));
  return out;
}

// One deterministic damage to `bytes`: truncation, random or "interesting"
// byte overwrites, insertion or deletion. `interesting` holds bytes likely to
// keep a text header parsable while changing its meaning.
inline std::string Mutate(const std::string& bytes, Rng& rng, std::string_view interesting) {
  if (interesting.empty()) interesting = "\x00\xff";
  std::string m = bytes;
  const uint64_t op = rng.Below(6);
  if (m.empty() || op == 0) {
    m.resize(static_cast<size_t>(rng.Below(m.size() + 1)));
    return m;
  }
  const int edits = 1 + static_cast<int>(rng.Below(4));
  for (int e = 0; e < edits && !m.empty(); ++e) {
    const size_t at = static_cast<size_t>(rng.Below(m.size()));
    switch (op) {
      case 1: m[at] = static_cast<char>(rng.Next()); break;
      case 2: m[at] = interesting[rng.Below(interesting.size())]; break;
      case 3: m.insert(m.begin() + static_cast<long>(at),
                       interesting[rng.Below(interesting.size())]); break;
      case 4: m.erase(m.begin() + static_cast<long>(at)); break;
      default:  // flip one bit, the smallest damage
        m[at] = static_cast<char>(m[at] ^ (1 << rng.Below(8)));
        break;
    }
  }
  return m;
}

}  // namespace af::test
