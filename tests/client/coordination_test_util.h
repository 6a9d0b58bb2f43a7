// A fake training for the coordination protocol tests, in one process:
// each worker has its own graph and ClientSession, and the variables,
// accumulators, token queue and clock are shared by name in the process's
// resource managers, as they are on a ps task. The model's gradients are
// constants the test chooses — loss = sum(w * c) + sum(b * 10c), so worker
// i's gradient is c_i for w and 10 c_i for b — which makes every update
// predictable: after plain SGD (learning rate 1/2)
//   w + b / 10 = -1/2 * sum over applied gradients of c / (gradients averaged).
// With `sparse_w` the loss reads w through a Gather, so w's gradient is
// IndexedSlices (one row) and travels through a sparse accumulator; every
// gradient holds that row, so the average is the same.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/coordination/protocol_factory.h"
#include "client/optimizers/gradient_descent.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/accumulator_interface.h"
#include "core/resource_mgr.h"

namespace af::testing {

constexpr double kLearningRate = 0.5;
constexpr int64_t kTestTimeoutMs = 20000;

inline ProtocolOptions TestProtocolOptions() {
  ProtocolOptions options;
  // Every wait of a test ends by itself.
  options.token_timeout_ms = kTestTimeoutMs;
  options.aggregation_timeout_ms = kTestTimeoutMs;
  options.tick_timeout_ms = kTestTimeoutMs;
  options.inactive_after_ms = 0;
  return options;
}

struct FakeWorker {
  FakeWorker(const std::string& spec, int index, int num_workers, const std::string& prefix,
             const ProtocolOptions& options = TestProtocolOptions(), bool sparse_w = false)
      : root(Scope::NewRootScope()), sgd(kLearningRate) {
    c = ops::Placeholder(root.WithOpName("c"), DT_DOUBLE);
    Variable vw(root.WithOpName(prefix + "_w"), Input::Initializer({0.0}));
    Variable vb(root.WithOpName(prefix + "_b"), Input::Initializer({0.0}));
    w = vw.var;
    b = vb.var;
    const Output w_read =
        sparse_w ? Output(ops::Gather(root, w, ops::Const(root, Input::Initializer({0})))) : w;
    auto loss = ops::Add(root, ops::Sum(root, ops::Mul(root, w_read, c), {0}),
                         ops::Sum(root, ops::Mul(root, b, ops::Mul(root, c, 10.0)), {0}));
    global_step = GetOrCreateGlobalStep(root);
    std::vector<GradAndVar> grads_and_vars;
    status = sgd.ComputeGradients(root, loss, {}, &grads_and_vars);
    if (status.ok()) status = CreateCoordinationProtocol(spec, options, &protocol);
    if (status.ok()) {
      ReplicaContext replica;
      replica.worker_index = index;
      replica.num_workers = num_workers;
      replica.is_chief = index == 0;
      replica.optimizer = &sgd;
      replica.global_step = global_step;
      replica.shared_name = prefix;
      status = protocol->Build(root, grads_and_vars, replica);
    }
    session = std::make_unique<ClientSession>(root);
  }

  // The chief's: every variable, once per training.
  Status Initialize() const {
    return session->Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr);
  }
  Status Start() const { return protocol->Start(*session); }
  Status Step(double value) const {
    RunOptions run;
    run.timeout_ms = kTestTimeoutMs;
    return protocol->RunStep(*session, {{c, Tensor::FromVector<double>({value})}}, {}, nullptr,
                             run);
  }
  // w + b / 10 and the global step, read in this worker's session.
  Status Read(double* combined, int64_t* step) const {
    std::vector<Tensor> out;
    AF_RETURN_IF_ERROR(session->Run({w, b, global_step}, &out));
    *combined = out[0].data<double>()[0] + out[1].data<double>()[0] / 10;
    *step = out[2].scalar<int64_t>();
    return Status::OK();
  }

  Scope root;
  GradientDescentOptimizer sgd;
  Output c, w, b, global_step;
  std::unique_ptr<CoordinationProtocol> protocol;
  std::unique_ptr<ClientSession> session;
  Status status;
};

// Gradients the accumulator "<prefix>/<variable>/grad_accum" dropped.
inline int64_t AccumulatorDrops(const std::string& prefix, const std::string& variable) {
  ResourceRef<AccumulatorInterface> acc;
  ResourceMgr* rm = ResourceMgrForDevice("/job:localhost/replica:0/task:0/device:CPU:0");
  if (!rm->Lookup<AccumulatorInterface>("", prefix + "/" + variable + "/grad_accum", &acc).ok())
    return -1;
  return acc->dropped_gradients();
}

}  // namespace af::testing
