#include "examples/fashion_mnist/batch_sampler.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace af::fmnist {

BatchSampler::BatchSampler(const RawExamples& examples, int batch, uint64_t seed)
    : examples_(examples), batch_(batch), rng_(seed) {
  order_.resize(static_cast<size_t>(examples.pixels.dim_size(0)));
  std::iota(order_.begin(), order_.end(), 0);
  Reshuffle();
}

void BatchSampler::Reshuffle() {
  std::shuffle(order_.begin(), order_.end(), rng_);
  next_ = 0;
}

void BatchSampler::Next(Tensor* pixels, Tensor* labels) {
  const int64_t row = examples_.pixels.dim_size(1);
  *pixels = Tensor(DT_UINT8, TensorShape{batch_, row});
  *labels = Tensor(DT_INT32, TensorShape{batch_});
  const uint8_t* from_pixels = examples_.pixels.data<uint8_t>();
  const int32_t* from_labels = examples_.labels.data<int32_t>();
  uint8_t* to_pixels = pixels->data<uint8_t>();
  int32_t* to_labels = labels->data<int32_t>();
  for (int i = 0; i < batch_; ++i) {
    if (next_ == order_.size()) Reshuffle();
    const int64_t e = order_[next_++];
    std::memcpy(to_pixels + i * row, from_pixels + e * row, static_cast<size_t>(row));
    to_labels[i] = from_labels[e];
  }
}

}  // namespace af::fmnist
