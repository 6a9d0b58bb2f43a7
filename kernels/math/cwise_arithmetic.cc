// Broadcasting arithmetic: Add, AddV2, Sub, Mul, Div, RealDiv, Maximum,
// Minimum.
#include "kernels/math/cwise_op_kernels.h"

namespace af {

#define AF_REGISTER_ARITH(OP, FUNCTOR)                         \
  AF_REGISTER_CWISE_CPU(OP, BinaryOpKernel, FUNCTOR, float);   \
  AF_REGISTER_CWISE_CPU(OP, BinaryOpKernel, FUNCTOR, double);  \
  AF_REGISTER_CWISE_CPU(OP, BinaryOpKernel, FUNCTOR, int32_t); \
  AF_REGISTER_CWISE_CPU(OP, BinaryOpKernel, FUNCTOR, int64_t)

AF_REGISTER_ARITH("Add", functor::Add);
AF_REGISTER_ARITH("AddV2", functor::Add);
AF_REGISTER_ARITH("Sub", functor::Sub);
AF_REGISTER_ARITH("Mul", functor::Mul);
AF_REGISTER_ARITH("Div", functor::Div);
AF_REGISTER_ARITH("Maximum", functor::Maximum);
AF_REGISTER_ARITH("Minimum", functor::Minimum);
#undef AF_REGISTER_ARITH

// RealDiv is floating-point division only.
AF_REGISTER_CWISE_CPU("RealDiv", BinaryOpKernel, functor::Div, float);
AF_REGISTER_CWISE_CPU("RealDiv", BinaryOpKernel, functor::Div, double);

}  // namespace af
