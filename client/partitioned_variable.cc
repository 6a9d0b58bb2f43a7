#include "client/partitioned_variable.h"

#include <algorithm>
#include <cmath>

#include "client/gradients/grad_helpers.h"
#include "client/standard_ops.h"
#include "core/types.h"

namespace af {

namespace {

int64_t ElementBytes(DataType dtype, int64_t bytes_per_string_element) {
  const DataType base = BaseType(dtype);
  return base == DT_STRING ? bytes_per_string_element : DataTypeSize(base);
}

std::vector<int> OnAxis(const TensorShape& shape, int axis, int shards) {
  std::vector<int> partitions(shape.dims(), 1);
  if (axis >= 0 && axis < shape.dims()) partitions[axis] = std::max(1, shards);
  return partitions;
}

// Bytes of one index along `axis` (the product of the other dims).
double BytesPerSlice(const TensorShape& shape, int axis, DataType dtype,
                     int64_t bytes_per_string_element) {
  double elements = 1;
  for (int d = 0; d < shape.dims(); ++d)
    if (d != axis) elements *= static_cast<double>(shape.dim_size(d));
  return elements * static_cast<double>(ElementBytes(dtype, bytes_per_string_element));
}

}  // namespace

Partitioner FixedSizePartitioner(int num_shards, int axis) {
  return [=](const TensorShape& shape, DataType) {
    const int64_t rows = axis < shape.dims() ? shape.dim_size(axis) : 1;
    return OnAxis(shape, axis, static_cast<int>(std::min<int64_t>(num_shards, rows)));
  };
}

Partitioner MinMaxVariablePartitioner(int max_partitions, int axis, int64_t min_slice_size,
                                      int64_t bytes_per_string_element) {
  return [=](const TensorShape& shape, DataType dtype) {
    if (axis >= shape.dims()) return OnAxis(shape, axis, 1);
    const double per_slice = BytesPerSlice(shape, axis, dtype, bytes_per_string_element);
    const double slices_per_shard =
        std::max(1.0, std::ceil(static_cast<double>(min_slice_size) / std::max(per_slice, 1.0)));
    const double shards = std::ceil(static_cast<double>(shape.dim_size(axis)) / slices_per_shard);
    return OnAxis(shape, axis, static_cast<int>(std::min<double>(shards, max_partitions)));
  };
}

Partitioner VariableAxisSizePartitioner(int64_t max_shard_bytes, int axis,
                                        int64_t bytes_per_string_element, int max_shards) {
  return [=](const TensorShape& shape, DataType dtype) {
    if (axis >= shape.dims()) return OnAxis(shape, axis, 1);
    const double per_slice = BytesPerSlice(shape, axis, dtype, bytes_per_string_element);
    const double slices_per_shard =
        std::max(1.0, std::floor(static_cast<double>(max_shard_bytes) / std::max(per_slice, 1.0)));
    double shards = std::ceil(static_cast<double>(shape.dim_size(axis)) / slices_per_shard);
    if (max_shards > 0) shards = std::min<double>(shards, max_shards);
    return OnAxis(shape, axis, static_cast<int>(shards));
  };
}

ShardInitializer ConstantInitializer(double value) {
  return [value](const Scope& s, const TensorShape& shape, const std::vector<int64_t>&) {
    return Output(ops::Fill(s, grad::IndexVector(s, DT_INT64, shape.dim_vector()),
                            grad::ScalarOfType(s, DT_FLOAT, value)));
  };
}

ShardInitializer RandomUniformInitializer(double minval, double maxval, int64_t seed) {
  return [=](const Scope& s, const TensorShape& shape, const std::vector<int64_t>& offset) {
    // Each shard its own stream: the same seed would repeat rows.
    const int64_t seed2 = offset.empty() ? 0 : offset[0] + 1;
    auto unit = ops::RandomUniform(s, grad::IndexVector(s, DT_INT64, shape.dim_vector()), DT_FLOAT,
                                   ops::RandomUniform::Seed(seed).Seed2(seed2));
    return Output(ops::Add(s, ops::Mul(s, unit, grad::ScalarOfType(s, DT_FLOAT, maxval - minval)),
                           grad::ScalarOfType(s, DT_FLOAT, minval)));
  };
}

std::vector<int64_t> ShardSizes(int64_t n, int k) {
  std::vector<int64_t> sizes(k, n / k);
  for (int64_t i = 0; i < n % k; ++i) ++sizes[i];
  return sizes;
}

PartitionedVariable::PartitionedVariable(const Scope& scope, const TensorShape& shape,
                                         DataType dtype, const Partitioner& partitioner,
                                         const ShardInitializer& initializer, bool trainable)
    : name_(scope.GetUniqueNameForOp("PartitionedVariable")), shape_(shape) {
  if (!scope.ok()) return;
  const std::vector<int> partitions = partitioner(shape, dtype);
  int partitioned_axes = 0;
  bool valid = static_cast<int>(partitions.size()) == shape.dims();
  for (int d = 0; valid && d < shape.dims(); ++d) {
    valid = partitions[d] >= 1 && partitions[d] <= std::max<int64_t>(1, shape.dim_size(d));
    if (partitions[d] > 1) {
      ++partitioned_axes;
      axis_ = d;
    }
  }
  if (!valid || partitioned_axes > 1 || shape.dims() == 0) {
    std::string answer;
    for (int p : partitions) answer += std::to_string(p) + " ";
    scope.UpdateStatus(errors::InvalidArgument(
        "partitioned variable '", name_, "' of shape ", shape.DebugString(),
        ": the partitioner answered [", answer,
        "]; it must give one count per dimension, at most the dimension's size, and "
        "split one axis only"));
    return;
  }
  const int num_shards = partitions[axis_];
  const std::vector<int64_t> sizes = ShardSizes(shape.dim_size(axis_), num_shards);
  int64_t offset = 0;
  for (int i = 0; i < num_shards; ++i) {
    TensorShape shard_shape = shape;
    shard_shape.set_dim(axis_, sizes[i]);
    std::vector<int64_t> shard_offset(shape.dims(), 0);
    shard_offset[axis_] = offset;
    const std::string shard_name = name_ + "/part_" + std::to_string(i);
    const Scope shard_scope = scope.WithOpName(shard_name);
    // Built next to its shard, as TensorFlow colocates a partitioned
    // variable's initializers: a shard's initial value never crosses.
    Variable v(
        shard_scope, PartialTensorShape(shard_shape), dtype,
        Variable::InitialValueFn([&](const Scope& init_scope) {
          return initializer(init_scope, shard_shape, shard_offset);
        }),
        trainable);
    if (!scope.ok()) return;
    shards_.push_back(v.var);
    slices_.push_back(
        SaveSliceInfo{name_, shape.dim_vector(), shard_offset, shard_shape.dim_vector()});
    scope.RecordSaveSliceInfo(v.var.op(), slices_.back());
    offset += sizes[i];
  }
}

Output PartitionedVariable::AsTensor(const Scope& scope) const {
  if (shards_.size() == 1) return ops::Identity(scope, shards_[0]);
  return ops::ConcatV2(scope, OutputList(shards_), grad::ScalarOfType(scope, DT_INT32, axis_));
}

}  // namespace af
