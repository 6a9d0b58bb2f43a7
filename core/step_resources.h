// StepResources: resources that live for exactly one step on one device
// (stacks and tensor arrays). The executor makes one per RunAsync and drops
// it when the step ends, so a creating op run again in the next step starts
// from scratch and nothing outlives the step that made it.
//
// A ResourceMgr of its own with one container: the step adds resources under
// names unique in the process, and handles reach them by that name. Lookups
// do not depend on the frame or iteration, so a handle entering a while
// loop finds the same object from every iteration. Thread-safe.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "core/resource_mgr.h"
#include "core/status.h"

namespace af {

class StepResources {
 public:
  // The container name handles to per-step resources carry.
  static constexpr const char* kContainer = "_step";

  StepResources() : resources_(kContainer) {}

  // Adds `resource` (taking its reference) under a name unique in the
  // process, "<prefix>/<n>", and returns that name.
  template <typename T>
  std::string Add(std::string_view prefix, T* resource) {
    std::string name = UniqueName(prefix);
    // A name never handed out before cannot be taken.
    (void)resources_.Create<T>(kContainer, name, resource);
    return name;
  }

  // NOT_FOUND if no resource of type T is called `name` in this step (a
  // handle from another step, or one whose step has ended).
  template <typename T>
  Status Lookup(std::string_view name, ResourceRef<T>* out) const {
    Status s = resources_.Lookup<T>(kContainer, name, out);
    if (s.code() == Code::NOT_FOUND)
      return errors::NotFound(T::kTypeName, " '", name,
                              "' does not exist in this step (it lives only in the step that "
                              "created it)");
    return s;
  }

  // The resource called exactly `name`, made by `creator` (under the lock,
  // so it must not use this object) when absent.
  template <typename T>
  Status LookupOrCreate(const std::string& name, ResourceRef<T>* out,
                        const std::function<Status(T**)>& creator) {
    return resources_.LookupOrCreate<T>(kContainer, name, out, creator);
  }

 private:
  // Unique in the process, not only in the step: a handle kept from an
  // earlier step must not find a later step's object.
  static std::string UniqueName(std::string_view prefix);

  ResourceMgr resources_;
};

}  // namespace af
