// The check and sizes of Softmax and LogSoftmax, on any device: the logits
// viewed as [rows, depth], depth their last dim.
#pragma once

#include <cstdint>

#include "core/status.h"

namespace af {

class OpKernelContext;
class Tensor;

// The check of input 0 (logits), its error naming the node; then output 0
// allocated with the logits' shape. *rows is 0 when the logits are empty.
Status PrepareSoftmax(OpKernelContext* ctx, int64_t* rows, int64_t* depth, Tensor** out);

}  // namespace af
