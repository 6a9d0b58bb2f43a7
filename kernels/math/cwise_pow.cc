// Pow: broadcasting x ** y.
#include "kernels/math/cwise_op_kernels.h"

namespace af {

AF_REGISTER_CWISE_CPU("Pow", BinaryOpKernel, functor::Pow, float);
AF_REGISTER_CWISE_CPU("Pow", BinaryOpKernel, functor::Pow, double);
AF_REGISTER_CWISE_CPU("Pow", BinaryOpKernel, functor::Pow, int32_t);
AF_REGISTER_CWISE_CPU("Pow", BinaryOpKernel, functor::Pow, int64_t);

}  // namespace af
