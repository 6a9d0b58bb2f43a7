// SparseSegmentSum, SparseSegmentMean, SparseSegmentSqrtN (and their
// WithNumSegments forms): output[s] = the sum of data[indices[j]] over the
// j with segment_ids[j] == s, divided by 1, the segment's row count n or
// sqrt(n); segments nobody names are zero. Their *Grad ops send each
// gradient row back: output[indices[j]] += grad[segment_ids[j]] with the
// same divisor.
//
// segment_ids must be sorted, as TensorFlow requires: each segment is then
// one run of j, summed in one pass with no per-segment counters.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/segment_ids.h"

namespace af {
namespace {

enum class Reduction { kSum, kMean, kSqrtN };

// 1 / the divisor of a segment of n rows (n > 0).
template <typename T>
T SegmentScale(Reduction r, int64_t n) {
  if (r == Reduction::kMean) return static_cast<T>(1.0 / static_cast<double>(n));
  if (r == Reduction::kSqrtN) return static_cast<T>(1.0 / std::sqrt(static_cast<double>(n)));
  return T{1};
}

// Calls fn(ElementTag<A>{}, ElementTag<B>{}) with the C++ types of two
// int32-or-int64 dtypes (indices and segment_ids).
template <typename Fn>
void VisitIndexPair(DataType a, DataType b, Fn&& fn) {
  auto second = [&](auto first) {
    if (BaseType(b) == DT_INT32)
      fn(first, ElementTag<int32_t>{});
    else
      fn(first, ElementTag<int64_t>{});
  };
  if (BaseType(a) == DT_INT32)
    second(ElementTag<int32_t>{});
  else
    second(ElementTag<int64_t>{});
}

// The checks the forward ops and the *Grad ops share: `rows` (input 0)
// at least a vector, indices (1) and segment_ids (2) vectors of one length.
Status CheckSegmentVectors(OpKernelContext* ctx, const char* rows_name) {
  const Tensor& rows = ctx->input(0);
  const Tensor& indices = ctx->input(1);
  const Tensor& ids = ctx->input(2);
  if (rows.dims() < 1)
    return ctx->NodeError(errors::InvalidArgument(rows_name, " must be at least 1-D, got shape ",
                                                  rows.shape().DebugString()));
  if (indices.dims() != 1)
    return ctx->NodeError(errors::InvalidArgument("indices should be a vector, got shape ",
                                                  indices.shape().DebugString()));
  if (ids.dims() != 1)
    return ctx->NodeError(errors::InvalidArgument("segment_ids should be a vector, got shape ",
                                                  ids.shape().DebugString()));
  if (ids.NumElements() != indices.NumElements())
    return ctx->NodeError(
        errors::InvalidArgument("segment_ids and indices should have same size, got ",
                                ids.NumElements(), " and ", indices.NumElements()));
  return Status::OK();
}

// [dim0] + rows.shape[1:], refused (not wrapped) when a huge segment id
// would make its element count overflow.
Status WithDim0(OpKernelContext* ctx, const TensorShape& rows, int64_t dim0, TensorShape* out) {
  std::vector<int64_t> dims = rows.dim_vector();
  dims[0] = dim0;
  return ctx->NodeError(TensorShape::Build(dims, out));
}

template <typename T>
class SparseSegmentReductionOp : public OpKernel {
 public:
  SparseSegmentReductionOp(OpKernelConstruction* ctx, Reduction r) : OpKernel(ctx), r_(r) {
    has_num_segments_ = ctx->num_inputs() == 4;
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, CheckSegmentVectors(ctx, "data"));
    const Tensor& indices = ctx->input(1);
    const Tensor& ids = ctx->input(2);
    Status status;
    VisitIndexPair(indices.dtype(), ids.dtype(), [&](auto index, auto segment) {
      using I = typename decltype(index)::type;
      using S = typename decltype(segment)::type;
      status = Reduce<I, S>(ctx);
    });
    OP_REQUIRES(ctx, status.ok(), status);
  }

 private:
  template <typename Index, typename Segment>
  Status Reduce(OpKernelContext* ctx) {
    const Tensor& data = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& ids = ctx->input(2);
    const int64_t n = indices.NumElements();
    const Index* idx = indices.data<Index>();
    const Segment* seg = ids.data<Segment>();
    // The last id + 1, which int64's largest id would wrap.
    const int64_t last = n == 0 ? -1 : static_cast<int64_t>(seg[n - 1]);
    if (!has_num_segments_ && last == std::numeric_limits<int64_t>::max())
      return SegmentIdOutOfRange(ctx, ids, n - 1, last, last);
    int64_t num_rows = last + 1;
    if (has_num_segments_) {
      AF_RETURN_IF_ERROR(IntScalarInput(ctx, 3, "num_segments", &num_rows));
      if (num_rows < 0)
        return ctx->NodeError(
            errors::InvalidArgument("Input num_segments == ", num_rows, " must not be negative."));
    }
    // Sorted and in range, checked before anything is written: the first
    // id bounds them all from below, so only it can be negative.
    const int64_t data_rows = data.dim_size(0);
    for (int64_t j = 0; j < n; ++j) {
      const auto s = static_cast<int64_t>(seg[j]);
      if (j == 0 && s < 0)
        return ctx->NodeError(
            errors::InvalidArgument("segment_ids[0] = ", s, " must not be negative"));
      if (j > 0 && s < static_cast<int64_t>(seg[j - 1]))
        return ctx->NodeError(errors::InvalidArgument(
            "segment_ids[", j, "] = ", s, " is below segment_ids[", j - 1, "] = ", seg[j - 1],
            ": segment ids must be sorted (non-decreasing)"));
      // Without num_segments the rows end at the last id: sorted ids fit.
      if (has_num_segments_ && s >= num_rows) return SegmentIdOutOfRange(ctx, ids, j, s, num_rows);
      const auto row = static_cast<int64_t>(idx[j]);
      if (row < 0 || row >= data_rows)
        return ctx->NodeError(
            errors::InvalidArgument("indices[", j, "] = ", row, " is not in [0, ", data_rows, ")"));
    }
    TensorShape out_shape;
    AF_RETURN_IF_ERROR(WithDim0(ctx, data.shape(), num_rows, &out_shape));
    Tensor* out = nullptr;
    AF_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    T* o = out->data<T>();
    std::fill_n(o, out->NumElements(), T{});
    const int64_t inner = DimProduct(data.shape(), 1, data.dims());
    const T* in = data.data<T>();
    for (int64_t begin = 0; begin < n;) {
      const Segment s = seg[begin];
      int64_t end = begin;
      T* dst = o + static_cast<int64_t>(s) * inner;
      for (; end < n && seg[end] == s; ++end) {
        const T* src = in + static_cast<int64_t>(idx[end]) * inner;
        for (int64_t i = 0; i < inner; ++i) dst[i] += src[i];
      }
      if (r_ != Reduction::kSum) {
        const T scale = SegmentScale<T>(r_, end - begin);
        for (int64_t i = 0; i < inner; ++i) dst[i] *= scale;
      }
      begin = end;
    }
    return Status::OK();
  }

  Reduction r_;
  bool has_num_segments_ = false;
};

// SparseSegment{Sum,Mean,SqrtN}Grad(grad, indices, segment_ids,
// output_dim0). segment_ids need not be sorted here (TensorFlow's do not):
// segment sizes are counted first.
template <typename T>
class SparseSegmentGradOp : public OpKernel {
 public:
  SparseSegmentGradOp(OpKernelConstruction* ctx, Reduction r) : OpKernel(ctx), r_(r) {}

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, CheckSegmentVectors(ctx, "grad"));
    const Tensor& indices = ctx->input(1);
    const Tensor& ids = ctx->input(2);
    Status status;
    VisitIndexPair(indices.dtype(), ids.dtype(), [&](auto index, auto segment) {
      using I = typename decltype(index)::type;
      using S = typename decltype(segment)::type;
      status = Scatter<I, S>(ctx);
    });
    OP_REQUIRES(ctx, status.ok(), status);
  }

 private:
  template <typename Index, typename Segment>
  Status Scatter(OpKernelContext* ctx) {
    const Tensor& grad = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& ids = ctx->input(2);
    int64_t dim0 = 0;
    AF_RETURN_IF_ERROR(IntScalarInput(ctx, 3, "output_dim0", &dim0));
    if (dim0 < 0)
      return ctx->NodeError(
          errors::InvalidArgument("output_dim0 = ", dim0, " must not be negative"));
    const int64_t n = indices.NumElements();
    const int64_t num_segments = grad.dim_size(0);
    const Index* idx = indices.data<Index>();
    const Segment* seg = ids.data<Segment>();
    std::vector<int64_t> counts;
    if (r_ != Reduction::kSum) counts.assign(static_cast<size_t>(num_segments), 0);
    for (int64_t j = 0; j < n; ++j) {
      const auto s = static_cast<int64_t>(seg[j]);
      if (s < 0 || s >= num_segments) return SegmentIdOutOfRange(ctx, ids, j, s, num_segments);
      const auto row = static_cast<int64_t>(idx[j]);
      if (row < 0 || row >= dim0)
        return ctx->NodeError(
            errors::InvalidArgument("indices[", j, "] = ", row, " is not in [0, ", dim0, ")"));
      if (!counts.empty()) ++counts[static_cast<size_t>(s)];
    }
    TensorShape out_shape;
    AF_RETURN_IF_ERROR(WithDim0(ctx, grad.shape(), dim0, &out_shape));
    Tensor* out = nullptr;
    AF_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    T* o = out->data<T>();
    std::fill_n(o, out->NumElements(), T{});
    const int64_t inner = DimProduct(grad.shape(), 1, grad.dims());
    const T* g = grad.data<T>();
    for (int64_t j = 0; j < n; ++j) {
      const auto s = static_cast<int64_t>(seg[j]);
      const T scale = counts.empty() ? T{1} : SegmentScale<T>(r_, counts[static_cast<size_t>(s)]);
      const T* src = g + s * inner;
      T* dst = o + static_cast<int64_t>(idx[j]) * inner;
      for (int64_t i = 0; i < inner; ++i) dst[i] += src[i] * scale;
    }
    return Status::OK();
  }

  Reduction r_;
};

template <typename T, Reduction kR>
void RegisterForward(const std::string& op) {
  for (const std::string& name : {op, op + "WithNumSegments"}) {
    KernelDefBuilder b(name);
    b.Device(DEVICE_CPU).TypeConstraint<T>("T").Expensive();
    if (name != op) b.HostMemory("num_segments");
    KernelRegistry::Global()->Register(b, [](OpKernelConstruction* c) -> OpKernel* {
      return new SparseSegmentReductionOp<T>(c, kR);
    });
  }
}

template <typename T, Reduction kR>
void RegisterGrad(const std::string& op) {
  KernelRegistry::Global()->Register(
      KernelDefBuilder(op + "Grad")
          .Device(DEVICE_CPU)
          .TypeConstraint<T>("T")
          .HostMemory("output_dim0")
          .Expensive(),
      [](OpKernelConstruction* c) -> OpKernel* { return new SparseSegmentGradOp<T>(c, kR); });
}

template <typename T>
void RegisterFloating() {
  RegisterForward<T, Reduction::kSum>("SparseSegmentSum");
  RegisterForward<T, Reduction::kMean>("SparseSegmentMean");
  RegisterForward<T, Reduction::kSqrtN>("SparseSegmentSqrtN");
  RegisterGrad<T, Reduction::kSum>("SparseSegmentSum");
  RegisterGrad<T, Reduction::kMean>("SparseSegmentMean");
  RegisterGrad<T, Reduction::kSqrtN>("SparseSegmentSqrtN");
}

[[maybe_unused]] const bool kRegistered = [] {
  RegisterFloating<float>();
  RegisterFloating<double>();
  RegisterForward<int32_t, Reduction::kSum>("SparseSegmentSum");
  RegisterForward<int64_t, Reduction::kSum>("SparseSegmentSum");
  return true;
}();

}  // namespace
}  // namespace af
