// Rendezvous: where a Send kernel leaves a tensor for the matching Recv.
// Keys come from RendezvousKey() (core/rendezvous_key.h), in TensorFlow's
// layout. Within a process the Recv gets the very buffer the Send gave (no
// copy); dead flags travel with the value. The step-scoped implementation
// lives in runtime/rendezvous.h.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/op_kernel.h"
#include "core/rendezvous_key.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af {

class Rendezvous {
 public:
  using DoneCallback =
      std::function<void(const Status& status, const Tensor& value, bool is_dead)>;
  virtual ~Rendezvous() = default;
  // Never blocks. Fails if the step was aborted or the key already sent.
  virtual Status Send(const std::string& key, const Tensor& value, bool is_dead) = 0;
  // Calls `done` once, when the value arrives or the rendezvous aborts
  // (possibly right away, on the calling thread).
  virtual void RecvAsync(const std::string& key, DoneCallback done) = 0;
  // Fails every waiting and future Recv with `status`.
  virtual void StartAbort(const Status& status) = 0;
};

}  // namespace af
