#include "client/saver.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "client/save_slice_info.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/checkpoint_reader.h"
#include "core/checkpoint_shards.h"
#include "core/checkpoint_slices.h"
#include "core/checkpoint_state.h"
#include "core/node_def_util.h"
#include "core/tensor_slice_spec.h"

namespace af {

namespace {

// The directory a checkpoint prefix lives in, where its `checkpoint` state
// file goes.
std::string DirectoryOf(const std::string& prefix) {
  const size_t slash = prefix.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return prefix.substr(0, slash);
}

// The CPU of the device `device` names (TensorFlow's set_cpu0): where the
// merge of a sharded save runs, beside the last shard.
std::string Cpu0Of(const std::string& device) {
  if (device.empty()) return device;
  std::string job_task = device;
  for (const char* part : {"/device:", "/cpu:", "/gpu:", "/CPU:", "/GPU:"}) {
    const size_t at = job_task.find(part);
    if (at != std::string::npos) job_task.resize(at);
  }
  return job_task + "/device:CPU:0";
}

bool IsVariableOp(const Node* node) {
  return node->type_string() == "VariableV2" || node->type_string() == "Variable";
}

}  // namespace

Saver::Saver(const Scope& scope, SaverOptions options) : options_(std::move(options)) {
  if (!scope.ok()) {
    status_ = scope.status();
    return;
  }
  const std::vector<Output> var_list =
      options_.var_list.empty() ? GlobalVariables(scope) : options_.var_list;
  status_ = CheckpointWriteFormatFromEnv(&format_).WithContext("Saver");
  if (status_.ok()) status_ = CollectVariables(scope, var_list);
  if (!status_.ok()) {
    scope.UpdateStatus(status_);
    return;
  }
  BuildGraph(scope.NewSubScope(options_.name.empty() ? "save" : options_.name), var_list);
  if (!scope.ok()) status_ = scope.status();
}

Status Saver::CollectVariables(const Scope& scope, const std::vector<Output>& var_list) {
  if (var_list.empty())
    return errors::InvalidArgument("Saver: no variables to save in the scope's graph");
  std::set<std::string> seen;
  // What is saved under each checkpoint name: one variable whole, or the
  // distinct slices of one full tensor.
  struct SavedName {
    std::string whole;  // the variable saved whole ("": slices)
    std::vector<int64_t> full_shape;
    DataType dtype = DT_INVALID;
    std::map<std::string, std::string> slices;  // spec -> variable
  };
  std::map<std::string, SavedName> saved_names;
  for (const Output& v : var_list) {
    if (!v.valid() || scope.graph()->FindNodeId(v.node()->id()) != v.node())
      return errors::InvalidArgument("Saver: a var_list entry is not a node of the scope's graph");
    const Node* node = v.node();
    if (!IsVariableOp(node) || v.index() != 0)
      return errors::InvalidArgument("Saver: var_list entry '", v.name(), "' (", node->type_string(),
                                     ") is not a variable");
    if (!seen.insert(node->name()).second)
      return errors::InvalidArgument("Saver: variable '", node->name(),
                                     "' appears twice in var_list");
    SavedVariable saved;
    saved.name = node->name();
    saved.dtype = BaseType(v.type());
    AF_RETURN_IF_ERROR(GetNodeAttr(node->def(), "shape", &saved.shape)
                           .WithContext("Saver: variable '" + node->name() + "'"));
    const SaveSliceInfo* info = scope.FindSaveSliceInfo(node);
    if (info != nullptr) {
      saved.name = info->full_name;
      saved.slice = info->Spec();
      TensorSliceSpec slice;
      AF_RETURN_IF_ERROR(ParseTensorSliceSpec(saved.slice, &slice)
                             .WithContext("Saver: variable '" + node->name() + "'"));
      if (!saved.shape.IsCompatibleWith(PartialTensorShape(slice.length)))
        return errors::InvalidArgument("Saver: variable '", node->name(), "' has shape ",
                                       saved.shape.DebugString(), " but is recorded as slice '",
                                       saved.slice, "' of '", saved.name, "'");
    }
    auto [it, first] = saved_names.try_emplace(saved.name);
    SavedName& under = it->second;
    if (!first && (info == nullptr || !under.whole.empty())) {
      const std::string other = !under.whole.empty() ? under.whole : under.slices.begin()->second;
      return errors::InvalidArgument("Saver: variables '", other, "' and '", node->name(),
                                     "' would both be saved as '", saved.name, "'");
    }
    if (info == nullptr) {
      under.whole = node->name();
    } else {
      if (first) {
        under.full_shape = info->full_shape;
        under.dtype = saved.dtype;
      } else if (under.full_shape != info->full_shape || under.dtype != saved.dtype) {
        return errors::InvalidArgument(
            "Saver: the slices of '", saved.name, "' disagree: '", node->name(), "' is ",
            DataTypeString(saved.dtype), " slice '", saved.slice, "', '",
            under.slices.begin()->second, "' is ", DataTypeString(under.dtype), " slice '",
            under.slices.begin()->first, "'");
      }
      auto [same, added] = under.slices.emplace(saved.slice, node->name());
      if (!added)
        return errors::InvalidArgument("Saver: variables '", same->second, "' and '", node->name(),
                                       "' are both slice '", saved.slice, "' of '", saved.name,
                                       "'");
    }
    names_.push_back(saved.name);
    slices_.push_back(saved.slice);
    variables_.push_back(std::move(saved));
  }
  return Status::OK();
}

// One SaveV2 per device that holds variables, each on that device, writing
// its own shard; the groups keep the variables' order of first appearance.
void Saver::BuildShardedSave(const Scope& s, const std::vector<Output>& var_list) {
  std::vector<std::string> devices;
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < var_list.size(); ++i) {
    const std::string& device = var_list[i].node()->def().device();
    auto it = std::find(devices.begin(), devices.end(), device);
    if (it == devices.end()) {
      devices.push_back(device);
      groups.emplace_back();
      it = devices.end() - 1;
    }
    groups[static_cast<size_t>(it - devices.begin())].push_back(i);
  }
  num_shards_ = static_cast<int>(groups.size());
  const bool bundle = format_ == CheckpointWriteFormat::kBundle;
  Output basename = filename_;
  if (bundle) {
    // Save feeds PREFIX + "_temp/part" (TensorFlow joins the strings in the
    // graph; there is no StringJoin kernel here).
    auto default_temp =
        ops::Const(s.WithOpName("temp_default"), Input::Initializer(std::string("model_temp/part")));
    temp_prefix_ = ops::PlaceholderWithDefault(s.WithOpName("temp_prefix"), default_temp,
                                               PartialTensorShape(TensorShape{}));
    basename = temp_prefix_;
  }
  std::vector<Output> shard_prefixes;
  std::vector<Operation> saves;
  for (size_t g = 0; g < groups.size(); ++g) {
    const Scope shard = s.NewSubScope("shard_" + std::to_string(g)).WithDevice(devices[g]);
    std::vector<std::string> names, specs;
    std::vector<Output> vars;
    for (size_t i : groups[g]) {
      names.push_back(names_[i]);
      specs.push_back(slices_[i]);
      vars.push_back(var_list[i]);
    }
    auto filename = ops::ShardedFilename(shard, basename, static_cast<int32_t>(g),
                                         static_cast<int32_t>(num_shards_));
    shard_prefixes.push_back(filename);
    auto tensor_names = ops::Const(shard.WithOpName("tensor_names"),
                                   Input::Initializer(Tensor::FromVector<std::string>(names)));
    auto slices = ops::Const(shard.WithOpName("shape_and_slices"),
                             Input::Initializer(Tensor::FromVector<std::string>(specs)));
    saves.push_back(ops::SaveV2(shard.WithOpName("SaveV2"), filename, tensor_names, slices,
                                OutputList(vars))
                        .operation);
  }
  if (!bundle) {
    save_op_ = ops::NoOp(s.WithOpName("save_all_shards").WithControlDependencies(saves)).operation;
    return;
  }
  const Scope merge_scope = s.WithDevice(Cpu0Of(devices.back())).WithControlDependencies(saves);
  auto prefixes = ops::Pack(merge_scope.WithOpName("sharded_prefixes"), InputList(shard_prefixes));
  auto merge = ops::MergeV2Checkpoints(merge_scope.WithOpName("MergeV2Checkpoints"), prefixes,
                                       filename_);
  save_op_ = ops::NoOp(s.WithOpName("save_all_shards")
                           .WithControlDependencies(std::vector<Operation>{merge.operation}))
                 .operation;
}

// One RestoreV2 feeds every Assign: it checks every tensor (presence,
// dtype, CRC) before it outputs any, so a bad file fails the step before a
// single variable changes.
void Saver::BuildGraph(const Scope& s, const std::vector<Output>& var_list) {
  auto default_name = ops::Const(s.WithOpName("Const"), Input::Initializer(std::string("model")));
  filename_ = ops::PlaceholderWithDefault(s.WithOpName("filename"), default_name,
                                          PartialTensorShape(TensorShape{}));
  auto names = ops::Const(s.WithOpName("tensor_names"),
                          Input::Initializer(Tensor::FromVector<std::string>(names_)));
  // A shard's slice: SaveV2 writes it as part of its whole, and RestoreV2
  // assembles that part from whatever slices the checkpoint holds.
  auto slices = ops::Const(s.WithOpName("shape_and_slices"),
                           Input::Initializer(Tensor::FromVector<std::string>(slices_)));
  if (options_.sharded) {
    BuildShardedSave(s, var_list);
  } else {
    save_op_ = ops::SaveV2(s.WithOpName("SaveV2"), filename_, names, slices, OutputList(var_list))
                   .operation;
  }
  DataTypeVector dtypes;
  for (const SavedVariable& v : variables_) dtypes.push_back(v.dtype);
  auto restore = ops::RestoreV2(s.WithOpName("RestoreV2"), filename_, names, slices, dtypes);
  if (!s.ok()) return;
  std::vector<Operation> assigns;
  for (size_t i = 0; i < var_list.size(); ++i)
    assigns.push_back(ops::Assign(s.WithOpName("Assign"), var_list[i], restore[i]).operation);
  restore_all_ = ops::NoOp(s.WithOpName("restore_all").WithControlDependencies(assigns)).operation;
}

Status Saver::Save(ClientSession& session, const std::string& prefix, int64_t global_step,
                   std::string* written_path) {
  AF_RETURN_IF_ERROR(status_);
  if (prefix.empty()) return errors::InvalidArgument("Saver: the checkpoint prefix is empty");
  const std::string path =
      global_step >= 0 ? prefix + "-" + std::to_string(global_step) : prefix;
  const bool bundle = format_ == CheckpointWriteFormat::kBundle;
  const std::string context =
      "Saver: saving " + (bundle ? path : checkpoint::DataFilePath(path));
  ClientSession::FeedType feeds{{filename_, Input::Initializer(path)}};
  if (options_.sharded && bundle)
    feeds.emplace(temp_prefix_, Input::Initializer(path + "_temp/part"));
  AF_RETURN_IF_ERROR(session.Run(feeds, {}, {save_op_}, nullptr).WithContext(context));
  // .afckpt shards are all written: the index makes them one checkpoint.
  if (options_.sharded && !bundle)
    AF_RETURN_IF_ERROR(WriteShardIndex(path, num_shards_).WithContext(context));
  if (written_path != nullptr) *written_path = path;
  // The state file is rewritten before older checkpoints are deleted, and
  // the one just written is the newest entry, so it is always kept.
  return RecordCheckpoint(DirectoryOf(path), path, std::max(options_.max_to_keep, 0))
      .WithContext(context);
}

// Shapes are checked here, from the checkpoint's index, because no op of
// the graph can stop every Assign on a mismatch: each Assign checks only
// its own variable's shape, so a mismatch found there could leave others
// already restored. Opening the reader also checks header, footer and
// index (DATA_LOSS for a truncated file). Tensor bytes are not read here;
// RestoreV2 checks their CRCs before any Assign runs. A file this process
// cannot see (it may live only on a remote worker's disk) skips this
// check and leaves the errors to RestoreV2.
Status Saver::CheckAgainstIndex(const std::string& path) const {
  std::unique_ptr<CheckpointSet> checkpoint;
  Status s = CheckpointSet::Open(path, &checkpoint);
  if (errors::IsNotFound(s)) return Status::OK();
  AF_RETURN_IF_ERROR(s);
  const std::string& file = checkpoint->path();
  for (const SavedVariable& v : variables_) {
    if (v.slice.empty()) {
      const CheckpointReader* reader = nullptr;
      if (const checkpoint::TensorEntry* e = checkpoint->Find(v.name, &reader)) {
        if (e->dtype != v.dtype)
          return errors::InvalidArgument("variable '", v.name, "' is ", DataTypeString(v.dtype),
                                         " but checkpoint ", file, " holds ",
                                         DataTypeString(e->dtype));
        if (!v.shape.IsCompatibleWith(e->shape))
          return errors::InvalidArgument("variable '", v.name, "' has shape ",
                                         v.shape.DebugString(), " but checkpoint ", file, " holds ",
                                         e->shape.DebugString());
        continue;
      }
    }
    // A slice, or a variable saved only in slices: what RestoreV2 will
    // assemble must be there in full (NOT_FOUND naming what is missing).
    SliceRestorePlan plan;
    AF_RETURN_IF_ERROR(PlanSliceRestore(*checkpoint, v.name, v.slice, v.dtype, &plan));
    const PartialTensorShape restored(plan.region.length);
    if (!v.shape.IsCompatibleWith(restored))
      return errors::InvalidArgument("variable '", v.name, "' has shape ", v.shape.DebugString(),
                                     " but its slices in checkpoint ", file, " make ",
                                     restored.DebugString());
  }
  return Status::OK();
}

Status Saver::Restore(ClientSession& session, const std::string& path) {
  AF_RETURN_IF_ERROR(status_);
  if (path.empty()) return errors::InvalidArgument("Saver: the checkpoint path is empty");
  const std::string context = "Saver: restoring " + path;
  AF_RETURN_IF_ERROR(CheckAgainstIndex(path).WithContext(context));
  return session.Run({{filename_, Input::Initializer(path)}}, {}, {restore_all_}, nullptr)
      .WithContext(context);
}

std::string LatestCheckpoint(const std::string& dir) {
  std::string prefix, file;
  if (!LatestCheckpoint(dir, &prefix).ok()) return "";
  if (!ResolveCheckpointFile(prefix, &file).ok()) return "";
  return prefix;
}

}  // namespace af
