// Logical ops on bool tensors: LogicalAnd and LogicalOr broadcast;
// LogicalNot is unary. They have no type attr.
#include "kernels/math/cwise_op_kernels.h"

namespace af {

REGISTER_KERNEL_BUILDER(KernelDefBuilder("LogicalAnd").Device(DEVICE_CPU),
                        BinaryOpKernel<functor::LogicalAnd>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("LogicalOr").Device(DEVICE_CPU),
                        BinaryOpKernel<functor::LogicalOr>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("LogicalNot").Device(DEVICE_CPU),
                        UnaryOpKernel<functor::LogicalNot>);

}  // namespace af
