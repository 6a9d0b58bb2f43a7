// Broadcasting comparisons producing bool: Less, LessEqual, Greater,
// GreaterEqual, Equal, NotEqual.
#include "kernels/math/cwise_op_kernels.h"

namespace af {

#define AF_REGISTER_COMPARISON(OP, FUNCTOR)                    \
  AF_REGISTER_CWISE_CPU(OP, BinaryOpKernel, FUNCTOR, float);   \
  AF_REGISTER_CWISE_CPU(OP, BinaryOpKernel, FUNCTOR, double);  \
  AF_REGISTER_CWISE_CPU(OP, BinaryOpKernel, FUNCTOR, int32_t); \
  AF_REGISTER_CWISE_CPU(OP, BinaryOpKernel, FUNCTOR, int64_t)

AF_REGISTER_COMPARISON("Less", functor::Less);
AF_REGISTER_COMPARISON("LessEqual", functor::LessEqual);
AF_REGISTER_COMPARISON("Greater", functor::Greater);
AF_REGISTER_COMPARISON("GreaterEqual", functor::GreaterEqual);
AF_REGISTER_COMPARISON("Equal", functor::EqualTo);
AF_REGISTER_COMPARISON("NotEqual", functor::NotEqualTo);
#undef AF_REGISTER_COMPARISON

// Equality is also defined on bools (masks compared against masks).
AF_REGISTER_CWISE_CPU("Equal", BinaryOpKernel, functor::EqualTo, bool);
AF_REGISTER_CWISE_CPU("NotEqual", BinaryOpKernel, functor::NotEqualTo, bool);

}  // namespace af
