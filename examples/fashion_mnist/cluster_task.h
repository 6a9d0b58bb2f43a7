// Which task of which cluster this trainer is: from --cluster/--job/--task,
// else from TensorFlow's TF_CONFIG (as `actorflow cluster`, Kubernetes
// operators and Slurm wrappers set it); neither: one process.
#pragma once

#include <string>

#include "core/cluster_spec.h"
#include "core/status.h"
#include "examples/fashion_mnist/options.h"

namespace af::fmnist {

struct ClusterTask {
  ClusterSpec spec;
  std::string job;
  int index = -1;

  int num_workers() const { return spec.num_tasks("worker"); }
  int num_ps() const { return spec.num_tasks("ps"); }
  bool is_chief() const { return index == 0; }
  std::string name() const { return ClusterSpec::TaskName(job, index); }
};

// `*found` is false (and OK) when neither flags nor TF_CONFIG name a
// cluster. A task that is not a worker, a cluster without ps or worker
// tasks, or an index outside the worker job is INVALID_ARGUMENT saying what
// to do instead.
Status FindClusterTask(const Options& options, ClusterTask* task, bool* found);

}  // namespace af::fmnist
