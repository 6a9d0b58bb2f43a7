// The shape of Transpose on any device: perm (a host vector, input 1) read
// and checked to be a permutation of the input's dims, the output shape and
// the input seen in output order, with TensorFlow's errors (naming the
// node).
#pragma once

#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/strided_copy.h"

namespace af {

struct TransposeShape {
  DimVector perm;
  TensorShape output;  // output dim i = input dim perm[i]
  DimVector dims;      // = output's dims
  DimVector strides;   // input element stride of output dim i (of input dim perm[i])
};

inline Status ComputeTransposeShape(OpKernelContext* ctx, const Tensor& in, TransposeShape* out) {
  DimVector& perm = out->perm;
  AF_RETURN_IF_ERROR(IntVectorInput(ctx, 1, "perm", &perm));
  const int rank = in.dims();
  if (perm.size() != rank)
    return ctx->NodeError(errors::InvalidArgument("transpose expects a vector of size ", rank,
                                                  ". But input(1) is a vector of size ",
                                                  perm.size()));
  for (int i = 0; i < rank; ++i) {
    if (perm[i] < 0 || perm[i] >= rank)
      return ctx->NodeError(errors::InvalidArgument("perm[", i, "] = ", perm[i],
                                                    " is out of range [0, ", rank, ")"));
    for (int j = 0; j < i; ++j)
      if (perm[j] == perm[i])
        return ctx->NodeError(errors::InvalidArgument("perm is not a permutation: ", perm[i],
                                                      " appears at both perm[", j, "] and perm[",
                                                      i, "]"));
  }
  const DimVector in_strides = DenseStrides(in.shape());
  out->output = TensorShape();
  out->dims.clear();
  out->strides.clear();
  for (int i = 0; i < rank; ++i) {
    const int p = static_cast<int>(perm[i]);
    out->output.AddDim(in.dim_size(p));
    out->dims.push_back(in.dim_size(p));
    out->strides.push_back(in_strides[p]);
  }
  return Status::OK();
}

}  // namespace af
