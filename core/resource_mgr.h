// ResourceMgr: a device's stateful resources (variables, and later queues,
// readers...) in named containers, so that they outlive any one step and can
// be shared by name between graphs and sessions (whitepaper §4.6).
//
// A resource is found by (container, type, name); an empty container means
// the manager's default one. Resources are ref-counted: a lookup hands out a
// reference, and deleting a resource or resetting its container only drops
// the manager's reference, so kernels holding one stay safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <typeindex>
#include <utility>
#include <vector>

#include "core/status.h"

namespace af {

class ResourceBase {
 public:
  ResourceBase() = default;
  ResourceBase(const ResourceBase&) = delete;
  ResourceBase& operator=(const ResourceBase&) = delete;

  // For listings and errors.
  virtual std::string DebugString() const = 0;

  void Ref() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() const {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  bool RefCountIsOne() const { return refs_.load(std::memory_order_acquire) == 1; }

 protected:
  virtual ~ResourceBase() = default;

 private:
  mutable std::atomic<int> refs_{1};
};

// An owning handle to a resource (one reference).
template <typename T>
class ResourceRef {
 public:
  ResourceRef() = default;
  explicit ResourceRef(T* adopted) : p_(adopted) {}  // takes the reference
  ResourceRef(const ResourceRef& o) : p_(o.p_) { if (p_) p_->Ref(); }
  ResourceRef(ResourceRef&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  ResourceRef& operator=(ResourceRef o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~ResourceRef() { if (p_) p_->Unref(); }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  T* p_ = nullptr;
};

// What a container holds, for diagnostics (container actors list these).
struct ContainerListing {
  std::string device;                  // filled in by whoever asks the device
  std::string container;
  std::vector<std::string> resources;  // names, sorted
};

class ResourceMgr {
 public:
  // TensorFlow's default container is called "localhost".
  explicit ResourceMgr(std::string default_container = "localhost");
  ~ResourceMgr();
  ResourceMgr(const ResourceMgr&) = delete;
  ResourceMgr& operator=(const ResourceMgr&) = delete;

  const std::string& default_container() const { return default_container_; }

  // Adds `resource` (taking its reference). ALREADY_EXISTS if the name is
  // taken by a resource of the same type.
  template <typename T>
  Status Create(std::string_view container, std::string_view name, T* resource) {
    return DoCreate(container, typeid(T), T::kTypeName, name, resource);
  }

  // NOT_FOUND if there is no such resource of type T.
  template <typename T>
  Status Lookup(std::string_view container, std::string_view name, ResourceRef<T>* out) const {
    ResourceBase* found = nullptr;
    AF_RETURN_IF_ERROR(DoLookup(container, typeid(T), T::kTypeName, name, &found));
    *out = ResourceRef<T>(static_cast<T*>(found));
    return Status::OK();
  }

  // Finds the resource, or makes it with `creator` (called under the
  // manager's lock, so it must not use the manager) and adds it.
  template <typename T>
  Status LookupOrCreate(std::string_view container, std::string_view name, ResourceRef<T>* out,
                        const std::function<Status(T**)>& creator) {
    ResourceBase* found = nullptr;
    AF_RETURN_IF_ERROR(DoLookupOrCreate(
        container, typeid(T), T::kTypeName, name,
        [&creator](ResourceBase** made) {
          T* t = nullptr;
          Status s = creator(&t);
          *made = t;
          return s;
        },
        &found));
    *out = ResourceRef<T>(static_cast<T*>(found));
    return Status::OK();
  }

  // Drops the manager's reference. NOT_FOUND if absent.
  template <typename T>
  Status Delete(std::string_view container, std::string_view name) {
    return DoDelete(container, typeid(T), T::kTypeName, name);
  }

  // Drops every resource of `container` ("" = the default container). A
  // container that does not exist is already clean: OK.
  Status Cleanup(std::string_view container);

  // Changes whenever a resource leaves the manager (Delete, Cleanup), so
  // that kernels caching a resource know to look it up again.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

  std::vector<std::string> Containers() const;
  // Every container with its resources' names, sorted.
  std::vector<ContainerListing> List() const;
  // "container/name (type): resource's DebugString" per line, sorted.
  std::string DebugString() const;

 private:
  using Key = std::tuple<std::type_index, std::string>;  // (type, name)
  struct Entry {
    std::string type_name;
    ResourceBase* resource = nullptr;  // holds one reference
  };
  using Container = std::map<Key, Entry>;

  std::string ContainerName(std::string_view container) const;
  Status DoCreate(std::string_view container, std::type_index type, std::string_view type_name,
                  std::string_view name, ResourceBase* resource);
  Status DoLookup(std::string_view container, std::type_index type, std::string_view type_name,
                  std::string_view name, ResourceBase** out) const;
  Status DoLookupOrCreate(std::string_view container, std::type_index type,
                          std::string_view type_name, std::string_view name,
                          const std::function<Status(ResourceBase**)>& creator,
                          ResourceBase** out);
  Status DoDelete(std::string_view container, std::type_index type, std::string_view type_name,
                  std::string_view name);

  const std::string default_container_;
  mutable std::mutex mu_;  // guards containers_
  std::map<std::string, Container, std::less<>> containers_;
  std::atomic<uint64_t> generation_{0};
};

// The ResourceMgr of the device called `device_name` in this process, made
// on first use and kept for the life of the process: two sessions running
// on the same device share its named containers.
ResourceMgr* ResourceMgrForDevice(const std::string& device_name);

// Cleans `container` on every device of this process.
void CleanupContainerOnAllDevices(std::string_view container);

}  // namespace af
