// FloorDiv and FloorMod: division rounding toward negative infinity and its
// remainder (Python's // and %), for integers and floating point.
#include "kernels/math/cwise_op_kernels.h"

namespace af {

#define AF_REGISTER_FLOOR_OP(OP, FUNCTOR)                      \
  AF_REGISTER_CWISE_CPU(OP, BinaryOpKernel, FUNCTOR, float);   \
  AF_REGISTER_CWISE_CPU(OP, BinaryOpKernel, FUNCTOR, double);  \
  AF_REGISTER_CWISE_CPU(OP, BinaryOpKernel, FUNCTOR, int32_t); \
  AF_REGISTER_CWISE_CPU(OP, BinaryOpKernel, FUNCTOR, int64_t)

AF_REGISTER_FLOOR_OP("FloorDiv", functor::FloorDiv);
AF_REGISTER_FLOOR_OP("FloorMod", functor::FloorMod);
#undef AF_REGISTER_FLOOR_OP

}  // namespace af
