// The one way a handler refuses a peer: Admitted(admit, "RunGraph", handler)
// wraps a message handler so that `admit(what)` runs first. A refused
// request is answered with the refusal as a CAF error (actors/transport/caf_status.h:
// the requester's FromCafError turns it back into the same Status); a
// refused one-way message is dropped, which is all a sender that expects no
// answer can be given (CheckPeer logs the first refusal of each node).
//
// The wrapper keeps the handler's exact signature, so CAF matches messages
// against it as against the handler itself.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include "actors/transport/caf_status.h"
#include "core/status.h"

namespace af::actors {
namespace admitted_internal {

template <class Admit, class Handler, class Result, class... Args>
auto Wrap(Admit admit, const char* what, Handler handler,
          Result (Handler::*)(Args...) const) {
  return [admit, what, handler](Args... args) -> Result {
    if (Status s = admit(std::string_view(what)); !s.ok()) {
      if constexpr (std::is_void_v<Result>) {
        return;
      } else {
        return Result(ToCafError(s));
      }
    }
    return handler(std::forward<Args>(args)...);
  };
}

}  // namespace admitted_internal

// `admit`: Status(std::string_view what), e.g. CheckPeer for this actor.
// `handler`: a non-mutable lambda returning void or a caf::result<...>.
template <class Admit, class Handler>
auto Admitted(Admit admit, const char* what, Handler handler) {
  return admitted_internal::Wrap(std::move(admit), what, std::move(handler),
                                 &Handler::operator());
}

}  // namespace af::actors
