// The graph ShardReplicas adds (client/training/shard_replicas.h): a copy of
// every ps variable on the next ps task, slots included (they follow their
// variable's task), none of it in a collection the saver, init_op or the
// ready check read, and nothing at all with fewer than two ps tasks.
#include <boost/test/unit_test.hpp>

#include "client/optimizers/optimizers.h"
#include "client/standard_ops.h"
#include "client/training/shard_replicas.h"
#include "client/variables.h"

namespace af {
namespace {

std::string DeviceOf(const Scope& root, const std::string& name) {
  const Node* node = root.graph()->FindNode(name);
  BOOST_TEST_REQUIRE(node != nullptr, name << " is not in the graph");
  return node->def().device();
}

// w on ps 0, b on ps 1, the global step on ps 2, with Adam's slots.
Scope ThreePsModel() {
  Scope root = Scope::NewRootScope();
  auto w = Variable(root.WithOpName("w").WithDevice("/job:ps/task:0"),
                    Input::Initializer({1.0f, 2.0f}, TensorShape{2}));
  auto b = Variable(root.WithOpName("b").WithDevice("/job:ps/task:1"),
                    Input::Initializer({0.5f}, TensorShape{1}));
  GetOrCreateGlobalStep(root.WithDevice("/job:ps/task:2"));
  auto loss = ops::Sum(root, ops::Add(root, w.var, b.var), {0});
  Operation train;
  AdamOptimizer adam(0.01);
  BOOST_TEST_REQUIRE(adam.Minimize(root, loss, &train).ok());
  return root;
}

BOOST_AUTO_TEST_SUITE(shard_replicas_graph)

BOOST_AUTO_TEST_CASE(each_ps_tasks_variables_get_a_copy_on_the_next_task) {
  Scope root = ThreePsModel();
  const size_t globals = GlobalVariables(root).size();
  std::shared_ptr<ShardReplicas> replicas;
  Status s = ShardReplicas::Build(root, &replicas);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST_REQUIRE(replicas != nullptr);
  BOOST_TEST(replicas->tasks() ==
                 (std::vector<std::string>{"/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:2"}),
             boost::test_tools::per_element());
  BOOST_TEST(DeviceOf(root, "shard_replicas/w/replica") == "/job:ps/task:1");
  BOOST_TEST(DeviceOf(root, "shard_replicas/b/replica") == "/job:ps/task:2");
  BOOST_TEST(DeviceOf(root, "shard_replicas/global_step/replica") == "/job:ps/task:0");
  // A slot without a device of its own follows its variable's task.
  BOOST_TEST(DeviceOf(root, "shard_replicas/w/Adam/replica") == "/job:ps/task:1");
  BOOST_TEST(DeviceOf(root, "shard_replicas/replica_step/task_2") == "/job:ps/task:0");
  // Not saved, not initialized by init_op, not in the ready check.
  BOOST_TEST(GlobalVariables(root).size() == globals);
  BOOST_TEST(replicas->refresh_op().node() != nullptr);
}

BOOST_AUTO_TEST_CASE(one_ps_task_has_no_neighbour_and_gets_no_replicas) {
  Scope root = Scope::NewRootScope();
  Variable(root.WithOpName("w").WithDevice("/job:ps/task:0"), Input::Initializer({1.0f}));
  Variable(root.WithOpName("local"), Input::Initializer({1.0f}));
  std::shared_ptr<ShardReplicas> replicas;
  BOOST_TEST_REQUIRE(ShardReplicas::Build(root, &replicas).ok());
  BOOST_TEST(replicas == nullptr);
  BOOST_TEST(root.graph()->FindNode("shard_replicas/w/replica") == nullptr);
}

BOOST_AUTO_TEST_CASE(a_restore_names_the_shard_its_holder_and_the_step) {
  ReplicaRestore restore;
  restore.shards.push_back({"/job:ps/task:1", "/job:ps/task:2", 812, 12});
  BOOST_TEST(ShardReplicas::Describe(restore) ==
             "/job:ps/task:1 from /job:ps/task:2 at global step 812 (12 variables)");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
