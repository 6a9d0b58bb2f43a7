// ArgMax and ArgMin: the index of the largest / smallest element along one
// dimension. Ties go to the first occurrence; NaN counts as larger (ArgMax)
// or smaller (ArgMin) than every number, so the first NaN wins, as NumPy's.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/eigen_core.h"
#include "kernels/math/intra_op_parallel.h"

namespace af {

namespace {

template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    (void)v;
    return false;
  }
}

struct Greatest {
  template <typename T>
  static bool Better(T candidate, T best) {
    return candidate > best || (IsNan(candidate) && !IsNan(best));
  }
};
struct Least {
  template <typename T>
  static bool Better(T candidate, T best) {
    return candidate < best || (IsNan(candidate) && !IsNan(best));
  }
};

// Columns scanned together when the dimension is not the innermost.
constexpr int64_t kColumnChunk = 256;

template <typename T, typename Index, typename Order>
class ArgReductionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& dimension = ctx->input(1);
    OP_REQUIRES(ctx, dimension.dims() == 0,
                ctx->NodeError(errors::InvalidArgument(
                    "dim must be a scalar, but received tensor of shape: ",
                    dimension.shape().DebugString())));
    int64_t dim = 0;
    switch (dimension.dtype()) {
      case DT_INT16: dim = dimension.scalar<int16_t>(); break;
      case DT_INT32: dim = dimension.scalar<int32_t>(); break;
      case DT_INT64: dim = dimension.scalar<int64_t>(); break;
      default:
        ctx->SetStatus(ctx->NodeError(errors::InvalidArgument(
            "dimension must be int16, int32 or int64, not ", DataTypeString(dimension.dtype()))));
        return;
    }
    const int rank = input.dims();
    const int64_t axis = dim < 0 ? dim + rank : dim;
    OP_REQUIRES(ctx, axis >= 0 && axis < rank,
                ctx->NodeError(errors::InvalidArgument("Expected dimension in the range [", -rank,
                                                       ", ", rank, "), but got ", dim)));
    const int64_t rows = input.dim_size(static_cast<int>(axis));
    OP_REQUIRES(ctx, rows > 0,
                ctx->NodeError(errors::InvalidArgument("Reduction axis ", dim,
                                                       " is empty in shape ",
                                                       input.shape().DebugString())));
    TensorShape out_shape = input.shape();
    out_shape.RemoveDim(static_cast<int>(axis));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;

    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= input.dim_size(d);
    for (int d = static_cast<int>(axis) + 1; d < rank; ++d) inner *= input.dim_size(d);
    const T* in = input.data<T>();
    Index* idx = out->data<Index>();
    if (inner == 1) {
      ShardedFor(ctx, outer, rows, [=](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; ++o) idx[o] = ScanRun(in + o * rows, rows);
      });
      return;
    }
    // Walk rows in order, keeping the best value per column in a small
    // buffer, so the input streams contiguously.
    const int64_t chunks = (inner + kColumnChunk - 1) / kColumnChunk;
    ShardedFor(ctx, outer * chunks, rows * std::min(inner, kColumnChunk),
               [=](int64_t begin, int64_t end) {
                 T best[kColumnChunk];
                 for (int64_t u = begin; u < end; ++u) {
                   const int64_t o = u / chunks, c0 = (u % chunks) * kColumnChunk;
                   const int64_t width = std::min(kColumnChunk, inner - c0);
                   const T* base = in + o * rows * inner + c0;
                   Index* out_idx = idx + o * inner + c0;
                   for (int64_t c = 0; c < width; ++c) {
                     best[c] = base[c];
                     out_idx[c] = 0;
                   }
                   for (int64_t r = 1; r < rows; ++r) {
                     const T* row = base + r * inner;
                     for (int64_t c = 0; c < width; ++c) {
                       if (Order::Better(row[c], best[c])) {
                         best[c] = row[c];
                         out_idx[c] = static_cast<Index>(r);
                       }
                     }
                   }
                 }
               });
  }

 private:
  // Index of the best of x[0..n), n > 0. Numbers: the best value by a
  // vectorized NaN-propagating max/min, then its first occurrence.
  static Index ScanRun(const T* x, int64_t n) {
    if constexpr (std::is_same_v<T, bool>) {
      // ArgMax finds the first true, ArgMin the first false (else 0).
      const bool want = std::is_same_v<Order, Greatest>;
      const T* hit = std::find(x, x + n, want);
      return static_cast<Index>(hit == x + n ? 0 : hit - x);
    } else {
      const Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> run(x, n);
      T best;
      if constexpr (std::is_floating_point_v<T>) {
        best = std::is_same_v<Order, Greatest> ? run.template maxCoeff<Eigen::PropagateNaN>()
                                               : run.template minCoeff<Eigen::PropagateNaN>();
      } else {
        best = std::is_same_v<Order, Greatest> ? run.maxCoeff() : run.minCoeff();
      }
      int64_t i = 0;
      if (IsNan(best)) {
        while (!IsNan(x[i])) ++i;
      } else {
        while (x[i] != best) ++i;
      }
      return static_cast<Index>(i);
    }
  }
};

}  // namespace

#define AF_REGISTER_ARG_OP(OP, ORDER, T, INDEX)                                \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder(OP)                                 \
                              .Device(DEVICE_CPU)                              \
                              .TypeConstraint<T>("T")                          \
                              .TypeConstraint<INDEX>("output_type")            \
                              .Expensive(),                                    \
                          ArgReductionOp<T, INDEX, ORDER>)
#define AF_REGISTER_ARG_OPS(T)                              \
  AF_REGISTER_ARG_OP("ArgMax", Greatest, T, int32_t);       \
  AF_REGISTER_ARG_OP("ArgMax", Greatest, T, int64_t);       \
  AF_REGISTER_ARG_OP("ArgMin", Least, T, int32_t);          \
  AF_REGISTER_ARG_OP("ArgMin", Least, T, int64_t)
AF_REGISTER_ARG_OPS(float);
AF_REGISTER_ARG_OPS(double);
AF_REGISTER_ARG_OPS(int32_t);
AF_REGISTER_ARG_OPS(int64_t);
AF_REGISTER_ARG_OPS(uint8_t);
AF_REGISTER_ARG_OPS(int8_t);
AF_REGISTER_ARG_OPS(int16_t);
AF_REGISTER_ARG_OPS(bool);
#undef AF_REGISTER_ARG_OPS
#undef AF_REGISTER_ARG_OP

}  // namespace af
