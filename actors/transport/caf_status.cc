#include "actors/transport/caf_status.h"

#include <string>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/error.hpp>
#include <caf/message.hpp>
#include <caf/sec.hpp>

namespace af::actors {
namespace {

constexpr caf::atom_value kStatusCategory = caf::atom("afstatus");

}  // namespace

caf::error ToCafError(const Status& status) {
  return caf::error(static_cast<uint8_t>(status.code()), kStatusCategory,
                    caf::make_message(status.message()));
}

void RegisterStatusErrors(caf::actor_system_config& config) {
  config.add_error_category(kStatusCategory,
                            [](uint8_t code, caf::atom_value, const caf::message& context) {
                              std::string text(CodeName(static_cast<Code>(code)));
                              if (context.match_element<std::string>(0)) {
                                text += ": " + context.get_as<std::string>(0);
                              }
                              return text;
                            });
}

bool CarriesStatus(const caf::error& err) {
  return err.category() == kStatusCategory && err.code() > 0 &&
         err.code() <= static_cast<uint8_t>(Code::UNAUTHENTICATED) &&
         err.context().match_element<std::string>(0);
}

Status FromCafError(caf::actor_system& system, const caf::error& err, std::string_view context) {
  if (!err) return Status::OK();
  const std::string prefix = context.empty() ? std::string() : std::string(context) + " ";
  if (CarriesStatus(err)) {
    Status status(static_cast<Code>(err.code()), err.context().get_as<std::string>(0));
    return context.empty() ? status : status.WithContext(std::string(context));
  }
  if (err == caf::sec::request_timeout) {
    return errors::DeadlineExceeded(prefix, context.empty() ? "the peer " : "",
                                    "did not answer before the deadline");
  }
  return errors::Unavailable(prefix, context.empty() ? "the request " : "",
                             "failed: ", system.render(err));
}

}  // namespace af::actors
