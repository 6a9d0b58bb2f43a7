// Helpers for the accumulator tests: a float ConditionalAccumulator with
// fed apply, take and set-global-step ops, run through a ClientSession
// with a deadline, and a way to read an accumulator's drop count.
#pragma once

#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/standard_ops.h"
#include "core/accumulator_interface.h"
#include "core/resource_mgr.h"
#include "tests/actors/queue_test_util.h"

namespace af::testing {

inline std::vector<float> FloatsOf(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

// A ConditionalAccumulator of floats (or its Resource* form): `step` and
// `gradient` feed `apply`, `num_required` feeds `take`, `new_step` feeds
// `set_step`.
struct DenseAccumulator {
  DenseAccumulator(const PartialTensorShape& shape, const std::string& shared_name,
                   const std::string& reduction = "MEAN", bool resource = false)
      : root(Scope::NewRootScope()) {
    step = ops::Placeholder(root.WithOpName("local_step"), DT_INT64);
    gradient = ops::Placeholder(root.WithOpName("gradient"), DT_FLOAT);
    num_required = ops::Placeholder(root.WithOpName("num_required"), DT_INT32);
    new_step = ops::Placeholder(root.WithOpName("new_step"), DT_INT64);
    if (resource) {
      handle = ops::ResourceConditionalAccumulator(
          root.WithOpName("acc"), DT_FLOAT, shape,
          ops::ResourceConditionalAccumulator::SharedName(shared_name).ReductionType(reduction));
      apply = ops::ResourceAccumulatorApplyGradient(root.WithOpName("apply"), handle, step,
                                                    gradient)
                  .operation;
      take = ops::ResourceAccumulatorTakeGradient(root.WithOpName("take"), handle, num_required,
                                                  DT_FLOAT);
      num = ops::ResourceAccumulatorNumAccumulated(root.WithOpName("num"), handle);
      set_step = ops::ResourceAccumulatorSetGlobalStep(root.WithOpName("set_step"), handle,
                                                       new_step)
                     .operation;
    } else {
      handle = ops::ConditionalAccumulator(
          root.WithOpName("acc"), DT_FLOAT, shape,
          ops::ConditionalAccumulator::SharedName(shared_name).ReductionType(reduction));
      apply = ops::AccumulatorApplyGradient(root.WithOpName("apply"), handle, step, gradient)
                  .operation;
      take = ops::AccumulatorTakeGradient(root.WithOpName("take"), handle, num_required,
                                          DT_FLOAT);
      num = ops::AccumulatorNumAccumulated(root.WithOpName("num"), handle);
      set_step =
          ops::AccumulatorSetGlobalStep(root.WithOpName("set_step"), handle, new_step).operation;
    }
  }

  Status Apply(const ClientSession& s, int64_t local_step, const Tensor& g) const {
    return s.Run(WithTimeout(kRunTimeoutMs), {{step, local_step}, {gradient, g}}, {}, {apply},
                 nullptr);
  }
  Status Apply(const ClientSession& s, int64_t local_step, const std::vector<float>& g) const {
    return Apply(s, local_step, Tensor::FromVector<float>(g));
  }
  Status Take(const ClientSession& s, int32_t n, Tensor* out,
              int64_t timeout_ms = kRunTimeoutMs) const {
    std::vector<Tensor> got;
    Status st = s.Run(WithTimeout(timeout_ms), {{num_required, n}}, {take}, {}, &got);
    if (st.ok()) *out = got[0];
    return st;
  }
  int32_t Num(const ClientSession& s) const {
    std::vector<Tensor> out;
    Status st = Fetch(s, {num}, &out);
    return st.ok() ? out[0].scalar<int32_t>() : -1;
  }
  Status SetGlobalStep(const ClientSession& s, int64_t v) const {
    return s.Run(WithTimeout(kRunTimeoutMs), {{new_step, v}}, {}, {set_step}, nullptr);
  }

  Scope root;
  Output step, gradient, num_required, new_step;
  Output handle;
  Operation apply;
  Output take, num;
  Operation set_step;
};

// Stale gradients the shared accumulator `shared_name` on the first CPU
// device dropped; -1 if there is no such accumulator.
inline int64_t DroppedGradients(const std::string& shared_name) {
  ResourceRef<AccumulatorInterface> acc;
  ResourceMgr* rm = ResourceMgrForDevice("/job:localhost/replica:0/task:0/device:CPU:0");
  if (!rm->Lookup<AccumulatorInterface>("", shared_name, &acc).ok()) return -1;
  return acc->dropped_gradients();
}

}  // namespace af::testing
