// Relu: max(features, 0) element-wise.
#include "kernels/math/cwise_op_kernels.h"

namespace af {

AF_REGISTER_CWISE_CPU("Relu", UnaryOpKernel, functor::Relu, float);
AF_REGISTER_CWISE_CPU("Relu", UnaryOpKernel, functor::Relu, double);
AF_REGISTER_CWISE_CPU("Relu", UnaryOpKernel, functor::Relu, int32_t);
AF_REGISTER_CWISE_CPU("Relu", UnaryOpKernel, functor::Relu, int64_t);

}  // namespace af
