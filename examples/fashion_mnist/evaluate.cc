#include "examples/fashion_mnist/evaluate.h"

#include <algorithm>
#include <vector>

namespace af::fmnist {

Status EvaluateAccuracy(const ClientSession& session, const Output& images_in,
                        const Output& labels_in, const Output& num_correct, const Tensor& images,
                        const Tensor& labels, double* accuracy) {
  constexpr int64_t kEvalBatch = 1000;
  const int64_t n = images.dim_size(0);
  if (n == 0) return errors::InvalidArgument("evaluation: no examples");
  double correct = 0;
  std::vector<Tensor> out;
  for (int64_t start = 0; start < n; start += kEvalBatch) {
    const int64_t end = std::min(n, start + kEvalBatch);
    AF_RETURN_IF_ERROR(session.Run(
        {{images_in, images.Slice(start, end)}, {labels_in, labels.Slice(start, end)}},
        {num_correct}, &out));
    correct += out[0].scalar<float>();
  }
  *accuracy = correct / static_cast<double>(n);
  return Status::OK();
}

}  // namespace af::fmnist
