// Training with variables on parameter-server processes: the replica device
// setter sends the variables (and so their initializers, slots and updates)
// to the ps tasks, the model's compute stays in the client's process, and
// the variables' values live in the ps processes' containers; each ps task
// saves its own shard of a checkpoint.
#include <cmath>

#include <boost/test/unit_test.hpp>

#include "client/client_session.h"
#include "client/optimizers/optimizers.h"
#include "client/replica_device_setter.h"
#include "client/saver.h"
#include "client/standard_ops.h"
#include "core/checkpoint_reader.h"
#include "tests/distributed/server_process.h"
#include "tests/temp_dir_test_util.h"

namespace af {
namespace {

using testing::PsPair;

BOOST_AUTO_TEST_CASE(variables_train_on_two_ps_tasks) {
  PsPair ps;
  BOOST_TEST_REQUIRE(ps.Start().ok());
  const std::string& spec = ps.spec;
  SessionOptions options;
  BOOST_TEST_REQUIRE(ClusterSpec::FromFlag(spec, &options.cluster).ok());
  options.default_timeout_ms = 30000;

  // Fit y = 3x - 1 with w and b on the ps tasks (greedy: w first to task 0,
  // then b to the emptier task 1).
  Scope root = Scope::NewRootScope();
  ReplicaDeviceSetterOptions placement;
  placement.worker_device = "/job:localhost/replica:0/task:0";
  placement.strategy = PsStrategy::kGreedyByBytes;
  std::unique_ptr<ReplicaDeviceSetter> setter;
  BOOST_TEST_REQUIRE(ReplicaDeviceSetter::FromCluster(options.cluster, placement, &setter).ok());
  Scope model = root.WithDeviceFunction(setter->function());
  Variable w(model.WithOpName("w"), Input::Initializer({0.0f}, TensorShape{1, 1}));
  Variable b(model.WithOpName("b"), Input::Initializer({0.0f}, TensorShape{1}));
  auto x = ops::Placeholder(model.WithOpName("x"), DT_FLOAT);
  auto y = ops::Placeholder(model.WithOpName("y"), DT_FLOAT);
  auto predicted = ops::Add(model, ops::MatMul(model, x, w), b);
  auto loss = ops::Mean(model, ops::Square(model, ops::Sub(model, predicted, y)), {0, 1});
  MomentumOptimizer momentum(0.1, 0.9);
  Operation train;
  Status s = momentum.Minimize(model, loss, &train);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(root.graph()->FindNode("w")->def().device() == "/job:ps/task:0");
  BOOST_TEST(root.graph()->FindNode("b")->def().device() == "/job:ps/task:1");
  BOOST_TEST_MESSAGE(setter->LoadReport());

  ClientSession session(root, options);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({}, {}, {GlobalVariablesInitializer(root)}, &out).ok());
  Tensor xs(DT_FLOAT, TensorShape{8, 1}), ys(DT_FLOAT, TensorShape{8, 1});
  for (int i = 0; i < 8; ++i) {
    xs.data<float>()[i] = static_cast<float>(i) / 4 - 1;
    ys.data<float>()[i] = 3 * xs.data<float>()[i] - 1;
  }
  float first = 0, last = 0;
  for (int step = 0; step < 200; ++step) {
    s = session.Run({{x, xs}, {y, ys}}, {loss}, {train}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    (step == 0 ? first : last) = out[0].scalar<float>();
  }
  BOOST_TEST(last < first / 100, "loss " << first << " -> " << last);
  BOOST_TEST_REQUIRE(session.Run({w, b}, &out).ok());
  BOOST_TEST(std::abs(out[0].data<float>()[0] - 3.0f) < 0.05f);
  BOOST_TEST(std::abs(out[1].data<float>()[0] + 1.0f) < 0.05f);
  // The values (and the momentum slots) are held by the ps processes.
  std::vector<ContainerListing> listing;
  BOOST_TEST_REQUIRE(session.session()->ListContainers(&listing).ok());
  int on_ps0 = 0, on_ps1 = 0;
  for (const ContainerListing& l : listing) {
    if (l.device.rfind("/job:ps/replica:0/task:0", 0) == 0) on_ps0 += l.resources.size();
    if (l.device.rfind("/job:ps/replica:0/task:1", 0) == 0) on_ps1 += l.resources.size();
  }
  BOOST_TEST(on_ps0 >= 2);  // w and its momentum slot
  BOOST_TEST(on_ps1 >= 2);  // b and its slot
}


BOOST_AUTO_TEST_CASE(each_ps_task_saves_its_shard_and_any_placement_restores) {
  PsPair ps;
  BOOST_TEST_REQUIRE(ps.Start().ok());
  const std::string& spec = ps.spec;
  testing::TempDir dir("af_sharded");
  const std::string prefix = dir.path() + "/model";

  // Saved over two ps tasks (round robin: u, w on task 0; v on task 1).
  {
    SessionOptions options;
    BOOST_TEST_REQUIRE(ClusterSpec::FromFlag(spec, &options.cluster).ok());
    Scope root = Scope::NewRootScope();
    ReplicaDeviceSetterOptions placement;
    placement.ps_tasks = 2;
    placement.worker_device = "/job:localhost/replica:0/task:0";
    ReplicaDeviceSetter setter(placement);
    Scope model = root.WithDeviceFunction(setter.function());
    Variable u(model.WithOpName("u"), Input::Initializer({1.0f, 2.0f}));
    Variable v(model.WithOpName("v"), Input::Initializer({3.0f}));
    Variable w(model.WithOpName("w"), Input::Initializer(4.0f));
    SaverOptions sharded;
    sharded.sharded = true;
    Saver saver(root, sharded);
    BOOST_TEST_REQUIRE(saver.status().ok(), saver.status());
    ClientSession session(root, options);
    BOOST_TEST_REQUIRE(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr).ok());
    Status s = saver.Save(session, prefix, 5, nullptr);
    BOOST_TEST_REQUIRE(s.ok(), s);
  }
  // Each ps task wrote its part; MergeV2Checkpoints (on ps task 1's CPU)
  // made one TensorFlow bundle with a data file per task.
  std::unique_ptr<CheckpointReader> index;
  BOOST_TEST_REQUIRE(CheckpointReader::Open(prefix + "-5.index", &index).ok());
  BOOST_TEST_REQUIRE(index->Find("v") != nullptr);
  BOOST_TEST_REQUIRE(index->Find("u") != nullptr);
  BOOST_TEST(index->Find("v")->shard_id == 1);
  BOOST_TEST(index->Find("u")->shard_id == 0);

  // Restored with every variable on one ps task (a cluster of another shape).
  SessionOptions options;
  BOOST_TEST_REQUIRE(ClusterSpec::FromFlag(spec, &options.cluster).ok());
  Scope root = Scope::NewRootScope();
  Scope on_ps1 = root.WithDevice("/job:ps/task:1");
  Variable u(on_ps1.WithOpName("u"), Input::Initializer({0.0f, 0.0f}));
  Variable v(on_ps1.WithOpName("v"), Input::Initializer({0.0f}));
  Variable w(on_ps1.WithOpName("w"), Input::Initializer(0.0f));
  Saver saver(root);
  ClientSession session(root, options);
  Status s = saver.Restore(session, LatestCheckpoint(dir.path()));
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({u, v, w}, &out).ok());
  BOOST_TEST(out[0].data<float>()[1] == 2.0f);
  BOOST_TEST(out[1].data<float>()[0] == 3.0f);
  BOOST_TEST(out[2].scalar<float>() == 4.0f);
}

}  // namespace
}  // namespace af
