#include "core/accumulator_interface.h"

#include <mutex>
#include <utility>

namespace af {
namespace {

std::mutex& FactoryMutex() {
  static std::mutex mu;
  return mu;
}

AccumulatorFactory& Factory() {
  static AccumulatorFactory factory;
  return factory;
}

const char* ReductionName(AccumulatorSpec::Reduction r) {
  return r == AccumulatorSpec::Reduction::kMean ? "MEAN" : "SUM";
}

}  // namespace

std::string AccumulatorLabel(const AccumulatorSpec& spec) {
  return std::string(spec.kind == AccumulatorSpec::Kind::kSparse ? "SparseConditionalAccumulator"
                                                                 : "ConditionalAccumulator") +
         " '" + spec.name + "'";
}

bool IsAccumulatorType(DataType dtype) {
  return dtype == DT_HALF || dtype == DT_FLOAT || dtype == DT_DOUBLE;
}

Status AccumulatorSpecsMatch(const AccumulatorSpec& have, const AccumulatorSpec& wanted) {
  // TensorFlow shares whatever it finds under the name; a mismatch there
  // surfaces later as shape errors or wrong sums, so it is refused here.
  const std::string label = AccumulatorLabel(have);
  if (have.kind != wanted.kind) {
    return errors::InvalidArgument("the shared ", label, " is not a ",
                                   wanted.kind == AccumulatorSpec::Kind::kSparse
                                       ? "SparseConditionalAccumulator"
                                       : "ConditionalAccumulator");
  }
  if (have.dtype != wanted.dtype) {
    return errors::InvalidArgument("the shared ", label, " accumulates ",
                                   DataTypeString(have.dtype), ", not ",
                                   DataTypeString(wanted.dtype));
  }
  if (!(have.shape == wanted.shape)) {
    return errors::InvalidArgument("the shared ", label, " has shape ", have.shape.DebugString(),
                                   ", not ", wanted.shape.DebugString());
  }
  if (have.reduction != wanted.reduction) {
    return errors::InvalidArgument("the shared ", label, " has reduction_type ",
                                   ReductionName(have.reduction), ", not ",
                                   ReductionName(wanted.reduction));
  }
  return Status::OK();
}

void SetAccumulatorFactory(AccumulatorFactory factory) {
  std::lock_guard<std::mutex> lock(FactoryMutex());
  Factory() = std::move(factory);
}

Status CreateAccumulator(const AccumulatorSpec& spec, AccumulatorInterface** out) {
  AccumulatorFactory factory;
  {
    std::lock_guard<std::mutex> lock(FactoryMutex());
    factory = Factory();
  }
  if (!factory) {
    return errors::FailedPrecondition(AccumulatorLabel(spec),
                                      ": accumulators need the actor runtime (start a Session)");
  }
  return factory(spec, out);
}

}  // namespace af
