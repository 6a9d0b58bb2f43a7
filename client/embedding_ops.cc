#include "client/embedding_ops.h"

#include "client/gradients/grad_helpers.h"
#include "client/standard_ops.h"

namespace af {

namespace {

using grad::IndexVector;
using grad::ShapeOf;
using grad::ScalarOfType;

// Scales each row (a slice along axis 0) whose L2 norm exceeds max_norm
// down to max_norm (TensorFlow's clip_by_norm over the non-leading axes).
Output ClipRows(const Scope& s, const Output& rows, int rank, double max_norm) {
  if (rank <= 1) return rows;
  std::vector<int64_t> axes;
  for (int d = 1; d < rank; ++d) axes.push_back(d);
  auto norm = ops::Sqrt(s, ops::Sum(s, ops::Square(s, rows), IndexVector(s, DT_INT32, axes),
                                    ops::Sum::KeepDims(true)));
  const Output cap = ScalarOfType(s, rows.type(), max_norm);
  return ops::Div(s, ops::Mul(s, rows, cap), ops::Maximum(s, norm, cap));
}

// The shard of each id and its row in that shard.
Status Route(const Scope& s, const std::vector<Output>& params, const Output& flat_ids,
             const std::string& strategy, Output* shard, Output* row) {
  const int64_t n = static_cast<int64_t>(params.size());
  const DataType t = BaseType(flat_ids.type());
  auto c = [&](int64_t v) { return ScalarOfType(s, t, static_cast<double>(v)); };
  if (strategy == "mod") {
    *shard = ops::FloorMod(s, flat_ids, c(n));
    *row = ops::FloorDiv(s, flat_ids, c(n));
    return s.status();
  }
  if (strategy != "div")
    return errors::InvalidArgument("EmbeddingLookup: partition_strategy must be \"mod\" or "
                                   "\"div\", got \"", strategy, "\"");
  int64_t total = 0;
  for (const Output& p : params) {
    const PartialTensorShape shape = p.shape();
    if (shape.dims() < 1 || shape.dim_size(0) < 0)
      return errors::InvalidArgument("EmbeddingLookup: partition_strategy \"div\" needs each "
                                     "shard's row count at graph-building time; '",
                                     p.name(), "' has shape ", shape.DebugString());
    total += shape.dim_size(0);
  }
  if (total < n)
    return errors::InvalidArgument("EmbeddingLookup: ", n, " shards hold only ", total, " rows");
  const int64_t per = total / n, extras = total % n;
  // The first `extras` shards hold per + 1 ids each, the rest per.
  auto long_shard = ops::FloorDiv(s, flat_ids, c(per + 1));
  auto short_shard = ops::FloorDiv(s, ops::Sub(s, flat_ids, c(extras)), c(per));
  *shard = ops::Maximum(s, long_shard, short_shard);
  *row = ops::SelectV2(s, ops::Less(s, *shard, c(extras)), ops::FloorMod(s, flat_ids, c(per + 1)),
                       ops::FloorMod(s, ops::Sub(s, flat_ids, c(extras)), c(per)));
  return s.status();
}

}  // namespace

Output EmbeddingLookup(const Scope& scope, const std::vector<Output>& params, const Output& ids,
                       const std::string& partition_strategy, std::optional<double> max_norm) {
  if (!scope.ok()) return Output();
  if (params.empty()) {
    scope.UpdateStatus(errors::InvalidArgument("EmbeddingLookup: no params (shards) given"));
    return Output();
  }
  const Scope s = scope.NewSubScope("embedding_lookup");
  const int rank = params[0].shape().dims();
  if (max_norm && rank < 0) {
    s.UpdateStatus(errors::InvalidArgument("EmbeddingLookup: max_norm needs the params' rank"));
    return Output();
  }
  auto clip = [&](const Output& rows) { return max_norm ? ClipRows(s, rows, rank, *max_norm) : rows; };
  if (params.size() == 1) {
    // The gather runs where the table is, so only the rows leave it.
    return clip(ops::Gather(s.ColocateWith(params[0].op()), params[0], ids));
  }
  const int n = static_cast<int>(params.size());
  auto flat_ids = ops::Reshape(s, ids, IndexVector(s, DT_INT32, {-1}));
  Output shard, row;
  Status routed = Route(s, params, flat_ids, partition_strategy, &shard, &row);
  if (!routed.ok()) {
    s.UpdateStatus(routed);
    return Output();
  }
  auto shard32 = ops::Cast(s, shard, DT_INT32);
  auto rows_by_shard = ops::DynamicPartition(s, row, shard32, n);
  auto positions = ops::DynamicPartition(
      s,
      ops::Range(s, ScalarOfType(s, DT_INT32, 0), ops::Size(s, flat_ids),
                 ScalarOfType(s, DT_INT32, 1)),
      shard32, n);
  std::vector<Output> gathered;
  for (int i = 0; i < n; ++i) {
    const Scope on_shard = s.ColocateWith(params[i].op());
    gathered.push_back(clip(ops::Gather(on_shard, params[i], rows_by_shard.outputs[i])));
  }
  auto stitched = ops::DynamicStitch(s, positions.outputs, OutputList(gathered));
  // The rows' shape from the graph, or read where the shard lives: never
  // the shard itself brought here.
  auto row_shape = ops::Slice(s, ShapeOf(s, params[0]), IndexVector(s, DT_INT32, {1}),
                              IndexVector(s, DT_INT32, {-1}));
  return ops::Reshape(s, stitched, ops::ConcatV2(s, {ops::Shape(s, ids), row_shape}, 0));
}

Output EmbeddingLookupSparse(const Scope& scope, const std::vector<Output>& params,
                             const SparseIds& ids, const Output* weights,
                             const std::string& combiner, const std::string& partition_strategy,
                             std::optional<double> max_norm) {
  if (!scope.ok()) return Output();
  if (combiner != "sum" && combiner != "mean" && combiner != "sqrtn") {
    scope.UpdateStatus(errors::InvalidArgument(
        "EmbeddingLookupSparse: combiner must be \"sum\", \"mean\" or \"sqrtn\", got \"",
        combiner, "\""));
    return Output();
  }
  const Scope s = scope.NewSubScope("embedding_lookup_sparse");
  auto bag_of_id = ops::Cast(
      s,
      ops::Reshape(s, ops::Slice(s, ids.indices, IndexVector(s, DT_INT32, {0, 0}),
                                 IndexVector(s, DT_INT32, {-1, 1})),
                   IndexVector(s, DT_INT32, {-1})),
      DT_INT32);
  // Each distinct id is looked up once.
  auto unique = ops::Unique(s, ids.values);
  Output embeddings = EmbeddingLookup(s, params, unique.y, partition_strategy, max_norm);
  if (!s.ok()) return Output();
  if (weights == nullptr) {
    if (combiner == "sum") return ops::SparseSegmentSum(s, embeddings, unique.idx, bag_of_id);
    if (combiner == "mean") return ops::SparseSegmentMean(s, embeddings, unique.idx, bag_of_id);
    return ops::SparseSegmentSqrtN(s, embeddings, unique.idx, bag_of_id);
  }
  // Weighted: each id's row times its weight, summed per bag, divided by
  // the bag's weight sum (mean) or the root of its squared weights (sqrtn).
  const int rank = params[0].shape().dims();
  std::vector<int64_t> weight_shape(std::max(rank, 1), 1);
  weight_shape[0] = -1;
  auto w = ops::Reshape(s, *weights, IndexVector(s, DT_INT32, weight_shape));
  auto rows = ops::Mul(s, ops::Gather(s, embeddings, unique.idx), w);
  auto num_bags = ops::Add(s, ops::Max(s, bag_of_id, IndexVector(s, DT_INT32, {0})),
                           ScalarOfType(s, DT_INT32, 1));
  Output sum = ops::UnsortedSegmentSum(s, rows, bag_of_id, num_bags);
  if (combiner == "sum") return sum;
  Output divisor = combiner == "mean"
                       ? Output(ops::UnsortedSegmentSum(s, w, bag_of_id, num_bags))
                       : Output(ops::Sqrt(s, ops::UnsortedSegmentSum(s, ops::Square(s, w),
                                                                      bag_of_id, num_bags)));
  // An empty bag's sum is 0: dividing it by 1 keeps it 0, not NaN.
  auto empty = ops::Cast(s, ops::Equal(s, divisor, ScalarOfType(s, divisor.type(), 0)),
                         divisor.type());
  return ops::Div(s, sum, ops::Add(s, divisor, empty));
}

}  // namespace af
