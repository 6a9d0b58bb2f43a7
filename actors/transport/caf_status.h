// The one bridge between CAF's errors and Status, both ways. Handlers whose
// typed answer has no status field refuse or fail with ToCafError(status);
// every requester turns what comes back into a Status with FromCafError,
// so a refusal keeps its code and message across the network and a lost or
// silent peer reads the same everywhere.
#pragma once

#include <string_view>

#include <caf/fwd.hpp>

#include "core/status.h"

namespace af::actors {

// `status` as a CAF error of Actorflow's category (its code and message).
caf::error ToCafError(const Status& status);

// Registers that category with a system's config, so that
// actor_system::render shows "UNAUTHENTICATED: refused ...".
void RegisterStatusErrors(caf::actor_system_config& config);

// What `err` means to whoever sent the request, `context` naming the call
// and its peer ("Run: the master at h:p"):
//   no error                 OK
//   a ToCafError status      that status, prefixed with `context`
//   request_timeout          DEADLINE_EXCEEDED "<context> did not answer before the deadline"
//   anything else            UNAVAILABLE "<context> failed: <CAF's text>"
Status FromCafError(caf::actor_system& system, const caf::error& err, std::string_view context);

// Whether `err` carries a Status (ToCafError).
bool CarriesStatus(const caf::error& err);

}  // namespace af::actors
