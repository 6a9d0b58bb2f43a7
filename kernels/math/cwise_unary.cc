// Unary arithmetic: Neg, Square.
#include "kernels/math/cwise_op_kernels.h"

namespace af {

#define AF_REGISTER_UNARY(OP, FUNCTOR)                        \
  AF_REGISTER_CWISE_CPU(OP, UnaryOpKernel, FUNCTOR, float);   \
  AF_REGISTER_CWISE_CPU(OP, UnaryOpKernel, FUNCTOR, double);  \
  AF_REGISTER_CWISE_CPU(OP, UnaryOpKernel, FUNCTOR, int32_t); \
  AF_REGISTER_CWISE_CPU(OP, UnaryOpKernel, FUNCTOR, int64_t)

AF_REGISTER_UNARY("Neg", functor::Neg);
AF_REGISTER_UNARY("Square", functor::Square);
#undef AF_REGISTER_UNARY

}  // namespace af
