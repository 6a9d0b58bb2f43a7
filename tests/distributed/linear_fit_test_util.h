// The model of the training-recovery tests: y = 3x - 1 fitted by SGD on 8
// points, its variables (w [1,1], b [1], the global step) placed on the ps
// tasks of a cluster by a replica device setter, its ops on this process.
#pragma once

#include <memory>

#include <boost/test/unit_test.hpp>

#include "client/optimizers/optimizers.h"
#include "client/replica_device_setter.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/cluster_spec.h"

namespace af::testing {

struct LinearFit {
  Output w, b, global_step, x, y, loss;
  Operation train;
  Tensor xs{DT_FLOAT, TensorShape{8, 1}}, ys{DT_FLOAT, TensorShape{8, 1}};

  LinearFit(const Scope& root, const ClusterSpec& cluster,
            PsStrategy strategy = ReplicaDeviceSetterOptions().strategy) {
    ReplicaDeviceSetterOptions placement;
    placement.worker_device = "/job:localhost/replica:0/task:0";
    placement.strategy = strategy;
    std::unique_ptr<ReplicaDeviceSetter> setter;
    BOOST_TEST_REQUIRE(ReplicaDeviceSetter::FromCluster(cluster, placement, &setter).ok());
    Scope model = root.WithDeviceFunction(setter->function());
    w = Variable(model.WithOpName("w"), Input::Initializer({0.0f}, TensorShape{1, 1})).var;
    b = Variable(model.WithOpName("b"), Input::Initializer({0.0f}, TensorShape{1})).var;
    global_step = GetOrCreateGlobalStep(model);
    x = ops::Placeholder(model.WithOpName("x"), DT_FLOAT);
    y = ops::Placeholder(model.WithOpName("y"), DT_FLOAT);
    auto predicted = ops::Add(model, ops::MatMul(model, x, w), b);
    loss = ops::Mean(model, ops::Square(model, ops::Sub(model, predicted, y)), {0, 1});
    GradientDescentOptimizer sgd(0.1);
    Status s = sgd.Minimize(model, loss, &train);
    BOOST_TEST_REQUIRE(s.ok(), s);
    for (int i = 0; i < 8; ++i) {
      xs.data<float>()[i] = static_cast<float>(i) / 4 - 1;
      ys.data<float>()[i] = 3 * xs.data<float>()[i] - 1;
    }
  }
};

}  // namespace af::testing
