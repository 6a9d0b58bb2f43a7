// Partitioned variables (TensorFlow's tf.get_variable(..., partitioner=)):
// one logical variable stored as shards along one axis, each its own
// VariableV2 named "<name>/part_<i>", so a replica_device_setter spreads
// them over the ps tasks (with PsStrategy::kGreedyByBytes a 1 GB table over
// 8 ps tasks lands ~128 MB on each). A table larger than one machine is
// then read by embedding_lookup (client/embedding_ops.h), which sends each
// id to its shard.
//
//   PartitionedVariable table(model.WithOpName("embedding"), {800000, 128}, DT_FLOAT,
//                             FixedSizePartitioner(8), RandomUniformInitializer(-0.05, 0.05));
//   auto rows = EmbeddingLookup(model, table.shards(), ids);
//
// Shards split the axis as TensorFlow does: with n rows in k shards the
// first n % k shards get one row more than the others.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "client/ops.h"
#include "client/save_slice_info.h"
#include "client/scope.h"
#include "client/variables.h"
#include "core/status.h"

namespace af {

// How many shards along each dimension (TensorFlow's partitioners: all 1
// but the partitioned axis).
using Partitioner =
    std::function<std::vector<int>(const TensorShape& shape, DataType dtype)>;

// `num_shards` along `axis` (tf.fixed_size_partitioner); fewer when the
// axis is shorter.
Partitioner FixedSizePartitioner(int num_shards, int axis = 0);
// As many shards along `axis` as keep each at least `min_slice_size` bytes,
// at most `max_partitions` (tf.min_max_variable_partitioner).
Partitioner MinMaxVariablePartitioner(int max_partitions = 1, int axis = 0,
                                      int64_t min_slice_size = 256 << 10,
                                      int64_t bytes_per_string_element = 16);
// Enough shards along `axis` that none exceeds `max_shard_bytes`, at most
// `max_shards` when positive (tf.variable_axis_size_partitioner).
Partitioner VariableAxisSizePartitioner(int64_t max_shard_bytes, int axis = 0,
                                        int64_t bytes_per_string_element = 16,
                                        int max_shards = 0);

// A shard's initial value from its own shape (and its offset in the whole,
// for initializers that depend on position).
using ShardInitializer = std::function<Output(const Scope& scope, const TensorShape& shard_shape,
                                              const std::vector<int64_t>& offset)>;
ShardInitializer ConstantInitializer(double value);
ShardInitializer RandomUniformInitializer(double minval, double maxval, int64_t seed = 0);

class PartitionedVariable {
 public:
  // Named by the scope's op name; an invalid scope status on a bad shape or
  // partitioner answer (the shape must be fully known).
  PartitionedVariable(const Scope& scope, const TensorShape& shape, DataType dtype,
                      const Partitioner& partitioner, const ShardInitializer& initializer,
                      bool trainable = true);

  const std::string& name() const { return name_; }
  const TensorShape& shape() const { return shape_; }
  int axis() const { return axis_; }
  // The shards' variables (ref outputs), in order along the axis.
  const std::vector<Output>& shards() const { return shards_; }
  const std::vector<SaveSliceInfo>& slice_infos() const { return slices_; }
  // The whole, concatenated (reads every shard: for small variables).
  Output AsTensor(const Scope& scope) const;

 private:
  std::string name_;
  TensorShape shape_;
  int axis_ = 0;
  std::vector<Output> shards_;
  std::vector<SaveSliceInfo> slices_;
};

// Row counts of n rows split into k shards (the first n % k get one more).
std::vector<int64_t> ShardSizes(int64_t n, int k);

}  // namespace af
