// Gradient helpers of the floating-point unary ops: SigmoidGrad, TanhGrad,
// SqrtGrad, RsqrtGrad, ReciprocalGrad and its old name InvGrad.
#include "kernels/math/cwise_float_functors.h"
#include "kernels/math/cwise_op_kernels.h"

namespace af {

#define AF_REGISTER_GRAD(OP, FUNCTOR)                                \
  AF_REGISTER_CWISE_CPU(OP, SameSizeBinaryOpKernel, FUNCTOR, float); \
  AF_REGISTER_CWISE_CPU(OP, SameSizeBinaryOpKernel, FUNCTOR, double)

AF_REGISTER_GRAD("SigmoidGrad", functor::SigmoidGrad);
AF_REGISTER_GRAD("TanhGrad", functor::TanhGrad);
AF_REGISTER_GRAD("SqrtGrad", functor::SqrtGrad);
AF_REGISTER_GRAD("RsqrtGrad", functor::RsqrtGrad);
AF_REGISTER_GRAD("ReciprocalGrad", functor::ReciprocalGrad);
AF_REGISTER_GRAD("InvGrad", functor::ReciprocalGrad);
#undef AF_REGISTER_GRAD

}  // namespace af
