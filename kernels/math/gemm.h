// One dense matrix product on row-major buffers, shared by MatMul and the
// batched matmuls: float goes to oneDNN's sgemm, the other types to Eigen's
// product on mapped buffers.
#pragma once

#include <oneapi/dnnl/dnnl.h>

#include <cstdint>
#include <type_traits>

#include "core/status.h"
#include "kernels/eigen_core.h"

namespace af {

template <typename T>
using RowMajorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// out (m x n) = op(a) * op(b), where op(a) is m x k and op(b) is k x n; a and
// b are stored row-major untransposed; k > 0.
template <typename T>
Status Gemm(bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k, const T* a,
            const T* b, T* out) {
  if constexpr (std::is_same_v<T, float>) {
    const dnnl_dim_t lda = transpose_a ? m : k;
    const dnnl_dim_t ldb = transpose_b ? k : n;
    const dnnl_status_t s = dnnl_sgemm(transpose_a ? 'T' : 'N', transpose_b ? 'T' : 'N', m, n, k,
                                       1.0f, a, lda, b, ldb, 0.0f, out, n);
    if (s != dnnl_success)
      return errors::Internal("oneDNN sgemm failed with status ", static_cast<int>(s));
    return Status::OK();
  } else {
    using Matrix = RowMajorMatrix<T>;
    Eigen::Map<const Matrix> ma(a, transpose_a ? k : m, transpose_a ? m : k);
    Eigen::Map<const Matrix> mb(b, transpose_b ? n : k, transpose_b ? k : n);
    Eigen::Map<Matrix> mc(out, m, n);
    if (transpose_a && transpose_b) {
      mc.noalias() = ma.transpose() * mb.transpose();
    } else if (transpose_a) {
      mc.noalias() = ma.transpose() * mb;
    } else if (transpose_b) {
      mc.noalias() = ma * mb.transpose();
    } else {
      mc.noalias() = ma * mb;
    }
    return Status::OK();
  }
}

}  // namespace af
