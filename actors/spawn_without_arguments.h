#pragma once

#include <type_traits>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/unit.hpp>

namespace af::actors {

// CAF 0.17.6 keeps a function actor's spawn arguments in a shared tuple and,
// when there are none, leaves that pointer null yet still binds a reference
// through it when the actor starts (caf/detail/init_fun_factory.hpp): undefined
// behaviour that UBSan stops on. An argument-less function actor is therefore
// spawned here with one ignored argument, which makes CAF allocate the tuple.
// `Self` is the actor's base (caf::event_based_actor or caf::blocking_actor);
// `fun` takes `Self*` or nothing.
template <class Self, class F>
caf::actor SpawnWithoutArguments(caf::actor_system& system, F fun) {
  return system.spawn(
      [fun = std::move(fun)](Self* self, caf::unit_t) mutable {
        if constexpr (std::is_invocable_v<F&, Self*>) {
          return fun(self);
        } else {
          return fun();
        }
      },
      caf::unit);
}

}  // namespace af::actors
