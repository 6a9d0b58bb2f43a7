// AccumulatorInterface: what kernels see of a gradient accumulator
// (TensorFlow's ConditionalAccumulator and SparseConditionalAccumulator, the
// building block of SyncReplicasOptimizer). Like a queue, the accumulator
// itself is an actor (actors/accumulator/); kernels cannot include CAF, so
// they reach it through this interface and every operation answers through
// a callback. A take waiting for gradients holds back its step, never a
// thread.
//
// TensorFlow's contract: a gradient whose local_step is below the
// accumulator's global step is stale and dropped (TensorFlow says nothing;
// here the drop is counted, see dropped_gradients()). A take waits until at
// least num_required gradients are held, then hands out their mean (or sum),
// empties the accumulator and increments the global step.
//
// A take ends in one of three ways: it is served, its deadline passes
// (DEADLINE_EXCEEDED) or `cancellation` fires (CANCELLED). Withdrawn takes
// take nothing: the gradients stay for the next one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "core/resource_mgr.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"

namespace af {

class CancellationManager;

struct AccumulatorSpec {
  enum class Kind { kDense, kSparse };
  enum class Reduction { kMean, kSum };
  Kind kind = Kind::kDense;
  std::string name;  // for messages: the shared name, or the creating node's name
  DataType dtype = DT_FLOAT;
  PartialTensorShape shape;  // the op's `shape` attr; unknown dims accept any size
  Reduction reduction = Reduction::kMean;
};

// A gradient handed to an accumulator, or the reduction a take hands out.
// Dense accumulators use `dense`; sparse ones `indices` (int64 [nnz]),
// `values` ([nnz, ...]) and `shape` (int64; on apply only read when
// has_known_shape, as in TensorFlow).
struct AccumulatorGradient {
  Tensor dense;
  Tensor indices, values, shape;
  bool has_known_shape = false;
};

class AccumulatorInterface : public ResourceBase {
 public:
  // Dense and sparse accumulators share one resource type, as in
  // TensorFlow: NumAccumulated and SetGlobalStep work on both.
  static constexpr const char* kTypeName = "ConditionalAccumulator";
  using DoneCallback = std::function<void(const Status&)>;
  // applied: false when the gradient was stale and dropped.
  using ApplyCallback = std::function<void(const Status&, bool applied)>;
  using TakeCallback = std::function<void(const Status&, AccumulatorGradient)>;
  using CountCallback = std::function<void(const Status&, int32_t)>;

  // TensorFlow's apply: held unless stale.
  void ApplyGradient(int64_t local_step, AccumulatorGradient gradient, ApplyCallback done) {
    ApplyGradientUpTo(local_step, 0, std::move(gradient), std::move(done), "");
  }
  // The same, and with max_accumulated > 0 a gradient that finds the
  // accumulator already holding that many is dropped too (a surplus: the
  // step has its replicas_to_aggregate gradients; counted with the stale
  // ones). An Actorflow extension (AccumulatorTryApplyGradient): backup
  // workers apply exactly m gradients per step even when the chief's take
  // arrives after more than m did (TensorFlow then averages them all).
  // `replica` names the sender ("/job:worker/replica:0/task:2"; empty:
  // unnamed), so that a take left waiting can say who has not sent yet.
  virtual void ApplyGradientUpTo(int64_t local_step, int32_t max_accumulated,
                                 AccumulatorGradient gradient, ApplyCallback done,
                                 const std::string& replica) = 0;
  // deadline_ns: absolute steady-clock nanoseconds; 0 means none (the
  // step's cancellation still ends the wait). num_required < 1 is
  // INVALID_ARGUMENT.
  virtual void TakeGradient(int32_t num_required, CancellationManager* cancellation,
                            int64_t deadline_ns, TakeCallback done) = 0;
  virtual void NumAccumulated(CountCallback done) = 0;
  // A smaller step than the current one is set anyway, with a warning
  // (TensorFlow's behaviour).
  virtual void SetGlobalStep(int64_t new_global_step, DoneCallback done) = 0;

  // Gradients dropped since the accumulator was made: stale ones, and the
  // surplus of ApplyGradientUpTo. Readable from any thread; it lags the
  // accumulator by at most the apply in flight.
  virtual int64_t dropped_gradients() const = 0;

  virtual const AccumulatorSpec& spec() const = 0;
};

// "ConditionalAccumulator 'name'" or "SparseConditionalAccumulator 'name'".
std::string AccumulatorLabel(const AccumulatorSpec& spec);

// Whether accumulators of `dtype` exist (half, float, double).
bool IsAccumulatorType(DataType dtype);

// OK if an op asking for `wanted` may use the existing accumulator `have`
// (same kind, dtype, shape and reduction); INVALID_ARGUMENT naming the
// difference otherwise.
Status AccumulatorSpecsMatch(const AccumulatorSpec& have, const AccumulatorSpec& wanted);

// How kernels make accumulators: the actor layer installs a factory when the
// runtime starts (actors/accumulator/). Without one, creating an
// accumulator is FAILED_PRECONDITION.
using AccumulatorFactory =
    std::function<Status(const AccumulatorSpec& spec, AccumulatorInterface** out)>;
void SetAccumulatorFactory(AccumulatorFactory factory);
Status CreateAccumulator(const AccumulatorSpec& spec, AccumulatorInterface** out);

}  // namespace af
