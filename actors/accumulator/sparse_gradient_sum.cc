#include "actors/accumulator/sparse_gradient_sum.h"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "actors/accumulator/sum_type.h"
#include "core/allocator.h"

namespace af::actors {
namespace {

int64_t RowWidth(const TensorShape& values_shape) {
  int64_t width = 1;
  for (int d = 1; d < values_shape.dims(); ++d) width *= values_shape.dim_size(d);
  return width;
}

template <typename T>
class SparseGradientSum final : public GradientSum {
  using Sum = SumType<T>;
  using S = typename Sum::type;

 public:
  explicit SparseGradientSum(const AccumulatorSpec& spec) : spec_(spec) {}

  Status Add(const AccumulatorGradient& gradient) override {
    AF_RETURN_IF_ERROR(Check(gradient));
    if (count_ == 0) values_shape_ = gradient.values.shape();
    Merge(gradient.indices, gradient.values);
    ++count_;
    return Status::OK();
  }

  Status Take(AccumulatorGradient* out) override {
    const int64_t nnz = static_cast<int64_t>(indices_.size());
    const int64_t width = RowWidth(values_shape_);
    TensorShape values_shape = values_shape_;
    values_shape.set_dim(0, nnz);
    AccumulatorGradient result;
    Allocator* cpu = GetCpuAllocator();
    AF_RETURN_IF_ERROR(Tensor::Allocate(cpu, DT_INT64, TensorShape{nnz}, &result.indices));
    AF_RETURN_IF_ERROR(Tensor::Allocate(cpu, spec_.dtype, values_shape, &result.values));
    AF_RETURN_IF_ERROR(Tensor::Allocate(cpu, DT_INT64, TensorShape{values_shape_.dims()},
                                        &result.shape));
    std::copy(indices_.begin(), indices_.end(), result.indices.data<int64_t>());
    const bool mean = spec_.reduction == AccumulatorSpec::Reduction::kMean;
    T* values = result.values.data<T>();
    for (int64_t r = 0; r < nnz; ++r) {
      const S divisor = static_cast<S>(counts_[r]);
      const S* row = rows_.data() + r * width;
      T* to = values + r * width;
      for (int64_t c = 0; c < width; ++c) to[c] = Sum::Store(mean ? row[c] / divisor : row[c]);
    }
    // TensorFlow's dense shape: the first dim from the attr (-1 if it has
    // none), the others from the values.
    int64_t* shape = result.shape.data<int64_t>();
    shape[0] = spec_.shape.dims() > 0 ? spec_.shape.dim_size(0) : -1;
    for (int d = 1; d < values_shape_.dims(); ++d) shape[d] = values_shape_.dim_size(d);
    indices_.clear();
    counts_.clear();
    rows_.clear();
    count_ = 0;
    *out = std::move(result);
    return Status::OK();
  }

 private:
  // TensorFlow's checks and messages, in its order, plus negative indices
  // (which TensorFlow lets through).
  Status Check(const AccumulatorGradient& g) const {
    const Tensor& indices = g.indices;
    const Tensor& values = g.values;
    if (indices.dtype() != DT_INT64 || !indices.IsInitialized())
      return errors::InvalidArgument("gradient_indices must be int64, got ",
                                     DataTypeString(indices.dtype()));
    if (values.dtype() != spec_.dtype || !values.IsInitialized())
      return errors::InvalidArgument("expected ", DataTypeString(spec_.dtype),
                                     " gradient_values, got ", DataTypeString(values.dtype()));
    if (indices.dims() != 1)
      return errors::InvalidArgument("Input indices should be vector but received shape: ",
                                     indices.shape().DebugString());
    const int64_t nnz = indices.dim_size(0);
    if (values.dims() == 0) return errors::InvalidArgument("Values cannot be 0-dimensional.");
    if (values.dim_size(0) != nnz)
      return errors::InvalidArgument("Expected ", nnz, " non-empty input values, got ",
                                     values.dim_size(0));
    const int rank = spec_.shape.dims();  // -1: unknown, nothing to check
    if (g.has_known_shape) {
      const Tensor& shape = g.shape;
      if (shape.dtype() != DT_INT64 || !shape.IsInitialized())
        return errors::InvalidArgument("gradient_shape must be int64, got ",
                                       DataTypeString(shape.dtype()));
      if (rank > shape.NumElements())
        return errors::InvalidArgument("Shape mismatch: expected shape rank at least ", rank,
                                       ", got ", shape.NumElements());
      const int64_t* dims = shape.data<int64_t>();
      for (int d = 0; d < rank; ++d) {
        if (spec_.shape.dim_size(d) != -1 && spec_.shape.dim_size(d) != dims[d])
          return errors::InvalidArgument("Shape mismatch: expected shape dim ", d, " to be ",
                                         spec_.shape.dim_size(d), ", got ", dims[d]);
      }
    }
    const int64_t* idx = indices.data<int64_t>();
    const int64_t limit = rank > 0 ? spec_.shape.dim_size(0) : -1;
    for (int64_t i = 0; i < nnz; ++i) {
      if (idx[i] < 0)
        return errors::InvalidArgument("index of slice ", i, " is negative: ", idx[i]);
      if (limit != -1 && idx[i] >= limit)
        return errors::InvalidArgument("Shape mismatch: index of slice ", i,
                                       " exceeded limits of shape; index is ", idx[i],
                                       " exceeded ", limit);
    }
    if (count_ > 0) {
      if (values.dims() != values_shape_.dims())
        return errors::InvalidArgument("Shape mismatch: expected values rank ",
                                       values_shape_.dims(), ", got ", values.dims());
      for (int d = 1; d < values.dims(); ++d) {
        if (values.dim_size(d) != values_shape_.dim_size(d))
          return errors::InvalidArgument("Shape mismatch: expected values dim ", d, " to be ",
                                         values_shape_.dim_size(d), ", got ", values.dim_size(d));
      }
    } else {
      if (rank > values.dims())
        return errors::InvalidArgument("Shape mismatch: expected values rank at least ", rank,
                                       ", got ", values.dims());
      for (int d = 1; d < rank; ++d) {
        if (spec_.shape.dim_size(d) != -1 && spec_.shape.dim_size(d) != values.dim_size(d))
          return errors::InvalidArgument("Shape mismatch: expected values dim ", d, " to be ",
                                         spec_.shape.dim_size(d), ", got ", values.dim_size(d));
      }
    }
    return Status::OK();
  }

  // Merges the gradient's rows, grouped by index, into the sorted rows
  // held. Held rows come first in every sum, then the gradient's in its
  // order, so sorted unique input adds exactly as TensorFlow does.
  void Merge(const Tensor& indices, const Tensor& values) {
    const int64_t nnz = indices.dim_size(0);
    const int64_t width = RowWidth(values_shape_);
    const int64_t* idx = indices.data<int64_t>();
    const T* in = values.data<T>();
    std::vector<int64_t> order(static_cast<size_t>(nnz));
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [idx](int64_t a, int64_t b) { return idx[a] < idx[b]; });

    std::vector<int64_t> merged_indices;
    std::vector<int32_t> merged_counts;
    std::vector<S> merged_rows;
    merged_indices.reserve(indices_.size() + order.size());
    merged_counts.reserve(indices_.size() + order.size());
    merged_rows.reserve((indices_.size() + order.size()) * static_cast<size_t>(width));
    auto copy_held = [&](size_t h) {
      const S* row = rows_.data() + h * width;
      merged_rows.insert(merged_rows.end(), row, row + width);
    };
    auto add_incoming = [&](int64_t r, S* to) {
      const T* row = in + r * width;
      for (int64_t c = 0; c < width; ++c) to[c] += Sum::Load(row[c]);
    };

    size_t h = 0, k = 0;
    while (h < indices_.size() || k < order.size()) {
      if (k == order.size() || (h < indices_.size() && indices_[h] < idx[order[k]])) {
        merged_indices.push_back(indices_[h]);
        merged_counts.push_back(counts_[h]);
        copy_held(h++);
        continue;
      }
      const int64_t index = idx[order[k]];
      const size_t at = merged_rows.size();
      if (h < indices_.size() && indices_[h] == index) {
        merged_counts.push_back(counts_[h] + 1);
        copy_held(h++);
      } else {
        merged_counts.push_back(1);
        const T* row = in + order[k++] * width;
        for (int64_t c = 0; c < width; ++c) merged_rows.push_back(Sum::Load(row[c]));
      }
      merged_indices.push_back(index);
      // Repeats of an index within the gradient join its row, once counted.
      while (k < order.size() && idx[order[k]] == index) add_incoming(order[k++], &merged_rows[at]);
    }
    indices_ = std::move(merged_indices);
    counts_ = std::move(merged_counts);
    rows_ = std::move(merged_rows);
  }

  const AccumulatorSpec spec_;
  // Held while count_ > 0: sorted unique indices, how many gradients held
  // each, and their summed rows (width = the values' inner elements).
  std::vector<int64_t> indices_;
  std::vector<int32_t> counts_;
  std::vector<S> rows_;
  TensorShape values_shape_;  // of the first gradient since the last take
};

}  // namespace

std::unique_ptr<GradientSum> MakeSparseGradientSum(const AccumulatorSpec& spec) {
  switch (spec.dtype) {
    case DT_HALF: return std::make_unique<SparseGradientSum<half>>(spec);
    case DT_FLOAT: return std::make_unique<SparseGradientSum<float>>(spec);
    case DT_DOUBLE: return std::make_unique<SparseGradientSum<double>>(spec);
    default: return nullptr;
  }
}

}  // namespace af::actors
