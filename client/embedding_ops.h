// Embedding lookups over a table that may be partitioned (TensorFlow's
// tf.nn.embedding_lookup and embedding_lookup_sparse): each id is sent to
// the shard that holds its row, the shard gathers (on its own device, so
// only the rows cross to the worker) and the rows are stitched back into
// the ids' order. The gradient each shard gets is IndexedSlices of the rows
// it gave.
//
//   auto rows = EmbeddingLookup(model, table.shards(), ids);            // "mod"
//   auto bags = EmbeddingLookupSparse(model, table.shards(), sp_ids, nullptr, "mean");
//
// partition_strategy "mod": id i lives in shard i % n at row i / n.
// "div": ids are split into n contiguous ranges, the first (total % n)
// ranges one id longer (the shards' own sizes must agree: a
// PartitionedVariable's do).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "client/ops.h"
#include "client/scope.h"

namespace af {

// rows = params[ids], of shape ids.shape + params.shape[1:]. `max_norm`:
// each looked-up row larger than it in L2 norm is scaled down to it.
Output EmbeddingLookup(const Scope& scope, const std::vector<Output>& params, const Output& ids,
                       const std::string& partition_strategy = "mod",
                       std::optional<double> max_norm = std::nullopt);

// A batch of id bags (TensorFlow's SparseTensor of ids: indices [N, 2]
// int64 with the row of each id first, values [N] ids, dense_shape [2]).
struct SparseIds {
  Output indices, values, dense_shape;
};

// One row per bag: the bag's embeddings combined by "sum", "mean" or
// "sqrtn" (sum / sqrt(count)), weighted by `weights` ([N], one per id)
// when given. Bags must be in row order (TensorFlow's requirement); rows
// after the last non-empty bag are absent, as in TensorFlow.
Output EmbeddingLookupSparse(const Scope& scope, const std::vector<Output>& params,
                             const SparseIds& ids, const Output* weights,
                             const std::string& combiner = "mean",
                             const std::string& partition_strategy = "mod",
                             std::optional<double> max_norm = std::nullopt);

}  // namespace af
