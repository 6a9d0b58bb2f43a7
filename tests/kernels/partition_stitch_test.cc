// DynamicPartition, DynamicStitch and ParallelDynamicStitch against
// reference loops (elements compared bit for bit, every element size and
// strings), their round trip, their shape functions and their errors.
#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/op_registry.h"
#include "core/shape_inference.h"
#include "tests/kernels/array_test_util.h"

namespace af::test {
namespace {

// rows + row_shape: the shape of data whose leading dims are `rows`'.
TensorShape Join(const TensorShape& rows, const TensorShape& row_shape) {
  TensorShape out = rows;
  for (int d = 0; d < row_shape.dims(); ++d) out.AddDim(row_shape.dim_size(d));
  return out;
}

// A one-element tensor of `dtype` holding zero (the empty string).
Tensor Zero(DataType dtype) {
  Tensor t(dtype, TensorShape{1});
  if (dtype != DT_STRING) std::memset(t.raw_data(), 0, t.TotalBytes());
  return t;
}

Tensor Reshaped(const Tensor& t, const TensorShape& shape) {
  Tensor out;
  const Status s = t.Reshaped(shape, &out);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return out;
}

Status Failure(const StatusOr<std::vector<Tensor>>& out) {
  BOOST_REQUIRE(!out.ok());
  return out.status();
}

#define EXPECT_ERROR(out, text)                                                 \
  do {                                                                          \
    const Status af_err_ = Failure(out);                                        \
    BOOST_CHECK_EQUAL(af_err_.code(), Code::INVALID_ARGUMENT);                  \
    BOOST_CHECK_MESSAGE(Contains(af_err_.message(), text), af_err_.ToString()); \
  } while (0)

BOOST_AUTO_TEST_SUITE(partition_stitch)

BOOST_AUTO_TEST_CASE(dynamic_partition_matches_the_reference) {
  std::mt19937 rng(41);
  uint32_t seed = 1;
  for (int trial = 0; trial < 12; ++trial) {
    const TensorShape rows = RandomShape(rng, static_cast<int>(rng() % 3), 0, 4);
    const TensorShape row_shape = RandomShape(rng, static_cast<int>(rng() % 3), 0, 3);
    const TensorShape data_shape = Join(rows, row_shape);
    const int64_t num_partitions = 1 + static_cast<int64_t>(rng() % 4);
    std::vector<int64_t> part;
    for (int64_t j = 0; j < rows.num_elements(); ++j)
      part.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(num_partitions)));
    const int64_t inner = row_shape.num_elements();
    for (DataType dt : MovableTestTypes()) {
      Tensor data = RandomValues(dt, data_shape, seed++);
      KernelRunner runner("DynamicPartition");
      runner.Input(data).Input(IntsOfShape(part, rows)).Attr("num_partitions", num_partitions);
      auto out = runner.Run();
      AF_REQUIRE_OK(out.status());
      BOOST_REQUIRE_EQUAL(out->size(), static_cast<size_t>(num_partitions));
      for (int64_t p = 0; p < num_partitions; ++p) {
        std::vector<int64_t> source;
        int64_t count = 0;
        for (size_t j = 0; j < part.size(); ++j) {
          if (part[j] != p) continue;
          ++count;
          for (int64_t k = 0; k < inner; ++k) source.push_back(static_cast<int64_t>(j) * inner + k);
        }
        const TensorShape want = Join(TensorShape{count}, row_shape);
        AF_REQUIRE_OK(CheckPicked((*out)[static_cast<size_t>(p)], want, data, source));
      }
    }
  }
}

// N data inputs cut from one tensor `all` so that the reference can name
// each merged element's source by its position in `all`.
void CheckStitch(const std::string& op, std::mt19937& rng, uint32_t seed, bool unique_indices) {
  const int n = 1 + static_cast<int>(rng() % 3);
  const TensorShape row_shape = RandomShape(rng, static_cast<int>(rng() % 3), 1, 3);
  std::vector<TensorShape> index_shapes;
  int64_t total = 0;
  for (int m = 0; m < n; ++m) {
    index_shapes.push_back(RandomShape(rng, static_cast<int>(rng() % 3), 0, 3));
    total += index_shapes.back().num_elements();
  }
  // Unique indices are a shuffled range with gaps; others repeat.
  std::vector<int64_t> values;
  for (int64_t i = 0; i < total; ++i) values.push_back(unique_indices ? 2 * i : rng() % 6);
  if (unique_indices) std::shuffle(values.begin(), values.end(), rng);
  int64_t max_index = -1;
  for (int64_t v : values) max_index = std::max(max_index, v);
  std::vector<int64_t> winner(static_cast<size_t>(max_index + 1), -1);
  for (size_t i = 0; i < values.size(); ++i)  // later wins
    winner[static_cast<size_t>(values[i])] = static_cast<int64_t>(i);
  const int64_t inner = row_shape.num_elements();
  std::vector<int64_t> source;
  for (int64_t w : winner)
    for (int64_t k = 0; k < inner; ++k) source.push_back(w < 0 ? -1 : w * inner + k);
  const TensorShape want = Join(TensorShape{max_index + 1}, row_shape);

  for (DataType dt : MovableTestTypes()) {
    const Tensor all = RandomValues(dt, Join(TensorShape{total}, row_shape), seed++);
    KernelRunner runner(op);
    runner.Attr("N", int64_t{n}).Attr("T", dt);
    int64_t offset = 0;
    std::vector<Tensor> data;
    for (int m = 0; m < n; ++m) {
      const int64_t count = index_shapes[static_cast<size_t>(m)].num_elements();
      std::vector<int64_t> part(values.begin() + offset, values.begin() + offset + count);
      runner.Input(IntsOfShape(part, index_shapes[static_cast<size_t>(m)]));
      data.push_back(Reshaped(all.Slice(offset, offset + count),
                              Join(index_shapes[static_cast<size_t>(m)], row_shape)));
      offset += count;
    }
    for (Tensor& d : data) runner.Input(d);
    auto out = runner.Run();
    AF_REQUIRE_OK(out.status());
    const Tensor zero = Zero(dt);
    AF_REQUIRE_OK(CheckPicked((*out)[0], want, all, source, &zero));
  }
}

BOOST_AUTO_TEST_CASE(dynamic_stitch_matches_the_reference_and_later_indices_win) {
  std::mt19937 rng(43);
  for (int trial = 0; trial < 12; ++trial) CheckStitch("DynamicStitch", rng, 100 + trial, false);
}

BOOST_AUTO_TEST_CASE(parallel_dynamic_stitch_matches_the_reference_for_distinct_indices) {
  std::mt19937 rng(47);
  for (int trial = 0; trial < 8; ++trial)
    CheckStitch("ParallelDynamicStitch", rng, 200 + trial, true);
}

BOOST_AUTO_TEST_CASE(stitching_the_partitions_of_a_range_gives_the_data_back) {
  const Tensor data = RandomTensor<double>({7, 3}, 5);
  const Tensor part = Ints({2, 0, 1, 2, 2, 0, 1});
  std::vector<int64_t> range;
  for (int64_t i = 0; i < 7; ++i) range.push_back(i);
  KernelRunner split_data("DynamicPartition"), split_index("DynamicPartition");
  split_data.Input(data).Input(part).Attr("num_partitions", int64_t{3});
  split_index.Input(Ints(range)).Input(part).Attr("num_partitions", int64_t{3});
  auto pieces = split_data.Run();
  auto positions = split_index.Run();
  AF_REQUIRE_OK(pieces.status());
  AF_REQUIRE_OK(positions.status());
  KernelRunner stitch("DynamicStitch");
  stitch.Attr("N", int64_t{3}).Attr("T", DT_DOUBLE);
  for (const Tensor& t : *positions) stitch.Input(t);
  for (const Tensor& t : *pieces) stitch.Input(t);
  auto merged = stitch.Run();
  AF_REQUIRE_OK(merged.status());
  std::vector<double> want(data.data<double>(), data.data<double>() + 21);
  AF_EXPECT_OK(CheckTensor((*merged)[0], DT_DOUBLE, {7, 3}, want));
}

BOOST_AUTO_TEST_CASE(bad_partitions_and_shapes_are_invalid_arguments_naming_the_op) {
  {
    KernelRunner r("DynamicPartition", "dp");
    r.Input(Tensor::FromVector<float>({1, 2, 3, 4})).Input(Ints({0, 2, 5, 1}));
    r.Attr("num_partitions", int64_t{3});
    EXPECT_ERROR(r.Run(), "node 'dp' (op 'DynamicPartition'): partitions[2] = 5 is not in [0, 3)");
  }
  {
    KernelRunner r("DynamicPartition", "dp");
    r.Input(Tensor(DT_FLOAT, TensorShape{2, 2})).Input(IntsOfShape({0, -1, 0, 0}, {2, 2}));
    r.Attr("num_partitions", int64_t{2});
    EXPECT_ERROR(r.Run(), "partitions[0,1] = -1 is not in [0, 2)");
  }
  {
    KernelRunner r("DynamicPartition", "dp");
    r.Input(Tensor(DT_FLOAT, TensorShape{3, 2})).Input(Ints({0, 1}));
    r.Attr("num_partitions", int64_t{2});
    EXPECT_ERROR(r.Run(), "(op 'DynamicPartition'): data.shape must start with partitions.shape");
  }
  {
    KernelRunner r("DynamicStitch", "ds");
    r.Attr("N", int64_t{2}).Attr("T", DT_FLOAT);
    r.Input(Ints({0, 1})).Input(Ints({2}));
    r.Input(Tensor(DT_FLOAT, TensorShape{2, 3})).Input(Tensor(DT_FLOAT, TensorShape{1, 4}));
    EXPECT_ERROR(r.Run(), "node 'ds' (op 'DynamicStitch'): Need data[0].shape[1:] = data[1]");
  }
  {
    KernelRunner r("DynamicStitch", "ds");
    r.Attr("N", int64_t{1}).Attr("T", DT_FLOAT);
    r.Input(Ints({0, 1, 2})).Input(Tensor(DT_FLOAT, TensorShape{2}));
    EXPECT_ERROR(r.Run(), "data[0].shape = [2] does not start with indices[0].shape = [3]");
  }
  {
    KernelRunner r("ParallelDynamicStitch", "pds");
    r.Attr("N", int64_t{1}).Attr("T", DT_FLOAT);
    r.Input(Ints({0, -3})).Input(Tensor(DT_FLOAT, TensorShape{2}));
    EXPECT_ERROR(r.Run(), "node 'pds' (op 'ParallelDynamicStitch'): indices[0][1] = -3");
  }
}

// Runs `op`'s shape function on a node named "n" with `inputs` inputs.
Status Infer(const std::string& op, const std::vector<std::pair<std::string, int64_t>>& ints,
             DataType t, std::vector<PartialTensorShape> inputs, std::vector<const Tensor*> tensors,
             std::vector<PartialTensorShape>* out) {
  tensorflow::NodeDef def;
  def.set_name("n");
  def.set_op(op);
  for (size_t i = 0; i < inputs.size(); ++i) def.add_input("in" + std::to_string(i));
  for (const auto& [name, value] : ints) SetAttr(&def, name, value);
  SetAttr(&def, "T", t);
  const OpRegistrationData* reg = OpRegistry::Global()->LookUp(op);
  BOOST_REQUIRE(reg != nullptr);
  AddDefaultsToNodeDef(reg->op_def, &def);
  tensors.resize(inputs.size(), nullptr);
  return InferShapes(def, reg->op_def, reg->shape_fn, inputs, tensors, out);
}

BOOST_AUTO_TEST_CASE(shape_functions_follow_tensorflow) {
  std::vector<PartialTensorShape> out;
  AF_REQUIRE_OK(Infer("DynamicPartition", {{"num_partitions", 2}}, DT_FLOAT,
                      {PartialTensorShape({4, -1, 5}), PartialTensorShape({-1, 3})}, {}, &out));
  BOOST_REQUIRE_EQUAL(out.size(), 2u);
  BOOST_CHECK(out[1] == PartialTensorShape({-1, 5}));
  const Status bad = Infer("DynamicPartition", {{"num_partitions", 2}}, DT_FLOAT,
                           {PartialTensorShape({4, 2}), PartialTensorShape({3})}, {}, &out);
  BOOST_CHECK_MESSAGE(Contains(bad.message(), "node 'n'") &&
                          Contains(bad.message(), "does not start with partitions.shape"),
                      bad.ToString());

  const Tensor a = Tensor::FromVector<int32_t>({0, 4}), b = Tensor::FromVector<int32_t>({2});
  AF_REQUIRE_OK(Infer("DynamicStitch", {{"N", 2}}, DT_FLOAT,
                      {PartialTensorShape({2}), PartialTensorShape({1}),
                       PartialTensorShape({2, -1}), PartialTensorShape({1, 3})},
                      {&a, &b}, &out));
  BOOST_CHECK_MESSAGE(out[0] == PartialTensorShape({5, 3}), out[0].DebugString());
  AF_REQUIRE_OK(Infer("ParallelDynamicStitch", {{"N", 2}}, DT_FLOAT,
                      {PartialTensorShape({2}), PartialTensorShape({1}), PartialTensorShape({2, 3}),
                       PartialTensorShape({1, 3})},
                      {&a, nullptr}, &out));
  BOOST_CHECK_MESSAGE(out[0] == PartialTensorShape({-1, 3}), out[0].DebugString());
  const Status rows = Infer("DynamicStitch", {{"N", 2}}, DT_FLOAT,
                            {PartialTensorShape({2}), PartialTensorShape({1}),
                             PartialTensorShape({2, 4}), PartialTensorShape({1, 3})},
                            {}, &out);
  BOOST_CHECK_EQUAL(rows.code(), Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
