// Partitioned variables and embedding lookups: the partitioners' shard
// counts, TensorFlow's slice specs, lookups over shards equal to a gather
// from the whole table ("mod" and "div"), max_norm, the sparse combiners,
// and gradients that reach each shard as the rows it gave.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "client/client_session.h"
#include "client/embedding_ops.h"
#include "client/gradients.h"
#include "client/optimizers/gradient_descent.h"
#include "client/partitioned_variable.h"
#include "client/standard_ops.h"

namespace af {
namespace {

constexpr int64_t kRows = 10, kDim = 4;

// Row r of the whole table holds r * 10 + c in column c.
ShardInitializer RowCodes() {
  return [](const Scope& s, const TensorShape& shape, const std::vector<int64_t>& offset) {
    auto rows = ops::Cast(s,
                          ops::Range(s, ops::Const(s, offset[0]),
                                     ops::Const(s, offset[0] + shape.dim_size(0)),
                                     ops::Const(s, int64_t{1})),
                          DT_FLOAT);
    auto cols = ops::Cast(s, ops::Range(s, 0, static_cast<int>(shape.dim_size(1)), 1), DT_FLOAT);
    return Output(ops::Add(s, ops::Mul(s, ops::Reshape(s, rows, {-1, 1}), 10.0f),
                           ops::Reshape(s, cols, {1, -1})));
  };
}

float Code(int64_t row, int64_t col) { return static_cast<float>(row * 10 + col); }

std::vector<Tensor> Run(const Scope& root, const std::vector<Output>& fetch,
                        const std::vector<Operation>& before = {}) {
  ClientSession session(root);
  std::vector<Tensor> out;
  Status s = session.Run({}, {}, {GlobalVariablesInitializer(root)}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  for (const Operation& op : before) {
    s = session.Run({}, {}, {op}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
  }
  s = session.Run(fetch, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  return out;
}

BOOST_AUTO_TEST_SUITE(embedding_ops)

BOOST_AUTO_TEST_CASE(partitioners_count_shards_as_tensorflow_does) {
  const TensorShape table({kRows, kDim});
  BOOST_TEST(FixedSizePartitioner(3)(table, DT_FLOAT) == (std::vector<int>{3, 1}));
  BOOST_TEST(FixedSizePartitioner(30)(table, DT_FLOAT) == (std::vector<int>{10, 1}));
  BOOST_TEST(ShardSizes(10, 3) == (std::vector<int64_t>{4, 3, 3}));
  // 1M x 128 floats = 512 MB: rows of 512 B; 64 MB shards -> 8.
  const TensorShape big({1000000, 128});
  BOOST_TEST(VariableAxisSizePartitioner(64 << 20)(big, DT_FLOAT)[0] == 8);
  BOOST_TEST(VariableAxisSizePartitioner(64 << 20, 0, 16, 4)(big, DT_FLOAT)[0] == 4);
  // min_slice_size 256 KiB = 512 rows per shard at least: 1954 shards, capped.
  BOOST_TEST(MinMaxVariablePartitioner(16)(big, DT_FLOAT)[0] == 16);
  BOOST_TEST(MinMaxVariablePartitioner(16)(TensorShape({1000, 128}), DT_FLOAT)[0] == 2);
}

BOOST_AUTO_TEST_CASE(shards_are_variables_with_tensorflow_slice_specs) {
  Scope root = Scope::NewRootScope();
  PartitionedVariable table(root.WithOpName("emb"), TensorShape({kRows, kDim}), DT_FLOAT,
                            FixedSizePartitioner(3), RowCodes());
  BOOST_TEST_REQUIRE(root.ok(), root.status());
  BOOST_TEST_REQUIRE(table.shards().size() == 3u);
  BOOST_TEST(table.shards()[1].op().name() == "emb/part_1");
  BOOST_TEST(table.slice_infos()[1].Spec() == "10 4 4,3:0,4");
  BOOST_TEST(TrainableVariables(root).size() == 3u);
  auto whole = Run(root, {table.AsTensor(root)})[0];
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < kDim; ++c) BOOST_TEST(whole.data<float>()[r * kDim + c] == Code(r, c));
}

BOOST_AUTO_TEST_CASE(a_partitioner_that_splits_two_axes_is_refused) {
  Scope root = Scope::NewRootScope();
  Partitioner both = [](const TensorShape&, DataType) { return std::vector<int>{2, 2}; };
  PartitionedVariable table(root.WithOpName("emb"), TensorShape({kRows, kDim}), DT_FLOAT, both,
                            ConstantInitializer(0));
  BOOST_TEST(!root.ok());
  BOOST_TEST(root.status().message().find("'emb'") != std::string::npos, root.status());
}

// Looked up over 3 shards, each id's row is the whole table's row.
void CheckLookup(const std::string& strategy) {
  const std::string name = "emb_" + strategy;
  Scope root = Scope::NewRootScope();
  // "mod": row r of the whole is row r/3 of shard r%3, so the shards are
  // filled in that order: an initializer that knows the strategy.
  ShardInitializer init = RowCodes();
  if (strategy == "mod") {
    init = [](const Scope& s, const TensorShape& shape, const std::vector<int64_t>& offset) {
      // Shard i holds ids i, i+3, ...: its offset along the axis tells i.
      const int64_t shard = offset[0] == 0 ? 0 : (offset[0] == 4 ? 1 : 2);
      auto ids = ops::Cast(s,
                           ops::Range(s, ops::Const(s, shard), ops::Const(s, int64_t{kRows}),
                                      ops::Const(s, int64_t{3})),
                           DT_FLOAT);
      auto cols = ops::Cast(s, ops::Range(s, 0, static_cast<int>(shape.dim_size(1)), 1), DT_FLOAT);
      return Output(ops::Add(s, ops::Mul(s, ops::Reshape(s, ids, {-1, 1}), 10.0f),
                             ops::Reshape(s, cols, {1, -1})));
    };
  }
  PartitionedVariable table(root.WithOpName(name), TensorShape({kRows, kDim}), DT_FLOAT,
                            FixedSizePartitioner(3), init);
  const std::vector<int64_t> ids = {9, 0, 4, 4, 7, 3};
  auto id_tensor = ops::Const(root, Input::Initializer({int64_t{9}, int64_t{0}, int64_t{4},
                                                        int64_t{4}, int64_t{7}, int64_t{3}},
                                                       TensorShape({2, 3})));
  auto rows = EmbeddingLookup(root, table.shards(), id_tensor, strategy);
  BOOST_TEST_REQUIRE(root.ok(), root.status());
  auto out = Run(root, {rows})[0];
  BOOST_TEST(out.shape().DebugString() == "[2,3,4]");
  for (size_t j = 0; j < ids.size(); ++j)
    for (int64_t c = 0; c < kDim; ++c)
      BOOST_TEST(out.data<float>()[j * kDim + c] == Code(ids[j], c), strategy << " id " << ids[j]);
}

BOOST_AUTO_TEST_CASE(lookup_over_shards_matches_the_whole_table_mod_and_div) {
  CheckLookup("div");
  CheckLookup("mod");
}

BOOST_AUTO_TEST_CASE(max_norm_scales_long_rows_down) {
  Scope root = Scope::NewRootScope();
  PartitionedVariable table(root.WithOpName("emb_norm"), TensorShape({kRows, kDim}), DT_FLOAT,
                            FixedSizePartitioner(2), RowCodes());
  auto rows = EmbeddingLookup(root, table.shards(),
                              ops::Const(root, Input::Initializer({0, 5})), "div", 5.0);
  auto out = Run(root, {rows})[0];
  // Row 0 = (0,1,2,3): norm sqrt(14) < 5, unchanged. Row 5 = (50..53): to norm 5.
  for (int c = 0; c < kDim; ++c) BOOST_TEST(out.data<float>()[c] == Code(0, c));
  double norm = 0;
  for (int c = 0; c < kDim; ++c) norm += std::pow(out.data<float>()[kDim + c], 2);
  BOOST_TEST(std::fabs(std::sqrt(norm) - 5.0) < 1e-5);
}

// Each shard's gradient is the rows it gave; SGD moves only those.
BOOST_AUTO_TEST_CASE(each_shard_gets_the_rows_it_gave_and_sgd_moves_only_them) {
  Scope root = Scope::NewRootScope();
  PartitionedVariable table(root.WithOpName("emb_sgd"), TensorShape({kRows, kDim}), DT_FLOAT,
                            FixedSizePartitioner(3), RowCodes());
  auto rows = EmbeddingLookup(root, table.shards(),
                              ops::Const(root, Input::Initializer({1, 8, 1})), "div");
  auto loss = ops::Sum(root, rows, ops::Const(root, Input::Initializer({0, 1})));
  std::vector<GradientValue> grads;
  Status s = AddSymbolicGradients(root, {loss}, table.shards(), &grads);
  BOOST_TEST_REQUIRE(s.ok(), s);
  for (const GradientValue& g : grads) BOOST_TEST(g.is_sparse());
  GradientDescentOptimizer sgd(1.0);
  Operation train;
  s = sgd.Minimize(root, loss, &train, table.shards());
  BOOST_TEST_REQUIRE(s.ok(), s);
  auto whole = Run(root, {table.AsTensor(root)}, {train})[0];
  for (int64_t r = 0; r < kRows; ++r) {
    const float moved = r == 1 ? 2.0f : (r == 8 ? 1.0f : 0.0f);  // id 1 read twice
    for (int64_t c = 0; c < kDim; ++c)
      BOOST_TEST(whole.data<float>()[r * kDim + c] == Code(r, c) - moved, "row " << r);
  }
}

BOOST_AUTO_TEST_CASE(sparse_lookup_combines_bags) {
  Scope root = Scope::NewRootScope();
  PartitionedVariable table(root.WithOpName("emb_bags"), TensorShape({kRows, kDim}), DT_FLOAT,
                            FixedSizePartitioner(2), RowCodes());
  // Bag 0: ids {2, 7}; bag 1: {}; bag 2: {7, 7, 1}.
  SparseIds bags;
  bags.indices = ops::Const(root, Input::Initializer({int64_t{0}, int64_t{0}, int64_t{0}, int64_t{1},
                                                      int64_t{2}, int64_t{0}, int64_t{2}, int64_t{1},
                                                      int64_t{2}, int64_t{2}},
                                                     TensorShape({5, 2})));
  bags.values = ops::Const(root, Input::Initializer({int64_t{2}, int64_t{7}, int64_t{7},
                                                     int64_t{7}, int64_t{1}}));
  bags.dense_shape = ops::Const(root, Input::Initializer({int64_t{3}, int64_t{3}}));
  Output weights = ops::Const(root, Input::Initializer({1.0f, 3.0f, 0.5f, 0.5f, 2.0f}));
  std::vector<Output> fetch;
  for (const char* combiner : {"sum", "mean", "sqrtn"}) {
    fetch.push_back(EmbeddingLookupSparse(root, table.shards(), bags, nullptr, combiner, "div"));
    fetch.push_back(EmbeddingLookupSparse(root, table.shards(), bags, &weights, combiner, "div"));
  }
  BOOST_TEST_REQUIRE(root.ok(), root.status());
  auto out = Run(root, fetch);
  const std::vector<std::vector<int64_t>> ids = {{2, 7}, {}, {7, 7, 1}};
  const std::vector<std::vector<float>> w = {{1, 3}, {}, {0.5f, 0.5f, 2}};
  for (int k = 0; k < 6; ++k) {
    const int combiner = k / 2;
    const bool weighted = k % 2 == 1;
    BOOST_TEST_REQUIRE(out[k].shape().DebugString() == "[3,4]");
    for (int b = 0; b < 3; ++b) {
      for (int c = 0; c < kDim; ++c) {
        double sum = 0, wsum = 0, wsq = 0;
        for (size_t j = 0; j < ids[b].size(); ++j) {
          const double wj = weighted ? w[b][j] : 1.0;
          sum += wj * Code(ids[b][j], c);
          wsum += wj;
          wsq += wj * wj;
        }
        double want = sum;
        if (combiner == 1 && wsum > 0) want = sum / wsum;
        if (combiner == 2 && wsq > 0) want = sum / std::sqrt(wsq);
        BOOST_TEST(std::fabs(out[k].data<float>()[b * kDim + c] - want) < 1e-4,
                   "case " << k << " bag " << b << " col " << c);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(bad_strategy_and_combiner_are_named) {
  Scope root = Scope::NewRootScope();
  PartitionedVariable table(root.WithOpName("emb_bad"), TensorShape({kRows, kDim}), DT_FLOAT,
                            FixedSizePartitioner(2), ConstantInitializer(0));
  EmbeddingLookup(root, table.shards(), ops::Const(root, Input::Initializer({1})), "hash");
  BOOST_TEST(root.status().message().find("\"hash\"") != std::string::npos, root.status());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
