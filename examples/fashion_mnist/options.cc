#include "examples/fashion_mnist/options.h"

#include <cstdlib>
#include <functional>
#include <map>

namespace af::fmnist {
namespace {

Status ToInt(const std::string& flag, const std::string& v, int64_t* out) {
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0') return errors::InvalidArgument(flag, ": not an integer: '", v, "'");
  *out = n;
  return Status::OK();
}

Status ToDouble(const std::string& flag, const std::string& v, double* out) {
  char* end = nullptr;
  *out = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0') return errors::InvalidArgument(flag, ": not a number: '", v, "'");
  return Status::OK();
}

Status ToBool(const std::string& flag, const std::string& v, bool* out) {
  if (v == "true" || v == "1" || v == "yes") *out = true;
  else if (v == "false" || v == "0" || v == "no") *out = false;
  else return errors::InvalidArgument(flag, ": expected true or false, got '", v, "'");
  return Status::OK();
}

}  // namespace

const char* Usage() {
  return "usage: fashion_mnist [--model cnn|mlp] [--batch 64] [--epochs 1]\n"
         "         [--optimizer adam|momentum|sgd|adagrad|rmsprop] [--learning_rate R]\n"
         "         [--lr_decay 0.1]\n"
         "         [--threads 2] [--device cpu|gpu] [--data_dir DIR] [--logdir DIR] [--checkpoint_secs 60]\n"
         "         [--resume true|false] [--max_examples N] [--seed 1] [--export_dir DIR]\n"
         "         [--trace FILE.json] [--summary_steps 50] [--progress true|false]\n"
         "         [--cluster SPEC --job worker --task I] [--protocol async|sync|backup:B|ssp:S]\n"
         "         [--ps_strategy greedy|round_robin] [--sync_timeout_ms 30000]\n"
         "         [--shard_replica_steps N]\n"
         "Trains on Fashion-MNIST read by reader ops through a shuffling queue,\n"
         "evaluates on the 10,000 test images after each epoch, checkpoints to\n"
         "--logdir every --checkpoint_secs and resumes from its latest checkpoint.\n"
         "--export_dir writes the trained model as a TensorFlow SavedModel (tag serve,\n"
         "signature serving_default: images [N,28,28,1] -> logits [N,10]).\n"
         "\n"
         "Across a cluster (--cluster/--job/--task, or TensorFlow's TF_CONFIG as\n"
         "`actorflow cluster --ps 2 --workers 3 -- fashion_mnist ...` sets it): the\n"
         "variables live on the ps tasks, each worker trains on its own shuffle of\n"
         "the data and combines its gradients by --protocol; worker 0 (the chief)\n"
         "initializes or restores them, checkpoints to --logdir, evaluates after\n"
         "each epoch (60,000 examples applied) and reports every worker's figures.\n"
         "With sync and backup the chief waits --sync_timeout_ms for a step's gradients,\n"
         "then goes on with the workers left. --shard_replica_steps N: the chief copies\n"
         "each ps task's variables to the next ps task every N steps, and a ps task that\n"
         "dies and comes back gets them from there instead of from the checkpoint.\n";
}

Status ParseOptions(int argc, char** argv, Options* o, bool* help) {
  *help = false;
  int64_t n = 0;
  using Setter = std::function<Status(const std::string&, const std::string&)>;
  const std::map<std::string, Setter> setters = {
      {"--model", [&](auto&, auto& v) { o->model = v; return Status::OK(); }},
      {"--batch", [&](auto& f, auto& v) { AF_RETURN_IF_ERROR(ToInt(f, v, &n)); o->batch = static_cast<int>(n); return Status::OK(); }},
      {"--epochs", [&](auto& f, auto& v) { AF_RETURN_IF_ERROR(ToInt(f, v, &n)); o->epochs = static_cast<int>(n); return Status::OK(); }},
      {"--optimizer", [&](auto&, auto& v) { o->optimizer = v; return Status::OK(); }},
      {"--learning_rate", [&](auto& f, auto& v) { return ToDouble(f, v, &o->learning_rate); }},
      {"--lr_decay", [&](auto& f, auto& v) { return ToDouble(f, v, &o->lr_decay); }},
      {"--device", [&](auto&, auto& v) { o->device = v; return Status::OK(); }},
      {"--threads", [&](auto& f, auto& v) { AF_RETURN_IF_ERROR(ToInt(f, v, &n)); o->threads = static_cast<int>(n); return Status::OK(); }},
      {"--data_dir", [&](auto&, auto& v) { o->data_dir = v; return Status::OK(); }},
      {"--logdir", [&](auto&, auto& v) { o->logdir = v; return Status::OK(); }},
      {"--export_dir", [&](auto&, auto& v) { o->export_dir = v; return Status::OK(); }},
      {"--checkpoint_secs", [&](auto& f, auto& v) { return ToDouble(f, v, &o->checkpoint_secs); }},
      {"--resume", [&](auto& f, auto& v) { return ToBool(f, v, &o->resume); }},
      {"--max_examples", [&](auto& f, auto& v) { return ToInt(f, v, &o->max_examples); }},
      {"--seed", [&](auto& f, auto& v) { return ToInt(f, v, &o->seed); }},
      {"--trace", [&](auto&, auto& v) { o->trace_path = v; return Status::OK(); }},
      {"--summary_steps", [&](auto& f, auto& v) { AF_RETURN_IF_ERROR(ToInt(f, v, &n)); o->summary_steps = static_cast<int>(n); return Status::OK(); }},
      {"--progress", [&](auto& f, auto& v) { return ToBool(f, v, &o->progress); }},
      {"--cluster", [&](auto&, auto& v) { o->cluster = v; return Status::OK(); }},
      {"--job", [&](auto&, auto& v) { o->job = v; return Status::OK(); }},
      {"--task", [&](auto& f, auto& v) { AF_RETURN_IF_ERROR(ToInt(f, v, &n)); o->task = static_cast<int>(n); return Status::OK(); }},
      {"--protocol", [&](auto&, auto& v) { o->protocol = v; return Status::OK(); }},
      {"--ps_strategy", [&](auto&, auto& v) { o->ps_strategy = v; return Status::OK(); }},
      {"--sync_timeout_ms", [&](auto& f, auto& v) { return ToInt(f, v, &o->sync_timeout_ms); }},
      {"--shard_replica_steps", [&](auto& f, auto& v) { return ToInt(f, v, &o->shard_replica_steps); }},
  };
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i], value;
    if (flag == "--help" || flag == "-h") {
      *help = true;
      return Status::OK();
    }
    const size_t eq = flag.find('=');
    if (eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    } else {
      if (i + 1 >= argc) return errors::InvalidArgument(flag, " needs a value");
      value = argv[++i];
    }
    auto it = setters.find(flag);
    if (it == setters.end()) return errors::InvalidArgument("unknown flag ", flag);
    AF_RETURN_IF_ERROR(it->second(flag, value));
  }
  if (o->model != "cnn" && o->model != "mlp")
    return errors::InvalidArgument("--model must be cnn or mlp, got '", o->model, "'");
  if (o->batch < 1) return errors::InvalidArgument("--batch must be positive");
  if (o->epochs < 1) return errors::InvalidArgument("--epochs must be positive");
  if (o->threads < 1) return errors::InvalidArgument("--threads must be positive");
  if (o->device != "cpu" && o->device != "gpu")
    return errors::InvalidArgument("--device must be cpu or gpu, got '", o->device, "'");
  if (o->lr_decay <= 0 || o->lr_decay > 1)
    return errors::InvalidArgument("--lr_decay must be in (0, 1]");
  if (o->max_examples < 0) return errors::InvalidArgument("--max_examples must be >= 0");
  if (o->ps_strategy != "greedy" && o->ps_strategy != "round_robin")
    return errors::InvalidArgument("--ps_strategy must be greedy or round_robin, got '",
                                   o->ps_strategy, "'");
  if (o->sync_timeout_ms < 1) return errors::InvalidArgument("--sync_timeout_ms must be positive");
  if (o->shard_replica_steps < 0)
    return errors::InvalidArgument("--shard_replica_steps must be 0 (off) or positive");
  if (!o->cluster.empty() && (o->job.empty() || o->task < 0))
    return errors::InvalidArgument("--cluster needs --job and --task");
  return Status::OK();
}

}  // namespace af::fmnist
