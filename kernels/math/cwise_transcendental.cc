// Floating-point unary ops: Sqrt, Rsqrt, Exp, Log, Log1p, Tanh, Sigmoid,
// Reciprocal and its old name Inv.
#include "kernels/math/cwise_float_functors.h"
#include "kernels/math/cwise_op_kernels.h"

namespace af {

#define AF_REGISTER_FLOAT_UNARY(OP, FUNCTOR)                \
  AF_REGISTER_CWISE_CPU(OP, UnaryOpKernel, FUNCTOR, float); \
  AF_REGISTER_CWISE_CPU(OP, UnaryOpKernel, FUNCTOR, double)

AF_REGISTER_FLOAT_UNARY("Sqrt", functor::Sqrt);
AF_REGISTER_FLOAT_UNARY("Rsqrt", functor::Rsqrt);
AF_REGISTER_FLOAT_UNARY("Exp", functor::Exp);
AF_REGISTER_FLOAT_UNARY("Log", functor::Log);
AF_REGISTER_FLOAT_UNARY("Log1p", functor::Log1p);
AF_REGISTER_FLOAT_UNARY("Tanh", functor::Tanh);
AF_REGISTER_FLOAT_UNARY("Sigmoid", functor::Sigmoid);
AF_REGISTER_FLOAT_UNARY("Reciprocal", functor::Reciprocal);
AF_REGISTER_FLOAT_UNARY("Inv", functor::Reciprocal);
#undef AF_REGISTER_FLOAT_UNARY

}  // namespace af
