#include "actors/resources/waiting_request.h"

namespace af::actors {

bool WaitingRequest::BeginFinish() {
  if (finished) return false;
  finished = true;
  if (cancellation != nullptr && token != CancellationManager::kInvalidToken) {
    cancellation->Deregister(token);
  }
  cancellation = nullptr;
  return true;
}

}  // namespace af::actors
