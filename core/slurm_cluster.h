// A cluster from Slurm's environment, as TensorFlow's SlurmClusterResolver
// builds one, so that `srun actorflow server ...` and `srun PROGRAM` form a
// cluster with no wrapper script (issue 28). Each task of the job step gets
// a rank (SLURM_PROCID); the step's nodes (SLURM_STEP_NODELIST, else
// SLURM_JOB_NODELIST, in Slurm's compressed host-list syntax) run
// SLURM_STEP_TASKS_PER_NODE tasks each ("2(x3),1"; else
// SLURM_TASKS_PER_NODE); the task at offset i on a node listens on
// port_base + i; and ranks are dealt to the jobs in the jobs' name order
// ("ps" before "worker"), each job taking as many as it asks for. The jobs
// must account for every task of the step (SLURM_STEP_NUM_TASKS, else
// SLURM_NTASKS). Where TensorFlow sorts the hosts by name, the nodes keep
// Slurm's order here, which is the order Slurm deals the ranks in
// (node9 before node10; docs/decisions.md). No CAF here.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/cluster_spec.h"
#include "core/status.h"

namespace af {

inline constexpr int kSlurmDefaultPortBase = 8888;  // TensorFlow's default

// "node[01-03,7],login,rack[1-2]-n[1-2]" -> node01 node02 node03 node7 login
// rack1-n1 rack1-n2 rack2-n1 rack2-n2; zero padding kept.
Status ExpandSlurmHostList(std::string_view list, std::vector<std::string>* hosts);
// "2(x3),1" -> 2 2 2 1.
Status ExpandSlurmTasksPerNode(std::string_view spec, std::vector<int>* counts);
// "ps=1,worker=2" (or "ps:1,worker:2"); names sorted, counts positive.
Status ParseSlurmJobs(std::string_view spec, std::vector<std::pair<std::string, int>>* jobs);

// Reads one environment variable (null: unset); getenv by default.
using EnvironmentLookup = std::function<const char*(const char*)>;

// The cluster of this Slurm job step and this task's job and index. `jobs`
// empty: every task is a "worker". UNAVAILABLE when SLURM_PROCID is unset
// (not inside srun); INVALID_ARGUMENT naming the variable otherwise.
Status ResolveSlurmCluster(const std::vector<std::pair<std::string, int>>& jobs, int port_base,
                           const EnvironmentLookup& env, ClusterSpec* cluster, std::string* job,
                           int* task);

// The cluster of this Slurm step when ACTORFLOW_SLURM_JOBS names its jobs
// ("ps=1,worker=2"; ACTORFLOW_SLURM_PORT_BASE, default 8888): `*found` is
// false, and the status OK, when that variable is unset.
inline constexpr char kSlurmJobsEnv[] = "ACTORFLOW_SLURM_JOBS";
inline constexpr char kSlurmPortBaseEnv[] = "ACTORFLOW_SLURM_PORT_BASE";
Status ClusterFromSlurmEnvironment(ClusterSpec* cluster, std::string* job, int* task,
                                   bool* found);

}  // namespace af
