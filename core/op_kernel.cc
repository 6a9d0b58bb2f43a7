#include "core/op_kernel.h"

#include <condition_variable>

#include "core/attr_value_util.h"

namespace af {

OpKernelConstruction::OpKernelConstruction(DeviceType device_type, DeviceBase* device,
                                           const tensorflow::NodeDef* node,
                                           const tensorflow::OpDef* op_def,
                                           DataTypeVector input_types,
                                           DataTypeVector output_types)
    : device_type_(std::move(device_type)),
      device_(device),
      node_(node),
      op_def_(op_def),
      input_types_(std::move(input_types)),
      output_types_(std::move(output_types)) {}

OpKernel::OpKernel(OpKernelConstruction* ctx)
    : def_(ctx->def()), input_types_(ctx->input_types()), output_types_(ctx->output_types()) {}

OpKernel::~OpKernel() = default;

void AsyncOpKernel::Compute(OpKernelContext* ctx) {
  // A latch, built so that `done` touches nothing after the waiter may have
  // returned: it notifies while holding the mutex the waiter must reacquire.
  std::mutex mu;  // guards finished
  std::condition_variable cv;
  bool finished = false;
  ComputeAsync(ctx, [&] {
    std::lock_guard<std::mutex> lock(mu);
    finished = true;
    cv.notify_one();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return finished; });
}

Status OpKernelContext::allocate_output(int i, const TensorShape& shape, Tensor** out) {
  if (i < 0 || i >= num_outputs()) {
    *out = nullptr;
    return NodeError(errors::Internal("allocate_output(", i, ") but the kernel has ",
                                      num_outputs(), " outputs"));
  }
  // A ref output carries the value type; the ref-ness is the edge's.
  const DataType dtype = BaseType(expected_output_dtype(i));
  Tensor t;
  ScopedAllocationSite site(op_kernel().type_string());
  Status s = Tensor::Allocate(AllocatorFor(dtype), dtype, shape, &t);
  if (!s.ok()) {
    *out = nullptr;
    return NodeError(errors::ResourceExhausted("cannot allocate output ", i, " of type ",
                                               DataTypeString(dtype), " and shape ",
                                               shape.DebugString(), ": ", s.message()));
  }
  TensorValue& v = params_->outputs[i];
  v.Clear();
  v.tensor = std::move(t);
  v.has_value = true;
  *out = &v.tensor;
  return Status::OK();
}

Status OpKernelContext::allocate_temp(DataType dtype, const TensorShape& shape, Tensor* out) {
  ScopedAllocationSite site(op_kernel().type_string());
  Status s = Tensor::Allocate(AllocatorFor(dtype), dtype, shape, out);
  if (s.ok()) return s;
  return NodeError(errors::ResourceExhausted("cannot allocate a temporary of type ",
                                             DataTypeString(dtype), " and shape ",
                                             shape.DebugString(), ": ", s.message()));
}

void OpKernelContext::set_output(int i, Tensor tensor) {
  TensorValue& v = params_->outputs[i];
  v.ref = nullptr;
  v.ref_mu = nullptr;
  v.tensor = std::move(tensor);
  v.has_value = true;
}

void OpKernelContext::set_output_ref(int i, std::mutex* mu, Tensor* ref) {
  TensorValue& v = params_->outputs[i];
  v.tensor = Tensor();
  v.ref = ref;
  v.ref_mu = mu;
  v.has_value = true;
}

Tensor* OpKernelContext::mutable_output(int i) {
  TensorValue& v = params_->outputs[i];
  if (!v.has_value) return nullptr;
  return v.ref ? v.ref : &v.tensor;
}

void OpKernelContext::forward_input_as_output(int in, int out) {
  const DataType have = BaseType(input_dtype(in));
  const DataType want = BaseType(expected_output_dtype(out));
  if (have != want) {
    SetStatus(NodeError(errors::Internal("cannot forward input ", in, " of type ",
                                         DataTypeString(have), " as output ", out,
                                         " of type ", DataTypeString(want))));
    return;
  }
  // Sharing the tensor shares its buffer: no copy.
  set_output(out, input(in));
}

Status OpKernelContext::NodeError(const Status& cause) const {
  return NodeStatus(params_->op_kernel->def(), cause);
}

}  // namespace af
