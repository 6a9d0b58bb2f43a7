// StepResources: resources that live for exactly one step on one device
// (stacks and tensor arrays). The executor makes one per RunAsync and drops
// it when the step ends, so a creating op run again in the next step starts
// from scratch and nothing outlives the step that made it.
//
// Unlike ResourceMgr there are no containers and no sharing by name across
// steps: names are made unique per process by Add, and handles reach the
// resource by that name. Lookups do not depend on the frame or iteration,
// so a handle entering a while loop finds the same object from every
// iteration. Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <typeindex>

#include "core/resource_mgr.h"
#include "core/status.h"

namespace af {

class StepResources {
 public:
  StepResources() = default;
  ~StepResources();
  StepResources(const StepResources&) = delete;
  StepResources& operator=(const StepResources&) = delete;

  // Adds `resource` (taking its reference) under a name unique in the
  // process, "<prefix>/<n>", and returns that name.
  template <typename T>
  std::string Add(std::string_view prefix, T* resource) {
    return DoAdd(prefix, typeid(T), resource);
  }

  // NOT_FOUND if no resource of type T is called `name` in this step (a
  // handle from another step, or one whose step has ended).
  template <typename T>
  Status Lookup(std::string_view name, ResourceRef<T>* out) const {
    ResourceBase* found = nullptr;
    AF_RETURN_IF_ERROR(DoLookup(name, typeid(T), T::kTypeName, &found));
    *out = ResourceRef<T>(static_cast<T*>(found));
    return Status::OK();
  }

  // The resource called exactly `name`, made by `creator` (under this
  // object's lock, so it must not use this object) when absent.
  template <typename T>
  Status LookupOrCreate(const std::string& name, ResourceRef<T>* out,
                        const std::function<Status(T**)>& creator) {
    ResourceBase* found = nullptr;
    AF_RETURN_IF_ERROR(DoLookupOrCreate(
        name, typeid(T), T::kTypeName,
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

  size_t size() const;

 private:
  struct Entry {
    std::type_index type;
    ResourceBase* resource;  // holds one reference
  };
  std::string DoAdd(std::string_view prefix, std::type_index type, ResourceBase* resource);
  Status DoLookup(std::string_view name, std::type_index type, std::string_view type_name,
                  ResourceBase** out) const;
  Status DoLookupOrCreate(const std::string& name, std::type_index type, std::string_view type_name,
                          const std::function<Status(ResourceBase**)>& creator, ResourceBase** out);

  mutable std::mutex mu_;
  std::map<std::string, Entry, std::less<>> resources_;
};

}  // namespace af
