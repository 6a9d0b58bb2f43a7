// Gradient functions register themselves from static initializers in
// client/gradients/*.cc. af_client is an ordinary static library, so the
// registry calls one empty function per file to make the linker keep them.
#pragma once

namespace af::grad_link {
void ArrayGrad();
void MathGrad();
void MathExtraGrad();
void NnGrad();
void TensorArrayGrad();
void ControlFlowGrad();
void SparseGrad();
void FunctionGrad();
void ResourceVariableGrad();
}  // namespace af::grad_link
