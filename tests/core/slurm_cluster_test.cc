// Slurm's environment to a cluster (core/slurm_cluster.h): the compressed
// host-list and tasks-per-node syntaxes, TensorFlow's SlurmClusterResolver
// dealing of ranks to jobs in name order with ports port_base + the task's
// offset on its node, and clear errors for what does not add up.
#include <map>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "core/slurm_cluster.h"

namespace af {
namespace {

std::vector<std::string> Hosts(const std::string& list) {
  std::vector<std::string> hosts;
  const Status s = ExpandSlurmHostList(list, &hosts);
  BOOST_TEST(s.ok(), s);
  return hosts;
}

EnvironmentLookup Env(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

BOOST_AUTO_TEST_SUITE(slurm_cluster)

BOOST_AUTO_TEST_CASE(host_lists_expand_as_slurm_writes_them) {
  using V = std::vector<std::string>;
  BOOST_TEST(Hosts("node1") == V({"node1"}));
  BOOST_TEST(Hosts("node[01-03,7]") == V({"node01", "node02", "node03", "node7"}));
  BOOST_TEST(Hosts("a[8-10],login") == V({"a8", "a9", "a10", "login"}));
  BOOST_TEST(Hosts("rack[1-2]-n[1-2]") == V({"rack1-n1", "rack1-n2", "rack2-n1", "rack2-n2"}));
  BOOST_TEST(Hosts("gpu[001-002]-ib,cpu3") == V({"gpu001-ib", "gpu002-ib", "cpu3"}));
  std::vector<std::string> hosts;
  for (const char* bad : {"", "node[1-", "node]1", "node[3-1]", "node[a-b]", "a,,b", "n[1-99999999]"}) {
    BOOST_TEST(errors::IsInvalidArgument(ExpandSlurmHostList(bad, &hosts)), bad);
  }
}

BOOST_AUTO_TEST_CASE(tasks_per_node_and_jobs_parse) {
  std::vector<int> counts;
  BOOST_TEST_REQUIRE(ExpandSlurmTasksPerNode("2(x3),1", &counts).ok());
  BOOST_TEST(counts == std::vector<int>({2, 2, 2, 1}));
  BOOST_TEST_REQUIRE(ExpandSlurmTasksPerNode("4", &counts).ok());
  BOOST_TEST(counts == std::vector<int>({4}));
  for (const char* bad : {"", "0", "2(x0)", "2(3)", "x", "2(x3"}) {
    BOOST_TEST(errors::IsInvalidArgument(ExpandSlurmTasksPerNode(bad, &counts)), bad);
  }
  std::vector<std::pair<std::string, int>> jobs;
  BOOST_TEST_REQUIRE(ParseSlurmJobs("worker=2,ps:1", &jobs).ok());
  BOOST_TEST((jobs == std::vector<std::pair<std::string, int>>{{"ps", 1}, {"worker", 2}}));
  for (const char* bad : {"", "ps", "ps=0", "=2", "ps=1,ps=2", "ps=x"}) {
    BOOST_TEST(errors::IsInvalidArgument(ParseSlurmJobs(bad, &jobs)), bad);
  }
}

BOOST_AUTO_TEST_CASE(ranks_are_dealt_to_jobs_in_name_order_with_ports_per_node) {
  // Two nodes, three tasks on node9 and one on node10: ranks 0-2 on node9.
  std::map<std::string, std::string> vars = {{"SLURM_STEP_NODELIST", "node[9-10]"},
                                             {"SLURM_STEP_TASKS_PER_NODE", "3,1"},
                                             {"SLURM_STEP_NUM_TASKS", "4"}};
  const std::vector<std::pair<std::string, int>> jobs = {{"ps", 1}, {"worker", 3}};
  const std::vector<std::pair<std::string, int>> want = {
      {"ps", 0}, {"worker", 0}, {"worker", 1}, {"worker", 2}};
  for (int rank = 0; rank < 4; ++rank) {
    vars["SLURM_PROCID"] = std::to_string(rank);
    ClusterSpec cluster;
    std::string job;
    int task = -1;
    const Status s = ResolveSlurmCluster(jobs, 2222, Env(vars), &cluster, &job, &task);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST(job == want[rank].first);
    BOOST_TEST(task == want[rank].second);
    BOOST_TEST(cluster.ToFlag() ==
               "ps=node9:2222;worker=node9:2223,node9:2224,node10:2222");
  }
  // No jobs: every task a worker; the job's variables when the step's are absent.
  ClusterSpec cluster;
  std::string job;
  int task = -1;
  const Status s = ResolveSlurmCluster(
      {}, kSlurmDefaultPortBase,
      Env({{"SLURM_PROCID", "1"}, {"SLURM_JOB_NODELIST", "n1,n2"}, {"SLURM_TASKS_PER_NODE", "1(x2)"},
           {"SLURM_NTASKS", "2"}}),
      &cluster, &job, &task);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(job == "worker");
  BOOST_TEST(task == 1);
  BOOST_TEST(cluster.ToFlag() == "worker=n1:8888,n2:8888");
}

BOOST_AUTO_TEST_CASE(what_does_not_add_up_is_refused_clearly) {
  ClusterSpec cluster;
  std::string job;
  int task = -1;
  const auto resolve = [&](std::map<std::string, std::string> vars,
                           std::vector<std::pair<std::string, int>> jobs = {}) {
    return ResolveSlurmCluster(jobs, 8888, Env(std::move(vars)), &cluster, &job, &task);
  };
  const Status outside = resolve({});
  BOOST_TEST(errors::IsUnavailable(outside), outside);
  BOOST_TEST(outside.message().find("SLURM_PROCID") != std::string::npos);
  const std::map<std::string, std::string> base = {
      {"SLURM_PROCID", "0"}, {"SLURM_STEP_NODELIST", "n[1-2]"},
      {"SLURM_STEP_TASKS_PER_NODE", "1(x2)"}};
  Status s = resolve(base, {{"ps", 1}, {"worker", 2}});
  BOOST_TEST(errors::IsInvalidArgument(s), s);
  BOOST_TEST(s.message().find("ask for 3 tasks but the Slurm step has 2") != std::string::npos, s);
  auto mismatch = base;
  mismatch["SLURM_STEP_TASKS_PER_NODE"] = "1";
  s = resolve(mismatch);
  BOOST_TEST(s.message().find("names 2 nodes but") != std::string::npos, s);
  auto count = base;
  count["SLURM_STEP_NUM_TASKS"] = "3";
  s = resolve(count);
  BOOST_TEST(s.message().find("SLURM_STEP_NUM_TASKS is 3") != std::string::npos, s);
  auto rank = base;
  rank["SLURM_PROCID"] = "7";
  s = resolve(rank);
  BOOST_TEST(s.message().find("beyond the step's 2 tasks") != std::string::npos, s);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
