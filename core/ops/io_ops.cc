// Checkpoint ops: SaveV2/RestoreV2/MergeV2Checkpoints and TensorFlow 1's
// Save/Restore. The file formats are docs/checkpoint-format.md.
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

Status SaveV2Shape(InferenceContext* c) {
  PartialTensorShape s;
  AF_RETURN_IF_ERROR(c->WithRank(0, 0, &s));  // prefix
  PartialTensorShape names, slices;
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &names));
  AF_RETURN_IF_ERROR(c->WithRank(2, 1, &slices));
  const int num_tensors = c->num_inputs() - 3;
  if (names.dim_size(0) >= 0 && names.dim_size(0) != num_tensors)
    return c->InvalidArgument("tensor_names has ", names.dim_size(0), " entries for ",
                              num_tensors, " tensors");
  if (slices.dim_size(0) >= 0 && slices.dim_size(0) != num_tensors)
    return c->InvalidArgument("shape_and_slices has ", slices.dim_size(0), " entries for ",
                              num_tensors, " tensors");
  return Status::OK();
}

Status RestoreV2Shape(InferenceContext* c) {
  PartialTensorShape s;
  AF_RETURN_IF_ERROR(c->WithRank(0, 0, &s));
  PartialTensorShape names, slices;
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &names));
  AF_RETURN_IF_ERROR(c->WithRank(2, 1, &slices));
  if (names.dim_size(0) >= 0 && names.dim_size(0) != c->num_outputs())
    return c->InvalidArgument("tensor_names has ", names.dim_size(0), " entries for ",
                              c->num_outputs(), " dtypes");
  return shape_fn::UnknownShape(c);
}

Status SaveShape(InferenceContext* c) {
  PartialTensorShape s;
  AF_RETURN_IF_ERROR(c->WithRank(0, 0, &s));
  PartialTensorShape names;
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &names));
  const int num_tensors = c->num_inputs() - 2;
  if (names.dim_size(0) >= 0 && names.dim_size(0) != num_tensors)
    return c->InvalidArgument("tensor_names has ", names.dim_size(0), " entries for ",
                              num_tensors, " tensors");
  return Status::OK();
}

Status ShardedFilenameShape(InferenceContext* c) {
  PartialTensorShape s;
  for (int i = 0; i < 3; ++i) AF_RETURN_IF_ERROR(c->WithRank(i, 0, &s));
  return shape_fn::ScalarShape(c);
}
Status MergeV2CheckpointsShape(InferenceContext* c) {
  PartialTensorShape s;
  AF_RETURN_IF_ERROR(c->WithRank(0, 1, &s));
  AF_RETURN_IF_ERROR(c->WithRank(1, 0, &s));
  return Status::OK();
}

Status RestoreShape(InferenceContext* c) {
  PartialTensorShape s;
  AF_RETURN_IF_ERROR(c->WithRank(0, 0, &s));
  AF_RETURN_IF_ERROR(c->WithRank(1, 0, &s));
  return shape_fn::UnknownShape(c);
}

}  // namespace

REGISTER_OP("SaveV2")
    .Input("prefix: string")
    .Input("tensor_names: string")
    .Input("shape_and_slices: string")
    .Input("tensors: dtypes")
    .Attr("dtypes: list(type)")
    .SetIsStateful()
    .SetShapeFn(SaveV2Shape)
    .Doc("Writes the tensors to the checkpoint PREFIX: TensorFlow's tensor bundle "
         "(PREFIX.index, PREFIX.data-00000-of-00001), or PREFIX.afckpt with "
         "ACTORFLOW_CHECKPOINT_FORMAT=afckpt; atomically.");

// The last step of a sharded save (core/bundle/bundle_merge.h).
REGISTER_OP("MergeV2Checkpoints")
    .Input("checkpoint_prefixes: string")
    .Input("destination_prefix: string")
    .Attr("delete_old_dirs: bool = true")
    .Attr("allow_missing_files: bool = false")
    .SetIsStateful()
    .SetShapeFn(MergeV2CheckpointsShape)
    .Doc("Merges the tensor bundles CHECKPOINT_PREFIXES into DESTINATION_PREFIX.");

// The shard's prefix of a sharded checkpoint, "BASENAME-00001-of-00002"
// (core/checkpoint_shards.h).
REGISTER_OP("ShardedFilename")
    .Input("basename: string")
    .Input("shard: int32")
    .Input("num_shards: int32")
    .Output("filename: string")
    .SetShapeFn(ShardedFilenameShape)
    .Doc("The prefix of shard SHARD of NUM_SHARDS of the checkpoint BASENAME.");

REGISTER_OP("RestoreV2")
    .Input("prefix: string")
    .Input("tensor_names: string")
    .Input("shape_and_slices: string")
    .Output("tensors: dtypes")
    .Attr("dtypes: list(type)")
    .SetIsStateful()
    .SetShapeFn(RestoreV2Shape)
    .Doc("Reads tensors from a checkpoint; all are verified before any is output.");

REGISTER_OP("Save")
    .Input("filename: string")
    .Input("tensor_names: string")
    .Input("data: T")
    .Attr("T: list(type)")
    .SetIsStateful()
    .SetShapeFn(SaveShape)
    .Doc("Writes the tensors to the checkpoint file `filename` (atomically).");

REGISTER_OP("Restore")
    .Input("file_pattern: string")
    .Input("tensor_name: string")
    .Output("tensor: dt")
    .Attr("dt: type")
    .Attr("preferred_shard: int = -1")
    .SetIsStateful()
    .SetShapeFn(RestoreShape)
    .Doc("Reads one tensor from a checkpoint file.");

}  // namespace af
