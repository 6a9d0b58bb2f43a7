#include "examples/fashion_mnist/cluster_task.h"

#include <cstdlib>

#include "core/slurm_cluster.h"

namespace af::fmnist {

Status FindClusterTask(const Options& options, ClusterTask* task, bool* found) {
  *found = false;
  if (!options.cluster.empty()) {
    AF_RETURN_IF_ERROR(ClusterSpec::FromFlag(options.cluster, &task->spec));
    task->job = options.job;
    task->index = options.task;
  } else if (const char* tf_config = std::getenv("TF_CONFIG");
             tf_config != nullptr && *tf_config != '\0') {
    Status s = ClusterSpec::FromTfConfig(tf_config, &task->spec, &task->job, &task->index);
    if (!s.ok()) return s.WithContext("TF_CONFIG");
  } else {
    // Inside srun with ACTORFLOW_SLURM_JOBS: Slurm's variables say who is who.
    bool from_slurm = false;
    AF_RETURN_IF_ERROR(
        ClusterFromSlurmEnvironment(&task->spec, &task->job, &task->index, &from_slurm));
    if (!from_slurm) return Status::OK();
  }
  if (task->job == "ps") {
    return errors::InvalidArgument(
        "this task is ", task->name(), ": run `actorflow server` for ps tasks (it reads the "
        "same TF_CONFIG, or --cluster SPEC --job ps --task N); fashion_mnist runs the workers");
  }
  if (task->job != "worker" && task->job != "chief") {
    return errors::InvalidArgument("the task's job is '", task->job, "'; fashion_mnist runs ",
                                   "the tasks of job 'worker'");
  }
  if (task->job == "chief") {
    return errors::InvalidArgument("a 'chief' job is not supported: worker 0 is the chief");
  }
  if (task->num_ps() < 1) {
    return errors::InvalidArgument("the cluster has no ps task to hold the variables: ",
                                   task->spec.ToFlag());
  }
  if (task->index < 0 || task->index >= task->num_workers()) {
    return errors::InvalidArgument("task ", task->index, " of job worker is not in the cluster ",
                                   task->spec.ToFlag());
  }
  *found = true;
  return Status::OK();
}

}  // namespace af::fmnist
