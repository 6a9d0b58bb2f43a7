#include "client/coordination/protocol_factory.h"

#include <charconv>
#include <map>
#include <mutex>

#include "client/coordination/async_protocol.h"
#include "client/coordination/ssp_protocol.h"
#include "client/coordination/sync_replicas_protocol.h"

namespace af {
namespace {

constexpr const char* kExpected = "async, sync, backup:B or ssp:S";

// The whole number after "name:", or INVALID_ARGUMENT naming the spec.
Status ParseCount(std::string_view spec, std::string_view rest, const char* what,
                  int64_t* value) {
  const char* end = rest.data() + rest.size();
  auto [ptr, ec] = std::from_chars(rest.data(), end, *value);
  if (rest.empty() || ec != std::errc() || ptr != end || *value < 0) {
    return errors::InvalidArgument("coordination protocol '", spec, "': ", what,
                                   " must be a whole number >= 0 (expected ", kExpected, ")");
  }
  return Status::OK();
}

std::mutex& RegistryMutex() {
  static std::mutex mu;
  return mu;
}

std::map<std::string, ProtocolMaker, std::less<>>& Registry() {
  static auto* registry = new std::map<std::string, ProtocolMaker, std::less<>>();
  return *registry;
}

bool IsBuiltIn(std::string_view kind) {
  return kind == "async" || kind == "sync" || kind == "backup" || kind == "ssp";
}

}  // namespace

Status RegisterCoordinationProtocol(const std::string& kind, ProtocolMaker maker) {
  if (kind.empty() || kind.find(':') != std::string::npos || !maker) {
    return errors::InvalidArgument("coordination protocol kind '", kind,
                                   "': a name without ':' and a maker are needed");
  }
  std::lock_guard<std::mutex> lock(RegistryMutex());
  if (IsBuiltIn(kind) || !Registry().emplace(kind, std::move(maker)).second) {
    return errors::AlreadyExists("coordination protocol '", kind, "' exists already");
  }
  return Status::OK();
}

Status CreateCoordinationProtocol(std::string_view spec, const ProtocolOptions& options,
                                  std::unique_ptr<CoordinationProtocol>* out) {
  if (spec == "async") {
    *out = std::make_unique<AsyncProtocol>();
    return Status::OK();
  }
  if (spec == "sync") {
    *out = std::make_unique<SyncReplicasProtocol>("sync", 0, options);
    return Status::OK();
  }
  const size_t colon = spec.find(':');
  const std::string_view kind = spec.substr(0, colon);
  if (colon != std::string_view::npos && kind == "backup") {
    int64_t backup = 0;
    AF_RETURN_IF_ERROR(ParseCount(spec, spec.substr(colon + 1), "the number of backup workers",
                                  &backup));
    *out = std::make_unique<SyncReplicasProtocol>(std::string(spec), backup, options);
    return Status::OK();
  }
  if (colon != std::string_view::npos && kind == "ssp") {
    int64_t staleness = 0;
    AF_RETURN_IF_ERROR(ParseCount(spec, spec.substr(colon + 1), "the staleness bound",
                                  &staleness));
    *out = std::make_unique<SspProtocol>(std::string(spec), staleness, options);
    return Status::OK();
  }
  ProtocolMaker maker;
  {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    if (auto it = Registry().find(kind); it != Registry().end()) maker = it->second;
  }
  if (maker) {
    const std::string_view argument =
        colon == std::string_view::npos ? std::string_view() : spec.substr(colon + 1);
    return maker(spec, argument, options, out);
  }
  return errors::InvalidArgument("unknown coordination protocol '", spec, "' (expected ",
                                 kExpected, ")");
}

}  // namespace af
