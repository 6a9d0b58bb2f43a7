// Unary arithmetic defined on integers and floating point: Neg, Square,
// Abs, Sign.
#include "kernels/math/cwise_op_kernels.h"

namespace af {

#define AF_REGISTER_UNARY(OP, FUNCTOR)                        \
  AF_REGISTER_CWISE_CPU(OP, UnaryOpKernel, FUNCTOR, float);   \
  AF_REGISTER_CWISE_CPU(OP, UnaryOpKernel, FUNCTOR, double);  \
  AF_REGISTER_CWISE_CPU(OP, UnaryOpKernel, FUNCTOR, int32_t); \
  AF_REGISTER_CWISE_CPU(OP, UnaryOpKernel, FUNCTOR, int64_t)

AF_REGISTER_UNARY("Neg", functor::Neg);
AF_REGISTER_UNARY("Square", functor::Square);
AF_REGISTER_UNARY("Abs", functor::Abs);
AF_REGISTER_UNARY("Sign", functor::Sign);
#undef AF_REGISTER_UNARY

}  // namespace af
