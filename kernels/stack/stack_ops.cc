// StackV2, StackPushV2, StackPopV2 and StackCloseV2. A stack belongs to the
// step that created it (StepResources): every run of StackV2 makes a new
// one, and it is freed when the step ends.
#include <utility>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/stack/stack.h"
#include "kernels/step_resource_handles.h"

namespace af {

std::atomic<int64_t> Stack::live_{0};

Stack::Stack(DataType elem_type, int64_t max_size, std::string name)
    : elem_type_(elem_type), max_size_(max_size), name_(std::move(name)) {
  live_.fetch_add(1, std::memory_order_acq_rel);
}

Stack::~Stack() { live_.fetch_sub(1, std::memory_order_acq_rel); }

Status Stack::Push(const Tensor& value) {
  if (BaseType(value.dtype()) != elem_type_)
    return errors::InvalidArgument("Stack '", name_, "' holds ", DataTypeString(elem_type_),
                                   " elements, cannot push a ", DataTypeString(value.dtype()));
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return errors::InvalidArgument("Stack '", name_, "' has already been closed");
  if (max_size_ >= 0 && static_cast<int64_t>(elems_.size()) >= max_size_)
    return errors::InvalidArgument("Stack '", name_, "' has reached its maximum size ", max_size_);
  elems_.push_back(value);
  return Status::OK();
}

Status Stack::Pop(Tensor* value) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return errors::InvalidArgument("Stack '", name_, "' has already been closed");
  if (elems_.empty()) return errors::InvalidArgument("Stack '", name_, "' is empty: cannot pop");
  *value = std::move(elems_.back());
  elems_.pop_back();
  return Status::OK();
}

void Stack::Close() {
  std::vector<Tensor> dropped;
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  dropped.swap(elems_);
}

size_t Stack::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return elems_.size();
}

std::string Stack::DebugString() const {
  return "Stack '" + name_ + "' of " + DataTypeString(elem_type_) + " (" + std::to_string(size()) +
         " elements)";
}

namespace {

class StackOp : public OpKernel {
 public:
  explicit StackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("elem_type", &elem_type_));
    ctx->SetStatus(ctx->GetAttr("stack_name", &stack_name_));
    if (stack_name_.empty()) stack_name_ = name();
  }

  void Compute(OpKernelContext* ctx) override {
    StepResources* resources = nullptr;
    OP_REQUIRES_OK(ctx, StepResourcesOf(ctx, &resources));
    const Tensor& max_size = ctx->input(0);
    OP_REQUIRES(ctx, max_size.dims() == 0 && max_size.dtype() == DT_INT32,
                ctx->NodeError(errors::InvalidArgument("max_size must be an int32 scalar, got ",
                                                       max_size.shape().DebugString())));
    auto* stack = new Stack(elem_type_, max_size.scalar<int32_t>(), stack_name_);
    const std::string id = resources->Add(stack_name_, stack);
    ctx->set_output(0, MakeStepResourceHandle(ctx, id, Stack::kTypeName));
  }

 private:
  DataType elem_type_ = DT_INVALID;
  std::string stack_name_;
};

class StackPushOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    ResourceRef<Stack> stack;
    OP_REQUIRES_OK(ctx, LookupStepResource(ctx, 0, "stack", &stack));
    OP_REQUIRES_OK(ctx, ctx->NodeError(stack->Push(ctx->input(1))));
    ctx->set_output(0, ctx->input(1));
  }
};

class StackPopOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    ResourceRef<Stack> stack;
    OP_REQUIRES_OK(ctx, LookupStepResource(ctx, 0, "stack", &stack));
    OP_REQUIRES(ctx, stack->elem_type() == BaseType(expected_output_dtype(ctx)),
                ctx->NodeError(errors::InvalidArgument(
                    "Stack '", stack->name(), "' holds ", DataTypeString(stack->elem_type()),
                    " elements but the op pops ", DataTypeString(expected_output_dtype(ctx)))));
    Tensor value;
    OP_REQUIRES_OK(ctx, ctx->NodeError(stack->Pop(&value)));
    ctx->set_output(0, std::move(value));
  }

 private:
  static DataType expected_output_dtype(OpKernelContext* ctx) {
    return ctx->expected_output_dtype(0);
  }
};

class StackCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    ResourceRef<Stack> stack;
    OP_REQUIRES_OK(ctx, LookupStepResource(ctx, 0, "stack", &stack));
    stack->Close();
  }
};

}  // namespace

// No type constraints: a stack holds tensors of any type, resource handles
// and strings included, as it never looks inside them.
REGISTER_KERNEL_BUILDER(KernelDefBuilder("StackV2").Device(DEVICE_CPU).HostMemory("max_size"),
                        StackOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("StackPushV2").Device(DEVICE_CPU), StackPushOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("StackPopV2").Device(DEVICE_CPU), StackPopOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("StackCloseV2").Device(DEVICE_CPU), StackCloseOp);

}  // namespace af
