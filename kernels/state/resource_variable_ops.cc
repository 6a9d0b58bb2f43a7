// Resource variables: VarHandleOp, ReadVariableOp, AssignVariableOp,
// AssignAddVariableOp, AssignSubVariableOp, VarIsInitializedOp,
// VariableShape, DestroyResourceOp and DisableCopyOnRead.
//
// As in TensorFlow's graphs, a VarHandleOp only names the variable; the
// first AssignVariableOp creates it in the device's ResourceMgr, and
// reading a variable nobody assigned (or one destroyed) is
// FAILED_PRECONDITION naming it. A read shares the value's buffer; every
// in-place update first takes the buffer for itself (copy-on-write), so a
// value read earlier never changes.
#include <complex>
#include <mutex>
#include <string>
#include <utility>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "core/resource_handle.h"
#include "kernels/resource_handles.h"
#include "kernels/state/assign_plan.h"
#include "kernels/state/resource_variable_util.h"

namespace af {
namespace {

// Outputs the handle of (container, shared_name), made once per kernel. An
// empty shared_name means the node's name, as VariableV2 does here:
// TensorFlow's Python always sets one in graphs, and anonymous (eager)
// variables do not exist here. allowed_devices and debug_name change
// nothing.
class VarHandleOp : public OpKernel {
 public:
  explicit VarHandleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("container", &container_));
    ctx->SetStatus(ctx->GetAttr("shared_name", &shared_name_));
    if (shared_name_.empty()) shared_name_ = name();
  }

  void Compute(OpKernelContext* ctx) override {
    std::call_once(made_, [&] {
      handle_ =
          MakeDeviceResourceHandle(ctx, container_, shared_name_, ResourceVariable::kTypeName);
    });
    ctx->set_output(0, handle_);
  }

 private:
  std::string container_, shared_name_;
  std::once_flag made_;
  Tensor handle_;  // written once under made_
};

class ReadVariableOp : public OpKernel {
 public:
  explicit ReadVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    Tensor value;
    OP_REQUIRES_OK(ctx, state::ReadVariableValue(ctx, 0, dtype_, &value));
    ctx->set_output(0, std::move(value));
  }

 private:
  DataType dtype_ = DT_INVALID;
};

// variable = value. Without validate_shape the value may change the
// variable's shape (TensorFlow's default); with it, an initialized
// variable keeps its shape.
class AssignVariableOp : public OpKernel {
 public:
  explicit AssignVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
    ctx->SetStatus(ctx->GetAttr("validate_shape", &validate_shape_));
  }

  void Compute(OpKernelContext* ctx) override {
    ResourceRef<ResourceVariable> var;
    OP_REQUIRES_OK(ctx, state::LookupOrCreateVariable(ctx, 0, dtype_, &var));
    const Tensor& value = ctx->input(1);
    std::lock_guard<std::mutex> lock(*var->mu());
    Tensor* current = var->tensor();
    OP_REQUIRES(ctx,
                !validate_shape_ || !current->IsInitialized() || current->shape() == value.shape(),
                ctx->NodeError(errors::InvalidArgument(
                    "Trying to assign to variable ", state::RequestedInput(*this, 0),
                    " with tensor with wrong shape. Expected ", current->shape().DebugString(),
                    " got ", value.shape().DebugString())));
    state::AssignHow how = state::AssignHow::kCopyToFresh;
    OP_REQUIRES_OK(ctx, ctx->NodeError(state::PlanAssign(*current, value, false, &how)));
    if (how == state::AssignHow::kCopyInPlace) {
      state::CopyTensorElements(value, current);
    } else if (how == state::AssignHow::kAdopt) {
      *current = value;
    } else {
      Tensor fresh;
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(dtype_, value.shape(), &fresh));
      state::CopyTensorElements(value, &fresh);
      *current = std::move(fresh);
    }
  }

 private:
  DataType dtype_ = DT_INVALID;
  bool validate_shape_ = false;
};

enum class Update { kAdd, kSub };

template <typename T, Update kUpdate>
class AssignUpdateVariableOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    ResourceRef<ResourceVariable> var;
    OP_REQUIRES_OK(ctx, state::LookupVariable(ctx, 0, &var));
    OP_REQUIRES_OK(ctx, state::CheckVariableDtype(ctx, 0, *var, DataTypeToEnum<T>::value));
    const Tensor& value = ctx->input(1);
    std::lock_guard<std::mutex> lock(*var->mu());
    Tensor* current = nullptr;
    OP_REQUIRES_OK(ctx, state::InitializedValue(ctx, 0, var.get(), &current));
    OP_REQUIRES(ctx, current->shape() == value.shape(),
                ctx->NodeError(errors::InvalidArgument(
                    "Cannot update variable with shape ", current->shape().DebugString(),
                    " using a Tensor with shape ", value.shape().DebugString(),
                    ", shapes must be equal.")));
    OP_REQUIRES_OK(ctx, state::PrepareToUpdate(ctx, var.get()));
    T* dst = current->data<T>();
    const T* src = value.data<T>();
    state::ParallelUpdate(ctx, current->NumElements(), 2, [dst, src](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        if constexpr (kUpdate == Update::kAdd) {
          dst[i] += src[i];
        } else {
          dst[i] -= src[i];
        }
      }
    });
  }
};

// False for a variable that does not exist (yet, or any more).
class VarIsInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    std::string container, name;
    OP_REQUIRES_OK(ctx, state::ResolveVariableHandle(ctx, 0, &container, &name));
    ResourceRef<ResourceVariable> var;
    const Status found = DeviceResourceMgr(ctx)->Lookup<ResourceVariable>(container, name, &var);
    OP_REQUIRES(ctx, found.ok() || found.code() == Code::NOT_FOUND, ctx->NodeError(found));
    bool initialized = false;
    if (found.ok()) {
      std::lock_guard<std::mutex> lock(*var->mu());
      initialized = var->is_initialized();
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{}, &out));
    out->scalar<bool>() = initialized;
  }
};

// Drops the ResourceMgr's reference: kernels in flight keep theirs, later
// lookups fail. Only variables can be destroyed here (the other resources
// with handles are queues and readers, owned by their own machinery).
class DestroyResourceOp : public OpKernel {
 public:
  explicit DestroyResourceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("ignore_lookup_error", &ignore_lookup_error_));
  }

  void Compute(OpKernelContext* ctx) override {
    const ResourceHandle* handle = nullptr;
    OP_REQUIRES_OK(ctx, ctx->NodeError(GetResourceHandle(ctx->input(0), "resource", &handle)));
    static const uint64_t kVariableHash = ResourceTypeHash(ResourceVariable::kTypeName);
    OP_REQUIRES(ctx, handle->hash_code == 0 || handle->hash_code == kVariableHash,
                ctx->NodeError(
                    errors::Unimplemented("DestroyResourceOp destroys resource variables only; '",
                                          handle->name, "' is a ", handle->maybe_type_name)));
    std::string container, name;
    OP_REQUIRES_OK(ctx, ResolveHandleInput(ctx, 0, "resource", &container, &name));
    const Status s = DeviceResourceMgr(ctx)->Delete<ResourceVariable>(container, name);
    if (s.code() == Code::NOT_FOUND && ignore_lookup_error_) return;
    OP_REQUIRES_OK(ctx, ctx->NodeError(s));
  }

 private:
  bool ignore_lookup_error_ = true;
};

// The current shape, read under the variable's lock.
template <typename Index>
class VariableShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor value;
    OP_REQUIRES_OK(ctx, state::ReadVariableValue(ctx, 0, DT_INVALID, &value));
    const TensorShape& shape = value.shape();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape{static_cast<int64_t>(shape.dims())}, &out));
    Index* dims = out->data<Index>();
    for (int d = 0; d < shape.dims(); ++d) dims[d] = static_cast<Index>(shape.dim_size(d));
  }
};

// Reads never copy here (updates do, when a reader shares the buffer), so
// there is no copy-on-read mode to leave; the handle is still checked.
class DisableCopyOnReadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string container, name;
    OP_REQUIRES_OK(ctx, state::ResolveVariableHandle(ctx, 0, &container, &name));
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("VarHandleOp").Device(DEVICE_CPU), VarHandleOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("ReadVariableOp").Device(DEVICE_CPU), ReadVariableOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("AssignVariableOp").Device(DEVICE_CPU), AssignVariableOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("VarIsInitializedOp").Device(DEVICE_CPU),
                        VarIsInitializedOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("DestroyResourceOp").Device(DEVICE_CPU),
                        DestroyResourceOp);
REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("VariableShape").Device(DEVICE_CPU).TypeConstraint<int32_t>("out_type"),
    VariableShapeOp<int32_t>);
REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("VariableShape").Device(DEVICE_CPU).TypeConstraint<int64_t>("out_type"),
    VariableShapeOp<int64_t>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("DisableCopyOnRead").Device(DEVICE_CPU),
                        DisableCopyOnReadOp);

#define AF_REGISTER_ASSIGN_UPDATE_VARIABLE(T)                                                \
  REGISTER_KERNEL_BUILDER(                                                                   \
      KernelDefBuilder("AssignAddVariableOp").Device(DEVICE_CPU).TypeConstraint<T>("dtype"), \
      AssignUpdateVariableOp<T, Update::kAdd>);                                              \
  REGISTER_KERNEL_BUILDER(                                                                   \
      KernelDefBuilder("AssignSubVariableOp").Device(DEVICE_CPU).TypeConstraint<T>("dtype"), \
      AssignUpdateVariableOp<T, Update::kSub>)

AF_REGISTER_ASSIGN_UPDATE_VARIABLE(float);
AF_REGISTER_ASSIGN_UPDATE_VARIABLE(double);
AF_REGISTER_ASSIGN_UPDATE_VARIABLE(int32_t);
AF_REGISTER_ASSIGN_UPDATE_VARIABLE(int64_t);
AF_REGISTER_ASSIGN_UPDATE_VARIABLE(int16_t);
AF_REGISTER_ASSIGN_UPDATE_VARIABLE(int8_t);
AF_REGISTER_ASSIGN_UPDATE_VARIABLE(uint8_t);
AF_REGISTER_ASSIGN_UPDATE_VARIABLE(uint16_t);
AF_REGISTER_ASSIGN_UPDATE_VARIABLE(uint32_t);
AF_REGISTER_ASSIGN_UPDATE_VARIABLE(uint64_t);
AF_REGISTER_ASSIGN_UPDATE_VARIABLE(complex64);
AF_REGISTER_ASSIGN_UPDATE_VARIABLE(complex128);
#undef AF_REGISTER_ASSIGN_UPDATE_VARIABLE

}  // namespace af
