// OpKernel: the code that computes one node on one device type. A kernel is
// created once per node (when its partition is built) and then run for every
// step, possibly from several threads at once: Compute must not mutate the
// kernel's own members without synchronization.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "core/device_base.h"
#include "core/node_def_util.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/types.h"
#include "proto/node_def.pb.h"
#include "proto/op_def.pb.h"

namespace af {

class AsyncOpKernel;
class OpKernelContext;
// Provided by the runtime (defined in later layers); kernels that need them
// include their headers.
class Rendezvous;
class CancellationManager;
class ResourceMgr;
class CallFrame;
class StepResources;

// A value flowing along an edge: a tensor, or for reference-typed edges a
// pointer to a variable's storage and the mutex guarding it.
struct TensorValue {
  Tensor tensor;
  Tensor* ref = nullptr;
  std::mutex* ref_mu = nullptr;
  bool has_value = false;  // false: not produced (dead, or not yet set)

  const Tensor& get() const { return ref ? *ref : tensor; }
  bool is_ref() const { return ref != nullptr; }
  void Clear() {
    tensor = Tensor();
    ref = nullptr;
    ref_mu = nullptr;
    has_value = false;
  }
};

// Frame and iteration of the execution that produced a value; (0, 0) outside
// loops. Part of rendezvous keys so that loop iterations do not collide.
struct FrameAndIter {
  uint64_t frame_id = 0;
  int64_t iter_id = 0;
};

class OpKernelConstruction {
 public:
  OpKernelConstruction(DeviceType device_type, DeviceBase* device,
                       const tensorflow::NodeDef* node, const tensorflow::OpDef* op_def,
                       DataTypeVector input_types, DataTypeVector output_types);

  template <typename T>
  Status GetAttr(std::string_view name, T* value) const {
    return GetNodeAttr(*node_, name, value);
  }
  bool HasAttr(std::string_view name) const { return HasNodeAttr(*node_, name); }
  const tensorflow::NodeDef& def() const { return *node_; }
  const tensorflow::OpDef& op_def() const { return *op_def_; }
  const DeviceType& device_type() const { return device_type_; }
  DeviceBase* device() const { return device_; }
  Allocator* allocator() const { return device_ ? device_->GetAllocator() : GetCpuAllocator(); }
  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  const DataTypeVector& input_types() const { return input_types_; }
  const DataTypeVector& output_types() const { return output_types_; }

  void SetStatus(const Status& s) { status_.Update(s); }
  const Status& status() const { return status_; }

 private:
  DeviceType device_type_;
  DeviceBase* device_;
  const tensorflow::NodeDef* node_;
  const tensorflow::OpDef* op_def_;
  DataTypeVector input_types_, output_types_;
  Status status_;
};

class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction* ctx);
  virtual ~OpKernel();
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;

  virtual void Compute(OpKernelContext* ctx) = 0;
  virtual AsyncOpKernel* AsAsync() { return nullptr; }
  // Expensive kernels run on the device's thread pool; cheap ones inline
  // on the thread that made them ready.
  virtual bool IsExpensive() const { return expensive_; }
  void set_expensive(bool expensive) { expensive_ = expensive; }

  const std::string& name() const { return def_.name(); }
  const std::string& type_string() const { return def_.op(); }
  const tensorflow::NodeDef& def() const { return def_; }
  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  const DataTypeVector& input_types() const { return input_types_; }
  const DataTypeVector& output_types() const { return output_types_; }

 private:
  const tensorflow::NodeDef def_;
  const DataTypeVector input_types_, output_types_;
  bool expensive_ = false;
};

// A kernel that finishes later (Recv, queue operations): it must call `done`
// exactly once, from any thread, and never block a thread while waiting.
class AsyncOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  using DoneCallback = std::function<void()>;
  virtual void ComputeAsync(OpKernelContext* ctx, DoneCallback done) = 0;
  AsyncOpKernel* AsAsync() override { return this; }
  // Runs ComputeAsync and waits; for tests and tools only.
  void Compute(OpKernelContext* ctx) override;
};

class OpKernelContext {
 public:
  struct Params {
    int64_t step_id = 0;
    DeviceBase* device = nullptr;
    OpKernel* op_kernel = nullptr;
    TensorValue* inputs = nullptr;   // num_inputs entries
    TensorValue* outputs = nullptr;  // num_outputs entries, cleared by the caller
    bool is_input_dead = false;      // for Merge/Switch-like kernels
    FrameAndIter frame_iter;
    Rendezvous* rendezvous = nullptr;
    CancellationManager* cancellation_manager = nullptr;
    ResourceMgr* resource_manager = nullptr;
    CallFrame* call_frame = nullptr;
    // Stacks and tensor arrays of this step on this device.
    StepResources* step_resources = nullptr;
    // The device's allocator charged to the session's memory budget
    // (core/memory_budget.h); null: the device's own.
    Allocator* budgeted_allocator = nullptr;
    // Runs a closure on the device's thread pool (for async kernels that
    // need to compute after their wait).
    std::function<void(std::function<void()>)>* runner = nullptr;
  };

  explicit OpKernelContext(Params* params) : params_(params) {}

  int num_inputs() const { return params_->op_kernel->num_inputs(); }
  int num_outputs() const { return params_->op_kernel->num_outputs(); }
  const Tensor& input(int i) const { return params_->inputs[i].get(); }
  bool has_input(int i) const { return params_->inputs[i].has_value; }
  DataType input_dtype(int i) const { return params_->op_kernel->input_type(i); }
  bool input_is_ref(int i) const { return params_->inputs[i].is_ref(); }
  // The variable storage behind a ref input, and its mutex.
  Tensor* mutable_input(int i) { return params_->inputs[i].ref; }
  std::mutex* input_ref_mutex(int i) { return params_->inputs[i].ref_mu; }
  DataType expected_output_dtype(int i) const { return params_->op_kernel->output_type(i); }

  // Allocates output i from the device's allocator.
  Status allocate_output(int i, const TensorShape& shape, Tensor** out);
  Status allocate_temp(DataType dtype, const TensorShape& shape, Tensor* out);
  void set_output(int i, Tensor tensor);
  void set_output_ref(int i, std::mutex* mu, Tensor* ref);
  // Output i's value as it stands (nullptr if unset).
  Tensor* mutable_output(int i);
  // Passes input `in` through as output `out` when dtype and shape match,
  // sharing the buffer (no copy).
  void forward_input_as_output(int in, int out);

  void SetStatus(const Status& s) { status_.Update(s); }
  const Status& status() const { return status_; }
  // An error prefixed with the node's name and op, as every kernel failure
  // should read.
  Status NodeError(const Status& cause) const;

  const OpKernel& op_kernel() const { return *params_->op_kernel; }
  int64_t step_id() const { return params_->step_id; }
  DeviceBase* device() const { return params_->device; }
  Allocator* allocator() const {
    if (params_->budgeted_allocator != nullptr) return params_->budgeted_allocator;
    return params_->device ? params_->device->GetAllocator() : GetCpuAllocator();
  }
  // Where allocate_output and allocate_temp put a tensor of `dtype`.
  Allocator* AllocatorFor(DataType dtype) const {
    if (params_->device == nullptr) return GetCpuAllocator();
    Allocator* chosen = params_->device->GetAllocatorFor(dtype);
    // Host memory a GPU kernel asks for is not charged; the device's is.
    if (params_->budgeted_allocator != nullptr && chosen == params_->device->GetAllocator()) {
      return params_->budgeted_allocator;
    }
    return chosen;
  }
  bool is_input_dead() const { return params_->is_input_dead; }
  FrameAndIter frame_iter() const { return params_->frame_iter; }
  Rendezvous* rendezvous() const { return params_->rendezvous; }
  CancellationManager* cancellation_manager() const { return params_->cancellation_manager; }
  ResourceMgr* resource_manager() const { return params_->resource_manager; }
  CallFrame* call_frame() const { return params_->call_frame; }
  StepResources* step_resources() const { return params_->step_resources; }
  std::function<void(std::function<void()>)>* runner() const { return params_->runner; }
  Params* params() const { return params_; }

 private:
  Params* params_;
  Status status_;
};

}  // namespace af

// Kernel error helpers: record the error on the context and return.
#define OP_REQUIRES(CTX, EXP, STATUS) \
  do {                                \
    if (!(EXP)) {                     \
      (CTX)->SetStatus(STATUS);       \
      return;                         \
    }                                 \
  } while (0)

#define OP_REQUIRES_OK(CTX, ...)              \
  do {                                        \
    ::af::Status af_op_status_ = (__VA_ARGS__); \
    if (!af_op_status_.ok()) {                \
      (CTX)->SetStatus(af_op_status_);        \
      return;                                 \
    }                                         \
  } while (0)

#define OP_REQUIRES_ASYNC(CTX, EXP, STATUS, DONE) \
  do {                                            \
    if (!(EXP)) {                                 \
      (CTX)->SetStatus(STATUS);                   \
      (DONE)();                                   \
      return;                                     \
    }                                             \
  } while (0)

#define OP_REQUIRES_OK_ASYNC(CTX, STATUS, DONE)   \
  do {                                            \
    ::af::Status af_op_status_ = (STATUS);        \
    if (!af_op_status_.ok()) {                    \
      (CTX)->SetStatus(af_op_status_);            \
      (DONE)();                                   \
      return;                                     \
    }                                             \
  } while (0)
