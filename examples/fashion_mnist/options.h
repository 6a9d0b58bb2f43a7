// Command-line options of the Fashion-MNIST trainer.
#pragma once

#include <string>

#include "core/status.h"

namespace af::fmnist {

struct Options {
  std::string model = "cnn";      // mlp | cnn
  int batch = 64;
  int epochs = 1;
  std::string optimizer = "adam";  // adam | momentum | sgd | adagrad | rmsprop
  double learning_rate = 0;       // 0: the optimizer's default
  double lr_decay = 0.1;          // the rate falls to lr * lr_decay by the last step
  int threads = 2;                // intra-op threads of the CPU device
  std::string device = "cpu";     // "gpu": the model and its training on /device:GPU:0
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  std::string logdir;             // checkpoints and event files; "" = none
  std::string export_dir;         // a TensorFlow SavedModel of the trained model; "" = none
  double checkpoint_secs = 60;    // 0: only at epoch ends
  bool resume = true;             // continue from logdir's latest checkpoint
  int64_t max_examples = 0;       // train on the first N examples only (0: all)
  int64_t seed = 1;
  std::string trace_path;         // Chrome trace of one step (step 20)
  int summary_steps = 50;         // loss summary every N steps
  bool progress = true;           // a progress bar when stderr is a terminal
  // Training across a cluster (examples/fashion_mnist/cluster_task.h): from
  // --cluster/--job/--task, else from TF_CONFIG; neither: one process.
  std::string cluster;            // "ps=h:p,h:p;worker=h:p,h:p,h:p"
  std::string job;                // worker (ps tasks are `actorflow server`s)
  int task = -1;
  std::string protocol = "async";  // async | sync | backup:B | ssp:S
  std::string ps_strategy = "greedy";  // greedy (by bytes) | round_robin
  // sync, backup: how long the chief waits for a step's gradients before it
  // goes on with the workers left (a lost worker's replacement has this
  // long to arrive).
  int64_t sync_timeout_ms = 30000;
  // The chief copies each ps task's variables to the next ps task every N
  // of its steps and restores a lost task from them (0: off; the
  // checkpoint is then the only way back).
  int64_t shard_replica_steps = 0;
};

// Parses --flag value / --flag=value pairs; INVALID_ARGUMENT naming the flag.
Status ParseOptions(int argc, char** argv, Options* out, bool* help);
const char* Usage();

}  // namespace af::fmnist
