#include "core/step_resources.h"

#include <atomic>

namespace af {

StepResources::~StepResources() {
  for (auto& [name, entry] : resources_) entry.resource->Unref();
}

std::string StepResources::DoAdd(std::string_view prefix, std::type_index type,
                                 ResourceBase* resource) {
  // Unique in the process, not only in the step: a handle kept from an
  // earlier step must not find a later step's object.
  static std::atomic<uint64_t> next{0};
  std::string name(prefix);
  name += '/';
  name += std::to_string(next.fetch_add(1, std::memory_order_relaxed));
  std::lock_guard<std::mutex> lock(mu_);
  resources_.emplace(name, Entry{type, resource});
  return name;
}

Status StepResources::DoLookup(std::string_view name, std::type_index type,
                               std::string_view type_name, ResourceBase** out) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = resources_.find(name);
  if (it == resources_.end() || it->second.type != type)
    return errors::NotFound(type_name, " '", name,
                            "' does not exist in this step (it lives only in the step that "
                            "created it)");
  it->second.resource->Ref();
  *out = it->second.resource;
  return Status::OK();
}

Status StepResources::DoLookupOrCreate(const std::string& name, std::type_index type,
                                       std::string_view type_name,
                                       const std::function<Status(ResourceBase**)>& creator,
                                       ResourceBase** out) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = resources_.find(name);
  if (it != resources_.end()) {
    if (it->second.type != type)
      return errors::AlreadyExists("'", name, "' in this step is not a ", type_name);
    it->second.resource->Ref();
    *out = it->second.resource;
    return Status::OK();
  }
  ResourceBase* made = nullptr;
  AF_RETURN_IF_ERROR(creator(&made));
  resources_.emplace(name, Entry{type, made});
  made->Ref();
  *out = made;
  return Status::OK();
}

size_t StepResources::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return resources_.size();
}

}  // namespace af
