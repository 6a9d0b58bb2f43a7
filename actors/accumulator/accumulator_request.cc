#include "actors/accumulator/accumulator_request.h"

#include <utility>

namespace af::actors {

void AccumulatorRequest::Finish(const Status& status, AccumulatorGradient result, int32_t count,
                                bool was_applied) {
  if (!BeginFinish()) return;
  switch (kind) {
    case Kind::kApply:
      if (applied) applied(status, was_applied);
      break;
    case Kind::kTake:
      if (taken) taken(status, std::move(result));
      break;
    case Kind::kNumAccumulated:
      if (counted) counted(status, count);
      break;
    case Kind::kSetGlobalStep:
      if (done) done(status);
      break;
  }
  // Callbacks may hold references of their own (the step, tensors): drop
  // them now rather than whenever the last copy of the request goes.
  applied = nullptr;
  taken = nullptr;
  counted = nullptr;
  done = nullptr;
  gradient = AccumulatorGradient();
  keep_alive = ResourceRef<AccumulatorInterface>();
}

}  // namespace af::actors
