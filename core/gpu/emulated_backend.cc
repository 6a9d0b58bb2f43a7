#include "core/gpu/emulated_backend.h"

#include "core/gpu/callback_dispatcher.h"

#include <sys/mman.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace af::gpu {
namespace {

// Live emulated device allocations of the process (all backends), by start
// address, so that copies can tell device memory from host memory.
struct DeviceMemoryMap {
  std::mutex mu;  // guards ranges
  std::map<uintptr_t, std::pair<size_t, int>> ranges;  // start -> (bytes, device)

  void Add(void* p, size_t bytes, int device) {
    std::lock_guard<std::mutex> lock(mu);
    ranges[reinterpret_cast<uintptr_t>(p)] = {bytes, device};
  }
  bool Remove(void* p, size_t* bytes) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = ranges.find(reinterpret_cast<uintptr_t>(p));
    if (it == ranges.end()) return false;
    *bytes = it->second.first;
    ranges.erase(it);
    return true;
  }
  // The device whose memory holds [p, p + bytes), or -1 when that is not
  // wholly inside one live allocation.
  int DeviceOf(const void* p, size_t bytes) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    std::lock_guard<std::mutex> lock(mu);
    auto it = ranges.upper_bound(a);
    if (it == ranges.begin()) return -1;
    --it;
    if (a + bytes > it->first + it->second.first) return -1;
    return it->second.second;
  }
};

DeviceMemoryMap& Memory() {
  static DeviceMemoryMap* map = new DeviceMemoryMap();
  return *map;
}

class EmulatedEvent final : public Event {
 public:
  bool IsComplete() override {
    std::lock_guard<std::mutex> lock(mu_);
    return completed_ >= recorded_;
  }
  Status Synchronize() override {
    std::unique_lock<std::mutex> lock(mu_);
    const int64_t target = recorded_;
    cv_.wait(lock, [&] { return completed_ >= target; });
    return Status::OK();
  }
  void* native() override { return nullptr; }

  int64_t NextRecord() {
    std::lock_guard<std::mutex> lock(mu_);
    return ++recorded_;
  }
  int64_t LastRecord() {
    std::lock_guard<std::mutex> lock(mu_);
    return recorded_;
  }
  // Notifies under the lock: a waiter that sees the record complete may
  // destroy the event at once, and the notifying stream must be done with
  // the condition variable by then (ThreadSanitizer caught it in use).
  void Complete(int64_t record) {
    std::lock_guard<std::mutex> lock(mu_);
    if (record > completed_) completed_ = record;
    cv_.notify_all();
  }
  void AwaitRecord(int64_t record) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return completed_ >= record; });
  }

 private:
  std::mutex mu_;  // guards recorded_ and completed_
  std::condition_variable cv_;
  int64_t recorded_ = 0;
  int64_t completed_ = 0;
};

class EmulatedStream final : public Stream {
 public:
  EmulatedStream(int device, CallbackDispatcher* callbacks)
      : device_(device), callbacks_(callbacks), thread_([this] { Loop(); }) {}
  ~EmulatedStream() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    work_cv_.notify_all();
    thread_.join();
  }

  int device() const override { return device_; }

  Status CopyHostToDevice(void* dst, const void* src, size_t bytes) override {
    if (bytes == 0) return Status::OK();
    if (Memory().DeviceOf(src, 1) >= 0)
      return errors::Internal("CopyHostToDevice: the source is emulated device memory");
    if (Memory().DeviceOf(dst, bytes) < 0)
      return errors::Internal("CopyHostToDevice: the target is not device memory (", bytes,
                              " bytes)");
    return Enqueue([dst, src, bytes] {
      std::memcpy(dst, src, bytes);
      return Status::OK();
    });
  }
  Status CopyDeviceToHost(void* dst, const void* src, size_t bytes) override {
    if (bytes == 0) return Status::OK();
    if (Memory().DeviceOf(src, bytes) < 0)
      return errors::Internal("CopyDeviceToHost: the source is not device memory (", bytes,
                              " bytes)");
    if (Memory().DeviceOf(dst, 1) >= 0)
      return errors::Internal("CopyDeviceToHost: the target is emulated device memory");
    return Enqueue([dst, src, bytes] {
      std::memcpy(dst, src, bytes);
      return Status::OK();
    });
  }
  Status CopyDeviceToDevice(void* dst, const void* src, int src_device, size_t bytes) override {
    if (bytes == 0) return Status::OK();
    if (Memory().DeviceOf(src, bytes) != src_device)
      return errors::Internal("CopyDeviceToDevice: the source is not memory of GPU ", src_device);
    if (Memory().DeviceOf(dst, bytes) < 0)
      return errors::Internal("CopyDeviceToDevice: the target is not device memory");
    return Enqueue([dst, src, bytes] {
      std::memmove(dst, src, bytes);
      return Status::OK();
    });
  }
  Status Memset(void* dst, uint8_t value, size_t bytes) override {
    if (bytes == 0) return Status::OK();
    if (Memory().DeviceOf(dst, bytes) < 0)
      return errors::Internal("Memset: the target is not device memory");
    return Enqueue([dst, value, bytes] {
      std::memset(dst, value, bytes);
      return Status::OK();
    });
  }
  Status Record(Event* event) override {
    auto* e = static_cast<EmulatedEvent*>(event);
    const int64_t record = e->NextRecord();
    return Enqueue([e, record] {
      e->Complete(record);
      return Status::OK();
    });
  }
  Status Wait(Event* event) override {
    auto* e = static_cast<EmulatedEvent*>(event);
    const int64_t record = e->LastRecord();
    if (record == 0) return Status::OK();
    return Enqueue([e, record] {
      e->AwaitRecord(record);
      return Status::OK();
    });
  }
  Status AddCallback(std::function<void()> fn) override {
    return Enqueue([this, fn = std::move(fn)]() mutable {
      callbacks_->Post(std::move(fn));
      return Status::OK();
    });
  }
  Status LaunchHostKernel(std::function<void()> kernel) override {
    return Enqueue([kernel = std::move(kernel)] {
      kernel();
      return Status::OK();
    });
  }
  Status Synchronize() override {
    std::unique_lock<std::mutex> lock(mu_);
    const int64_t target = enqueued_;
    done_cv_.wait(lock, [&] { return finished_ >= target; });
    return error_;
  }
  void* native() override { return nullptr; }

  void set_delay(std::chrono::microseconds d) { delay_us_.store(d.count()); }

 private:
  Status Enqueue(std::function<Status()> op) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_.ok()) return error_;
      queue_.push_back(std::move(op));
      ++enqueued_;
    }
    work_cv_.notify_one();
    return Status::OK();
  }

  void Loop() {
    for (;;) {
      std::function<Status()> op;
      {
        std::unique_lock<std::mutex> lock(mu_);
        work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping with nothing left
        op = std::move(queue_.front());
        queue_.pop_front();
      }
      const int64_t delay = delay_us_.load();
      if (delay > 0) std::this_thread::sleep_for(std::chrono::microseconds(delay));
      Status s = op();
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (!s.ok() && error_.ok()) error_ = s;
        ++finished_;
      }
      done_cv_.notify_all();
    }
  }

  const int device_;
  CallbackDispatcher* const callbacks_;
  std::atomic<int64_t> delay_us_{0};
  std::mutex mu_;  // guards queue_, enqueued_, finished_, error_, stopping_
  std::condition_variable work_cv_, done_cv_;
  std::deque<std::function<Status()>> queue_;
  int64_t enqueued_ = 0;
  int64_t finished_ = 0;
  Status error_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

class EmulatedBackend final : public Backend {
 public:
  explicit EmulatedBackend(const EmulatedBackendOptions& options)
      : options_(options), in_use_(static_cast<size_t>(options.num_devices)) {
    for (auto& v : in_use_) v = 0;
  }

  std::string Name() const override { return "emulated"; }
  bool IsEmulated() const override { return true; }
  int DeviceCount() override { return options_.num_devices; }

  Status GetProperties(int device, DeviceProperties* out) override {
    AF_RETURN_IF_ERROR(CheckDevice(device));
    out->name = "Emulated GPU " + std::to_string(device);
    out->total_memory = options_.memory_per_device;
    out->compute_capability_major = 0;
    out->compute_capability_minor = 0;
    out->multiprocessor_count = 1;
    out->emulated = true;
    return Status::OK();
  }
  Status MemoryInfo(int device, int64_t* free_bytes, int64_t* total_bytes) override {
    AF_RETURN_IF_ERROR(CheckDevice(device));
    std::lock_guard<std::mutex> lock(mu_);
    *total_bytes = options_.memory_per_device;
    *free_bytes = options_.memory_per_device - in_use_[static_cast<size_t>(device)];
    return Status::OK();
  }
  Status AllocateDevice(int device, size_t bytes, void** ptr) override {
    AF_RETURN_IF_ERROR(CheckDevice(device));
    const size_t mapped = bytes == 0 ? 1 : bytes;
    {
      std::lock_guard<std::mutex> lock(mu_);
      int64_t& used = in_use_[static_cast<size_t>(device)];
      if (used + static_cast<int64_t>(mapped) > options_.memory_per_device) {
        return errors::ResourceExhausted("emulated GPU ", device, ": ", bytes,
                                         " bytes requested, ", used, " of ",
                                         options_.memory_per_device, " in use");
      }
      used += static_cast<int64_t>(mapped);
    }
    void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      std::lock_guard<std::mutex> lock(mu_);
      in_use_[static_cast<size_t>(device)] -= static_cast<int64_t>(mapped);
      return errors::ResourceExhausted("emulated GPU ", device, ": mmap of ", bytes,
                                       " bytes failed");
    }
    std::memset(p, 0xFF, mapped);
    Memory().Add(p, mapped, device);
    *ptr = p;
    return Status::OK();
  }
  Status FreeDevice(int device, void* ptr) override {
    size_t bytes = 0;
    if (!Memory().Remove(ptr, &bytes)) {
      return errors::Internal("FreeDevice: ", ptr, " is not emulated device memory");
    }
    munmap(ptr, bytes);
    std::lock_guard<std::mutex> lock(mu_);
    in_use_[static_cast<size_t>(device)] -= static_cast<int64_t>(bytes);
    return Status::OK();
  }
  Status AllocatePinnedHost(size_t bytes, void** ptr) override {
    void* p = nullptr;
    if (posix_memalign(&p, 4096, bytes == 0 ? 1 : bytes) != 0) {
      return errors::ResourceExhausted("pinned host memory: ", bytes, " bytes not available");
    }
    *ptr = p;
    return Status::OK();
  }
  Status FreePinnedHost(void* ptr) override {
    std::free(ptr);
    return Status::OK();
  }
  Status CreateStream(int device, std::unique_ptr<Stream>* out) override {
    AF_RETURN_IF_ERROR(CheckDevice(device));
    *out = std::make_unique<EmulatedStream>(device, &callbacks_);
    return Status::OK();
  }
  Status CreateEvent(int device, std::unique_ptr<Event>* out) override {
    AF_RETURN_IF_ERROR(CheckDevice(device));
    *out = std::make_unique<EmulatedEvent>();
    return Status::OK();
  }

 private:
  Status CheckDevice(int device) const {
    if (device < 0 || device >= options_.num_devices)
      return errors::InvalidArgument("no emulated GPU ", device, " (", options_.num_devices,
                                     " present)");
    return Status::OK();
  }

  const EmulatedBackendOptions options_;
  CallbackDispatcher callbacks_;
  std::mutex mu_;  // guards in_use_
  std::vector<int64_t> in_use_;
};

}  // namespace

std::unique_ptr<Backend> NewEmulatedBackend(const EmulatedBackendOptions& options) {
  return std::make_unique<EmulatedBackend>(options);
}

void SetEmulatedStreamDelay(Stream* stream, std::chrono::microseconds delay) {
  if (auto* s = dynamic_cast<EmulatedStream*>(stream)) s->set_delay(delay);
}

bool IsEmulatedDeviceMemory(const void* ptr) { return Memory().DeviceOf(ptr, 1) >= 0; }

}  // namespace af::gpu
