// FIFOQueue, RandomShuffleQueue and PaddingFIFOQueue (and their V2 forms):
// each run outputs a handle to the queue (container, shared_name) of the
// device's ResourceMgr, creating it on first use.
//
// Without a shared_name the queue is private to the kernel, as in
// TensorFlow: a session's plans share the kernel (runtime/kernel_segment.h),
// so its enqueue and dequeue steps meet the same queue, and the queue goes
// when the kernel does. Errors name it by its node.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "core/queue_interface.h"
#include "core/resource_handle.h"
#include "core/resource_mgr.h"
#include "kernels/queue/queue_kernel_util.h"

namespace af {
namespace {

using queue_kernels::DeviceResourceMgr;

// Distinguishes the private queues of kernels made from the same node
// (several sessions, or a server's sessions, in one process).
std::atomic<uint64_t> next_private_queue{0};

class QueueCreateOp : public OpKernel {
 public:
  QueueCreateOp(OpKernelConstruction* ctx, QueueSpec::Kind kind) : OpKernel(ctx) {
    spec_.kind = kind;
    ctx->SetStatus(ctx->GetAttr("component_types", &spec_.component_types));
    ctx->SetStatus(ctx->GetAttr("shapes", &spec_.component_shapes));
    int64_t capacity = -1;
    ctx->SetStatus(ctx->GetAttr("capacity", &capacity));
    spec_.capacity =
        capacity < 0 ? -1 : static_cast<int32_t>(std::min<int64_t>(capacity, INT32_MAX));
    ctx->SetStatus(ctx->GetAttr("container", &container_));
    ctx->SetStatus(ctx->GetAttr("shared_name", &name_));
    if (kind == QueueSpec::Kind::kRandomShuffle) {
      int64_t min_after_dequeue = 0;
      ctx->SetStatus(ctx->GetAttr("min_after_dequeue", &min_after_dequeue));
      ctx->SetStatus(ctx->GetAttr("seed", &spec_.seed));
      ctx->SetStatus(ctx->GetAttr("seed2", &spec_.seed2));
      if (min_after_dequeue < 0) {
        ctx->SetStatus(Error("min_after_dequeue ", min_after_dequeue, " must be >= 0"));
      } else if (spec_.capacity >= 0 && min_after_dequeue >= spec_.capacity) {
        ctx->SetStatus(Error("min_after_dequeue ", min_after_dequeue, " must be < capacity ",
                             spec_.capacity));
      }
      spec_.min_after_dequeue =
          static_cast<int32_t>(std::min<int64_t>(min_after_dequeue, INT32_MAX));
    }
    ctx->SetStatus(CheckShapes());
    is_resource_ = ctx->output_types().size() == 1 && ctx->output_types()[0] == DT_RESOURCE;
    if (name_.empty()) {
      name_ = "_" + std::to_string(next_private_queue.fetch_add(1)) + "_" + name();
      private_ = true;
      spec_.name = name();
    } else {
      spec_.name = name_;
    }
  }

  ~QueueCreateOp() override {
    // A reset may have dropped the queue already.
    if (private_ && rm_ != nullptr) (void)rm_->Delete<QueueInterface>(container_, name_);
  }

  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = DeviceResourceMgr(ctx);
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t generation = rm->generation();
    if (!queue_ || rm != rm_ || generation != generation_) {
      ResourceRef<QueueInterface> queue;
      bool created = false;
      auto create = [&](QueueInterface** made) {
        created = true;
        return CreateQueue(spec_, made);
      };
      if (private_ && rm_ != nullptr && rm != rm_)  // a new manager: leave the old one's queue
        (void)rm_->Delete<QueueInterface>(container_, name_);
      OP_REQUIRES_OK(ctx, ctx->NodeError(rm->LookupOrCreate<QueueInterface>(
                              container_, name_, &queue, create)));
      if (!created) OP_REQUIRES_OK(ctx, ctx->NodeError(queue->MatchesSpec(spec_)));
      const std::string container = container_.empty() ? rm->default_container() : container_;
      if (is_resource_) {
        handle_ = MakeDeviceResourceHandle(ctx, container, name_, QueueInterface::kTypeName);
      } else {
        std::lock_guard<std::mutex> handle_lock(handle_mu_);
        handle_ = Tensor(DT_STRING, TensorShape{2});
        handle_.data<std::string>()[0] = container;
        handle_.data<std::string>()[1] = name_;
      }
      queue_ = std::move(queue);
      rm_ = rm;
      generation_ = generation;
    }
    if (is_resource_) {
      ctx->set_output(0, handle_);
    } else {
      ctx->set_output_ref(0, &handle_mu_, &handle_);
    }
  }

 private:
  template <typename... Args>
  Status Error(const Args&... args) const {
    return errors::InvalidArgument(args...);
  }

  Status CheckShapes() const {
    const auto& shapes = spec_.component_shapes;
    if (spec_.kind == QueueSpec::Kind::kPaddingFifo) {
      if (shapes.size() != spec_.component_types.size()) {
        return Error("Shapes must be provided for all components, but received ",
                     spec_.component_types.size(), " dtypes and ", shapes.size(), " shapes.");
      }
      for (const PartialTensorShape& s : shapes) {
        if (s.unknown_rank()) return Error("shape ", s.DebugString(), " must have known rank.");
      }
      return Status::OK();
    }
    if (!shapes.empty() && shapes.size() != spec_.component_types.size()) {
      return Error("Different number of component types (", spec_.component_types.size(),
                   ") and shapes (", shapes.size(), ")");
    }
    for (size_t i = 0; i < shapes.size(); ++i) {
      if (!shapes[i].IsFullyDefined()) {
        return Error("shape ", shapes[i].DebugString(), " of component ", i,
                     " must be fully defined (a PaddingFIFOQueue takes unknown dimensions)");
      }
    }
    return Status::OK();
  }

  QueueSpec spec_;
  std::string container_, name_;
  bool private_ = false;
  bool is_resource_ = false;

  std::mutex mu_;  // serializes Compute: guards queue_, rm_, generation_, handle_
  ResourceRef<QueueInterface> queue_;
  ResourceMgr* rm_ = nullptr;
  uint64_t generation_ = 0;
  std::mutex handle_mu_;  // guards handle_ for TF1 consumers reading it by reference
  Tensor handle_;
};

template <QueueSpec::Kind kKind>
class QueueOp : public QueueCreateOp {
 public:
  explicit QueueOp(OpKernelConstruction* ctx) : QueueCreateOp(ctx, kKind) {}
};

using FifoQueueOp = QueueOp<QueueSpec::Kind::kFifo>;
using RandomShuffleQueueOp = QueueOp<QueueSpec::Kind::kRandomShuffle>;
using PaddingFifoQueueOp = QueueOp<QueueSpec::Kind::kPaddingFifo>;

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("FIFOQueue").Device(DEVICE_CPU), FifoQueueOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("FIFOQueueV2").Device(DEVICE_CPU), FifoQueueOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("RandomShuffleQueue").Device(DEVICE_CPU),
                        RandomShuffleQueueOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("RandomShuffleQueueV2").Device(DEVICE_CPU),
                        RandomShuffleQueueOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("PaddingFIFOQueue").Device(DEVICE_CPU),
                        PaddingFifoQueueOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("PaddingFIFOQueueV2").Device(DEVICE_CPU),
                        PaddingFifoQueueOp);

}  // namespace af
