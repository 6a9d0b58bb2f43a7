// Checkpoints of partitioned variables: a [10, 4] variable in 4 shards,
// saved by a Saver into one file or into one shard file per device (the
// shards on two devices), restores in a new graph onto 2 and 8 shards and
// onto one unpartitioned variable of the full name, every element checked;
// a variable saved whole restores onto shards. The Saver refuses slices
// that cannot be saved together.
//
// Variables live in the process's containers, keyed by node name, and the
// restoring graphs reuse the saving graph's shard names with other shapes,
// so each graph's session resets the default container first; every test
// uses its own variable names.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/partitioned_variable.h"
#include "client/saver.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/checkpoint_reader.h"
#include "core/checkpoint_shards.h"
#include "tests/temp_dir_test_util.h"

namespace af {
namespace {

using testing::TempDir;

constexpr int64_t kRows = 10, kCols = 4;

// Element (r, c) of the whole: distinct everywhere, and it says where it is.
float Value(int64_t r, int64_t c) { return static_cast<float>(100 * r + c) + 0.25f; }

// Each shard starts as its part of the whole.
ShardInitializer PartOfTheWhole() {
  return [](const Scope& s, const TensorShape& shape, const std::vector<int64_t>& offset) {
    Tensor t(DT_FLOAT, shape);
    for (int64_t r = 0; r < shape.dim_size(0); ++r)
      for (int64_t c = 0; c < shape.dim_size(1); ++c)
        t.data<float>()[r * shape.dim_size(1) + c] = Value(offset[0] + r, offset[1] + c);
    return Output(ops::Const(s, Input::Initializer(t)));
  };
}

// Checks that `t` is the part of the whole at `offset`.
void CheckPart(const Tensor& t, const std::vector<int64_t>& offset, const std::string& what) {
  BOOST_TEST_REQUIRE(t.dims() == 2, what);
  for (int64_t r = 0; r < t.dim_size(0); ++r)
    for (int64_t c = 0; c < t.dim_size(1); ++c)
      BOOST_TEST_REQUIRE(
          t.data<float>()[r * t.dim_size(1) + c] == Value(offset[0] + r, offset[1] + c),
          what << " element (" << r << ", " << c << ")");
}

// Saves `name` as a [10, 4] variable in 4 shards under `prefix` and returns
// the checkpoint's path. With `two_devices` the shards alternate between
// CPU:0 and CPU:1 and the Saver is sharded (one file per device).
std::string SaveFourShards(const std::string& name, const std::string& prefix, bool sharded,
                           bool two_devices) {
  Scope root = Scope::NewRootScope();
  Scope placed = root;
  if (two_devices) {
    placed = root.WithDeviceFunction([](const tensorflow::NodeDef& node) {
      const bool odd = node.name().find("/part_1") != std::string::npos ||
                       node.name().find("/part_3") != std::string::npos;
      return std::string(odd ? "/device:CPU:1" : "/device:CPU:0");
    });
  }
  PartitionedVariable table(placed.WithOpName(name), TensorShape({kRows, kCols}), DT_FLOAT,
                            FixedSizePartitioner(4), PartOfTheWhole());
  BOOST_TEST_REQUIRE(root.ok(), root.status());
  BOOST_TEST_REQUIRE(table.shards().size() == 4u);
  SaverOptions options;
  options.sharded = sharded;
  Saver saver(root, options);
  BOOST_TEST_REQUIRE(saver.status().ok(), saver.status());
  BOOST_TEST(saver.tensor_names() == std::vector<std::string>(4, name));
  BOOST_TEST(
      saver.shape_and_slices() ==
      (std::vector<std::string>{"10 4 0,3:0,4", "10 4 3,3:0,4", "10 4 6,2:0,4", "10 4 8,2:0,4"}));
  SessionOptions session_options;
  if (two_devices) session_options.num_cpu_devices = 2;
  ClientSession session(root, session_options);
  BOOST_TEST_REQUIRE(session.Reset({}).ok());
  Status s = session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr);
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::string path;
  s = saver.Save(session, prefix, 1, &path);
  BOOST_TEST_REQUIRE(s.ok(), s);
  return path;
}

// In a new graph: `name` partitioned `shards` ways, restored from `path`,
// every element checked.
void RestoreOntoShards(const std::string& name, const std::string& path, int shards) {
  Scope root = Scope::NewRootScope();
  PartitionedVariable table(root.WithOpName(name), TensorShape({kRows, kCols}), DT_FLOAT,
                            FixedSizePartitioner(shards), ConstantInitializer(-1));
  BOOST_TEST_REQUIRE(root.ok(), root.status());
  BOOST_TEST_REQUIRE(table.shards().size() == static_cast<size_t>(shards));
  Saver saver(root);
  BOOST_TEST_REQUIRE(saver.status().ok(), saver.status());
  ClientSession session(root);
  BOOST_TEST_REQUIRE(session.Reset({}).ok());
  Status s = saver.Restore(session, path);
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::vector<Tensor> out;
  s = session.Run(table.shards(), &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  for (int i = 0; i < shards; ++i) {
    const SaveSliceInfo& info = table.slice_infos()[static_cast<size_t>(i)];
    BOOST_TEST(out[i].shape().dim_vector() == info.var_shape);
    CheckPart(out[i], info.var_offset,
              name + " onto " + std::to_string(shards) + " shards, shard " + std::to_string(i));
  }
}

// In a new graph: one unpartitioned variable of the full name, restored.
void RestoreOntoOneVariable(const std::string& name, const std::string& path) {
  Scope root = Scope::NewRootScope();
  Tensor zeros(DT_FLOAT, TensorShape({kRows, kCols}));
  for (int64_t i = 0; i < zeros.NumElements(); ++i) zeros.data<float>()[i] = 0;
  Variable whole(root.WithOpName(name), zeros);
  Saver saver(root);
  BOOST_TEST_REQUIRE(saver.status().ok(), saver.status());
  ClientSession session(root);
  BOOST_TEST_REQUIRE(session.Reset({}).ok());
  Status s = saver.Restore(session, path);
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::vector<Tensor> out;
  s = session.Run({whole.var}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].shape() == TensorShape({kRows, kCols}));
  CheckPart(out[0], {0, 0}, name + " onto one variable");
}

BOOST_AUTO_TEST_SUITE(partitioned_checkpoint)

BOOST_AUTO_TEST_CASE(four_shards_in_one_file_restore_onto_two_eight_and_one) {
  TempDir dir;
  const std::string name = "pckpt_one_file";
  const std::string path = SaveFourShards(name, dir.path() + "/model", false, false);
  std::unique_ptr<CheckpointReader> reader;
  BOOST_TEST_REQUIRE(CheckpointReader::Open(path + ".index", &reader).ok());  // a tensor bundle
  BOOST_TEST(reader->FindWithPrefix(name + "@").size() == 4u);
  BOOST_TEST(reader->Find(name + "@10 4 6,2:0,4") != nullptr);
  RestoreOntoShards(name, path, 2);
  RestoreOntoShards(name, path, 8);
  RestoreOntoShards(name, path, 4);
  RestoreOntoShards(name, path, 3);  // 4, 3, 3 rows: no boundary in common but the ends
  RestoreOntoOneVariable(name, path);
}

BOOST_AUTO_TEST_CASE(shards_on_two_devices_save_a_file_each_and_restore_onto_any_number) {
  TempDir dir;
  const std::string name = "pckpt_two_devices";
  const std::string path = SaveFourShards(name, dir.path() + "/model", true, true);
  // Device 0 wrote shards 0 and 2, device 1 shards 1 and 3: after the merge,
  // one index whose slices lie in data file 0 or 1.
  std::unique_ptr<CheckpointReader> index;
  BOOST_TEST_REQUIRE(CheckpointReader::Open(path + ".index", &index).ok());
  BOOST_TEST(index->entries().size() == 4u);
  auto data_file = [&](const std::string& spec) {
    const checkpoint::TensorEntry* e = index->Find(name + "@" + spec);
    BOOST_TEST_REQUIRE(e != nullptr, spec);
    return e->shard_id;
  };
  BOOST_TEST(data_file("10 4 0,3:0,4") == 0);
  BOOST_TEST(data_file("10 4 6,2:0,4") == 0);
  BOOST_TEST(data_file("10 4 3,3:0,4") == 1);
  BOOST_TEST(data_file("10 4 8,2:0,4") == 1);
  RestoreOntoShards(name, path, 2);
  RestoreOntoShards(name, path, 8);
  RestoreOntoOneVariable(name, path);
}

BOOST_AUTO_TEST_CASE(sharded_on_one_device_restores_too) {
  TempDir dir;
  const std::string name = "pckpt_one_device_sharded";
  const std::string path = SaveFourShards(name, dir.path() + "/model", true, false);
  BOOST_TEST(std::filesystem::exists(path + ".data-00000-of-00001"));
  BOOST_TEST(std::filesystem::exists(path + ".index"));
  RestoreOntoShards(name, path, 2);
  RestoreOntoShards(name, path, 8);
  RestoreOntoOneVariable(name, path);
}

BOOST_AUTO_TEST_CASE(a_variable_saved_whole_restores_onto_shards) {
  TempDir dir;
  const std::string name = "pckpt_saved_whole";
  std::string path;
  {
    Scope root = Scope::NewRootScope();
    Tensor whole(DT_FLOAT, TensorShape({kRows, kCols}));
    for (int64_t r = 0; r < kRows; ++r)
      for (int64_t c = 0; c < kCols; ++c) whole.data<float>()[r * kCols + c] = Value(r, c);
    Variable v(root.WithOpName(name), whole);
    Saver saver(root);
    ClientSession session(root);
    BOOST_TEST_REQUIRE(session.Reset({}).ok());
    BOOST_TEST_REQUIRE(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr).ok());
    Status s = saver.Save(session, dir.path() + "/model", -1, &path);
    BOOST_TEST_REQUIRE(s.ok(), s);
  }
  RestoreOntoShards(name, path, 4);
  RestoreOntoShards(name, path, 3);
}

BOOST_AUTO_TEST_CASE(another_full_shape_fails_before_any_shard_changes) {
  TempDir dir;
  const std::string name = "pckpt_other_shape";
  const std::string path = SaveFourShards(name, dir.path() + "/model", false, false);
  Scope root = Scope::NewRootScope();
  PartitionedVariable table(root.WithOpName(name), TensorShape({12, kCols}), DT_FLOAT,
                            FixedSizePartitioner(2), ConstantInitializer(-1));
  Saver saver(root);
  ClientSession session(root);
  BOOST_TEST_REQUIRE(session.Reset({}).ok());
  BOOST_TEST_REQUIRE(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr).ok());
  Status s = saver.Restore(session, path);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  BOOST_TEST(s.message().find("'" + name + "'") != std::string::npos, s);
  BOOST_TEST(s.message().find("[10,4]") != std::string::npos, s);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run(table.shards(), &out).ok());
  for (const Tensor& t : out)
    for (int64_t i = 0; i < t.NumElements(); ++i) BOOST_TEST_REQUIRE(t.data<float>()[i] == -1.0f);
}

BOOST_AUTO_TEST_CASE(the_saver_refuses_slices_it_cannot_save_together) {
  auto build = [](const std::string& prefix, const SaveSliceInfo& a_info,
                  const SaveSliceInfo* b_info, const std::string& b_name) {
    Scope root = Scope::NewRootScope();
    Variable a(root.WithOpName(prefix + "_a"), Tensor::FromVector<float>({1, 2}));
    Variable b(root.WithOpName(b_name), Tensor::FromVector<float>({3, 4}));
    root.RecordSaveSliceInfo(a.var.op(), a_info);
    if (b_info != nullptr) root.RecordSaveSliceInfo(b.var.op(), *b_info);
    BOOST_TEST(root.FindSaveSliceInfo(a.node()) != nullptr);
    Saver saver(root);
    return saver.status();
  };
  const SaveSliceInfo first{"pckpt_refused_full", {4}, {0}, {2}};
  // The same slice twice.
  Status s = build("pckpt_refused1", first, &first, "pckpt_refused1_b");
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  BOOST_TEST(s.message().find("4 0,2") != std::string::npos, s);
  // A variable saved whole under a partitioned variable's name.
  s = build("pckpt_refused2", first, nullptr, "pckpt_refused_full");
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  BOOST_TEST(s.message().find("pckpt_refused_full") != std::string::npos, s);
  // Slices of one name that disagree on the whole.
  const SaveSliceInfo other_whole{"pckpt_refused_full", {5}, {2}, {2}};
  s = build("pckpt_refused3", first, &other_whole, "pckpt_refused3_b");
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  // A slice whose shape is not the variable's.
  const SaveSliceInfo wrong_shape{"pckpt_refused_full", {4}, {0}, {3}};
  s = build("pckpt_refused4", wrong_shape, nullptr, "pckpt_refused4_b");
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  // Two halves are fine.
  const SaveSliceInfo second{"pckpt_refused_full", {4}, {2}, {2}};
  BOOST_TEST(build("pckpt_refused5", first, &second, "pckpt_refused5_b").ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
