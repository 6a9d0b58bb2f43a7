#include "core/resource_mgr.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>

namespace af {

ResourceMgr::ResourceMgr(std::string default_container)
    : default_container_(std::move(default_container)) {}

ResourceMgr::~ResourceMgr() {
  for (auto& [name, container] : containers_)
    for (auto& [key, entry] : container) entry.resource->Unref();
}

std::string ResourceMgr::ContainerName(std::string_view container) const {
  return container.empty() ? default_container_ : std::string(container);
}

Status ResourceMgr::DoCreate(std::string_view container, std::type_index type,
                             std::string_view type_name, std::string_view name,
                             ResourceBase* resource) {
  const std::string cname = ContainerName(container);
  std::lock_guard<std::mutex> lock(mu_);
  Container& c = containers_[cname];
  auto [it, inserted] = c.try_emplace(Key(type, std::string(name)),
                                      Entry{std::string(type_name), resource});
  if (!inserted) {
    resource->Unref();
    return errors::AlreadyExists("resource ", cname, "/", name, " of type ", type_name,
                                 " already exists");
  }
  return Status::OK();
}

Status ResourceMgr::DoLookup(std::string_view container, std::type_index type,
                             std::string_view type_name, std::string_view name,
                             ResourceBase** out) const {
  const std::string cname = ContainerName(container);
  std::lock_guard<std::mutex> lock(mu_);
  auto c = containers_.find(cname);
  if (c != containers_.end()) {
    auto it = c->second.find(Key(type, std::string(name)));
    if (it != c->second.end()) {
      it->second.resource->Ref();
      *out = it->second.resource;
      return Status::OK();
    }
  }
  return errors::NotFound("resource ", cname, "/", name, " of type ", type_name,
                          " does not exist");
}

Status ResourceMgr::DoLookupOrCreate(std::string_view container, std::type_index type,
                                     std::string_view type_name, std::string_view name,
                                     const std::function<Status(ResourceBase**)>& creator,
                                     ResourceBase** out) {
  const std::string cname = ContainerName(container);
  std::lock_guard<std::mutex> lock(mu_);
  Container& c = containers_[cname];
  Key key(type, std::string(name));
  auto it = c.find(key);
  if (it == c.end()) {
    ResourceBase* made = nullptr;
    Status s = creator(&made);
    if (!s.ok()) {
      if (made != nullptr) made->Unref();
      if (c.empty()) containers_.erase(cname);
      return s;
    }
    if (made == nullptr)
      return errors::Internal("the creator of resource ", cname, "/", name, " made nothing");
    it = c.emplace(std::move(key), Entry{std::string(type_name), made}).first;
  }
  it->second.resource->Ref();
  *out = it->second.resource;
  return Status::OK();
}

Status ResourceMgr::DoDelete(std::string_view container, std::type_index type,
                             std::string_view type_name, std::string_view name) {
  const std::string cname = ContainerName(container);
  ResourceBase* doomed = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto c = containers_.find(cname);
    if (c != containers_.end()) {
      auto it = c->second.find(Key(type, std::string(name)));
      if (it != c->second.end()) {
        doomed = it->second.resource;
        c->second.erase(it);
        if (c->second.empty()) containers_.erase(c);
        generation_.fetch_add(1, std::memory_order_acq_rel);
      }
    }
  }
  if (doomed == nullptr)
    return errors::NotFound("resource ", cname, "/", name, " of type ", type_name,
                            " does not exist");
  doomed->Unref();  // outside the lock: a destructor may be slow
  return Status::OK();
}

Status ResourceMgr::Cleanup(std::string_view container) {
  const std::string cname = ContainerName(container);
  Container doomed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto c = containers_.find(cname);
    if (c == containers_.end()) return Status::OK();
    doomed = std::move(c->second);
    containers_.erase(c);
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
  for (auto& [key, entry] : doomed) entry.resource->Unref();
  return Status::OK();
}

std::vector<std::string> ResourceMgr::Containers() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, container] : containers_) names.push_back(name);
  return names;
}

std::vector<ContainerListing> ResourceMgr::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ContainerListing> out;
  for (const auto& [cname, container] : containers_) {
    ContainerListing listing;
    listing.container = cname;
    for (const auto& [key, entry] : container) listing.resources.push_back(std::get<1>(key));
    std::sort(listing.resources.begin(), listing.resources.end());
    out.push_back(std::move(listing));
  }
  return out;
}

std::string ResourceMgr::DebugString() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::ostringstream os;
  for (const auto& [cname, container] : containers_) {
    std::map<std::string, std::string> lines;  // by name, for a stable order
    for (const auto& [key, entry] : container)
      lines.emplace(std::get<1>(key) + " (" + entry.type_name + ")",
                    entry.resource->DebugString());
    for (const auto& [what, debug] : lines) os << cname << "/" << what << ": " << debug << "\n";
  }
  return os.str();
}

namespace {

struct DeviceRegistry {
  std::mutex mu;  // guards by_device
  std::unordered_map<std::string, std::unique_ptr<ResourceMgr>> by_device;
};

DeviceRegistry& Registry() {
  // Never destroyed: kernels of static-lifetime objects may still hold
  // managers when the process exits.
  static auto* registry = new DeviceRegistry;
  return *registry;
}

}  // namespace

ResourceMgr* ResourceMgrForDevice(const std::string& device_name) {
  DeviceRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::unique_ptr<ResourceMgr>& mgr = r.by_device[device_name];
  if (!mgr) mgr = std::make_unique<ResourceMgr>();
  return mgr.get();
}

void CleanupContainerOnAllDevices(std::string_view container) {
  std::vector<ResourceMgr*> mgrs;
  {
    DeviceRegistry& r = Registry();
    std::lock_guard<std::mutex> lock(r.mu);
    for (auto& [name, mgr] : r.by_device) mgrs.push_back(mgr.get());
  }
  for (ResourceMgr* mgr : mgrs) mgr->Cleanup(container).ok();
}

}  // namespace af
