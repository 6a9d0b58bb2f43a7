// `actorflow server` inside a Slurm job step (core/slurm_cluster.h): two
// tasks of one node started as srun would start them (the same command, a
// different SLURM_PROCID each) with ACTORFLOW_SLURM_JOBS="ps=1,worker=1"
// find their job, index and port by themselves, and a client reaches both.
// No Slurm daemon is needed: srun's contract with its tasks is the
// environment.
#include <signal.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "client/session.h"
#include "tests/distributed/server_process.h"

namespace af {
namespace {

using testing::ServerProcess;

// Sets the variables for the servers started while it lives.
struct SlurmStep {
  SlurmStep(int port_base, int rank) {
    setenv("SLURM_PROCID", std::to_string(rank).c_str(), 1);
    setenv("SLURM_STEP_NODELIST", "127.0.0.1", 1);
    setenv("SLURM_STEP_TASKS_PER_NODE", "2", 1);
    setenv("SLURM_STEP_NUM_TASKS", "2", 1);
    setenv("ACTORFLOW_SLURM_JOBS", "worker=1,ps=1", 1);
    setenv("ACTORFLOW_SLURM_PORT_BASE", std::to_string(port_base).c_str(), 1);
    unsetenv("TF_CONFIG");
  }
  ~SlurmStep() {
    for (const char* name : {"SLURM_PROCID", "SLURM_STEP_NODELIST", "SLURM_STEP_TASKS_PER_NODE",
                             "SLURM_STEP_NUM_TASKS", "ACTORFLOW_SLURM_JOBS",
                             "ACTORFLOW_SLURM_PORT_BASE"}) {
      unsetenv(name);
    }
  }
};

BOOST_AUTO_TEST_SUITE(slurm_server)

BOOST_AUTO_TEST_CASE(tasks_of_a_step_find_their_job_and_port_from_slurms_environment) {
  // Two consecutive free ports: retried from another base if one is taken.
  ServerProcess ps, worker;
  int base = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    base = 20000 + static_cast<int>((getpid() * 7 + attempt * 997) % 30000);
    ps.any_port = worker.any_port = false;
    Status a, b;
    {
      SlurmStep step(base, 0);
      a = ps.Start({});
    }
    if (a.ok()) {
      SlurmStep step(base, 1);
      b = worker.Start({});
    }
    if (a.ok() && b.ok()) break;
    ps.Stop(SIGTERM);
    worker.Stop(SIGTERM);
    base = 0;
  }
  BOOST_TEST_REQUIRE(base != 0, ps.output() << worker.output());
  // Jobs in name order: rank 0 is ps 0 on the base port, rank 1 worker 0.
  BOOST_TEST(ps.port() == base, ps.output());
  BOOST_TEST(worker.port() == base + 1, worker.output());
  BOOST_TEST(ps.output().find("/job:ps/replica:0/task:0/device:CPU:0") != std::string::npos,
             ps.output());
  BOOST_TEST(worker.output().find("/job:worker/replica:0/task:0/device:CPU:0") !=
                 std::string::npos,
             worker.output());

  SessionOptions options;
  options.target = "af://" + worker.address();  // its master knows the ps task from Slurm
  options.default_timeout_ms = 30000;
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  bool ps_listed = false;
  for (const DeviceAttributes& device : session->ListDevices()) {
    ps_listed = ps_listed || device.name.find("/job:ps/replica:0/task:0") == 0;
  }
  BOOST_TEST(ps_listed);
  BOOST_TEST(session->Close().ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
