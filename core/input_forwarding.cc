#include "core/input_forwarding.h"

#include <cstdlib>
#include <string_view>

namespace af {

bool InputForwardingEnabled() {
  static const bool enabled = [] {
    const char* env = std::getenv("ACTORFLOW_FORWARD_INPUTS");
    return env == nullptr || std::string_view(env) != "0";
  }();
  return enabled;
}

Status ForwardInputOrAllocateOutput(OpKernelContext* ctx, std::initializer_list<int> candidates,
                                    int out, const TensorShape& shape, Tensor** result,
                                    int* forwarded) {
  if (forwarded != nullptr) *forwarded = -1;
  const bool valid_out = out >= 0 && out < ctx->num_outputs();
  const DataType dtype = valid_out ? BaseType(ctx->expected_output_dtype(out)) : DT_INVALID;
  if (valid_out && dtype != DT_STRING && InputForwardingEnabled()) {
    OpKernelContext::Params* params = ctx->params();
    for (int in : candidates) {
      if (in < 0 || in >= ctx->num_inputs()) continue;
      const TensorValue& value = params->inputs[in];
      if (!value.has_value || value.is_ref()) continue;
      const Tensor& t = value.tensor;
      const TensorBuffer* buffer = t.buffer().get();
      // The slot's own reference is the only one, and the buffer is not a
      // window into a larger one that others may hold.
      if (buffer == nullptr || t.dtype() != dtype || t.NumElements() != shape.num_elements() ||
          buffer->root() != buffer || !buffer->RefCountIsOne() ||
          buffer->allocator() != ctx->AllocatorFor(dtype)) {
        continue;
      }
      TensorValue& v = params->outputs[out];
      v.Clear();
      v.tensor = Tensor(dtype, shape, t.buffer());
      v.has_value = true;
      *result = &v.tensor;
      if (forwarded != nullptr) *forwarded = in;
      return Status::OK();
    }
  }
  return ctx->allocate_output(out, shape, result);
}

}  // namespace af
