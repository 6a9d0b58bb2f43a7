#include "core/gpu/gpu_device_context.h"

#include <algorithm>

#include "core/gpu/bfc_allocator.h"

namespace af::gpu {
namespace {

class DeviceMemory final : public SubAllocator {
 public:
  DeviceMemory(Backend* backend, int ordinal) : backend_(backend), ordinal_(ordinal) {}
  void* Alloc(size_t bytes) override {
    void* p = nullptr;
    return backend_->AllocateDevice(ordinal_, bytes, &p).ok() ? p : nullptr;
  }
  void Free(void* ptr, size_t) override { (void)backend_->FreeDevice(ordinal_, ptr); }
  bool IsHostAccessible() const override { return false; }

 private:
  Backend* const backend_;
  const int ordinal_;
};

class PinnedHostMemory final : public SubAllocator {
 public:
  explicit PinnedHostMemory(Backend* backend) : backend_(backend) {}
  void* Alloc(size_t bytes) override {
    void* p = nullptr;
    return backend_->AllocatePinnedHost(bytes, &p).ok() ? p : nullptr;
  }
  void Free(void* ptr, size_t) override { (void)backend_->FreePinnedHost(ptr); }
  bool IsHostAccessible() const override { return true; }

 private:
  Backend* const backend_;
};

// Device memory as tensors see it: the BFC allocator, tagged with the GPU
// it belongs to (GpuOrdinalOfAllocator reads the tag).
class TaggedDeviceAllocator final : public Allocator {
 public:
  TaggedDeviceAllocator(BfcAllocator* bfc, int ordinal) : bfc_(bfc), ordinal_(ordinal) {}
  std::string Name() const override { return bfc_->Name(); }
  void* AllocateRaw(size_t alignment, size_t bytes) override {
    return bfc_->AllocateRaw(alignment, bytes);
  }
  void DeallocateRaw(void* ptr, size_t bytes) override { bfc_->DeallocateRaw(ptr, bytes); }
  AllocatorStats GetStats() const override { return bfc_->GetStats(); }
  bool IsHostAccessible() const override { return false; }
  std::string OutOfMemoryDetail(size_t bytes) const override {
    return bfc_->OutOfMemoryDetail(bytes);
  }
  int ordinal() const { return ordinal_; }

 private:
  BfcAllocator* const bfc_;
  const int ordinal_;
};

// Pinned staging memory is bounded separately from device memory: it is
// host RAM locked in place.
constexpr int64_t kPinnedLimit = int64_t{8} << 30;

}  // namespace

GpuDeviceContext::GpuDeviceContext(Backend* backend, int ordinal)
    : backend_(backend), ordinal_(ordinal) {}

Status GpuDeviceContext::Create(Backend* backend, int ordinal, const GpuDeviceOptions& options,
                                std::unique_ptr<GpuDeviceContext>* out) {
  if (backend == nullptr) return errors::FailedPrecondition("no GPU backend in this process");
  std::unique_ptr<GpuDeviceContext> ctx(new GpuDeviceContext(backend, ordinal));
  AF_RETURN_IF_ERROR(backend->GetProperties(ordinal, &ctx->properties_));
  int64_t free_bytes = 0, total_bytes = 0;
  AF_RETURN_IF_ERROR(backend->MemoryInfo(ordinal, &free_bytes, &total_bytes));
  ctx->memory_limit_ = options.memory_limit > 0 ? std::min(options.memory_limit, free_bytes)
                                                : free_bytes / 10 * 9;
  AF_RETURN_IF_ERROR(backend->CreateStream(ordinal, &ctx->compute_));
  AF_RETURN_IF_ERROR(backend->CreateStream(ordinal, &ctx->host_to_device_));
  AF_RETURN_IF_ERROR(backend->CreateStream(ordinal, &ctx->device_to_host_));
  AF_RETURN_IF_ERROR(backend->CreateStream(ordinal, &ctx->device_to_device_));
  BfcOptions device_options;
  device_options.memory_limit = static_cast<size_t>(ctx->memory_limit_);
  ctx->device_allocator_ = std::make_unique<BfcAllocator>(
      std::make_unique<DeviceMemory>(backend, ordinal), device_options,
      "gpu_" + std::to_string(ordinal) + "_bfc");
  BfcOptions pinned_options;
  pinned_options.memory_limit = static_cast<size_t>(kPinnedLimit);
  ctx->pinned_allocator_ = std::make_unique<BfcAllocator>(
      std::make_unique<PinnedHostMemory>(backend), pinned_options,
      "gpu_" + std::to_string(ordinal) + "_pinned_host");
  ctx->tagged_ = std::make_unique<TaggedDeviceAllocator>(ctx->device_allocator_.get(), ordinal);
  *out = std::move(ctx);
  return Status::OK();
}

GpuDeviceContext::~GpuDeviceContext() {
  // Work still queued may use the memory below.
  (void)SynchronizeAll();
  resources_.clear();
  free_events_.clear();
}

Allocator* GpuDeviceContext::device_allocator() const { return tagged_.get(); }

Allocator* GpuDeviceContext::pinned_host_allocator() const { return pinned_allocator_.get(); }

Status GpuDeviceContext::AcquireEvent(std::shared_ptr<Event>* out) {
  std::unique_ptr<Event> event;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_events_.empty()) {
      event = std::move(free_events_.back());
      free_events_.pop_back();
    }
  }
  if (!event) AF_RETURN_IF_ERROR(backend_->CreateEvent(ordinal_, &event));
  *out = std::shared_ptr<Event>(event.release(), [this](Event* e) { ReleaseEvent(e); });
  return Status::OK();
}

void GpuDeviceContext::ReleaseEvent(Event* event) {
  std::lock_guard<std::mutex> lock(mu_);
  free_events_.emplace_back(event);
}

Status GpuDeviceContext::GetOrCreateResource(
    const std::string& key, const std::function<Status(std::shared_ptr<void>*)>& make,
    std::shared_ptr<void>* out) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = resources_.find(key);
  if (it != resources_.end()) {
    *out = it->second;
    return Status::OK();
  }
  std::shared_ptr<void> made;
  AF_RETURN_IF_ERROR(make(&made));
  resources_[key] = made;
  *out = std::move(made);
  return Status::OK();
}

Status GpuDeviceContext::SynchronizeAll() {
  Status s;
  for (Stream* stream : {compute_.get(), host_to_device_.get(), device_to_host_.get(),
                         device_to_device_.get()}) {
    if (stream != nullptr) s.Update(stream->Synchronize());
  }
  return s;
}

int ProcessGpuCount() {
  Backend* backend = ProcessBackend();
  return backend == nullptr ? 0 : backend->DeviceCount();
}

int ProcessGpusToUse(int requested) {
  const int present = ProcessGpuCount();
  return requested < 0 ? present : std::min(requested, present);
}

Status GetProcessGpuContext(int ordinal, GpuDeviceContext** out) {
  static std::mutex mu;  // guards contexts
  static auto* contexts = new std::map<std::pair<Backend*, int>, std::unique_ptr<GpuDeviceContext>>();
  Backend* backend = ProcessBackend();
  if (backend == nullptr) return errors::NotFound("this process has no GPU");
  if (ordinal < 0 || ordinal >= backend->DeviceCount()) {
    return errors::NotFound("no GPU ", ordinal, " in this process (", backend->DeviceCount(),
                            " present)");
  }
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*contexts)[{backend, ordinal}];
  if (!slot) AF_RETURN_IF_ERROR(GpuDeviceContext::Create(backend, ordinal, {}, &slot));
  *out = slot.get();
  return Status::OK();
}

bool LivesInHostMemoryOnGpu(DataType dtype) {
  switch (BaseType(dtype)) {
    case DT_INT32:
    case DT_INT64:
    case DT_BOOL:
    case DT_STRING:
    case DT_RESOURCE:
    case DT_VARIANT:
      return true;
    default:
      return false;
  }
}

int GpuOrdinalOfAllocator(const Allocator* allocator) {
  auto* tagged = dynamic_cast<const TaggedDeviceAllocator*>(allocator);
  return tagged ? tagged->ordinal() : -1;
}

}  // namespace af::gpu
