// `actorflow checkpoint inspect`, on checkpoints written by a graph run
// through `actorflow run` (VariableV2, Assign and SaveV2 in a Session).
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/process_test_util.h"
#include "tests/temp_dir_test_util.h"
#include "tests/test_util.h"

namespace {

using Result = af::testing::CommandResult;

Result Actorflow(const std::string& args) {
  return af::testing::RunCommand(std::string(AF_ACTORFLOW_BIN) + " " + args);
}

using af::testing::Contains;

using TempDir = af::testing::TempDir;

void WriteText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string FloatConst(const std::string& name, float a, float b) {
  return "node { name: '" + name +
         "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }"
         " attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }"
         " float_val: " +
         std::to_string(a) + " float_val: " + std::to_string(b) + " } } } }\n";
}

std::string StringConst(const std::string& name, const std::string& value, bool vector) {
  return "node { name: '" + name +
         "' op: 'Const' attr { key: 'dtype' value { type: DT_STRING } }"
         " attr { key: 'value' value { tensor { dtype: DT_STRING tensor_shape { " +
         (vector ? "dim { size: 1 } " : "") + "} string_val: '" + value + "' } } } }\n";
}

// A graph that initializes variable `weights` and saves it under `prefix`.
std::string SaveGraph(const std::string& prefix) {
  return "node { name: 'weights' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT } }"
         " attr { key: 'shape' value { shape { dim { size: 2 } } } } }\n" +
         FloatConst("init_value", 1.5f, -2.0f) +
         "node { name: 'init' op: 'Assign' input: 'weights' input: 'init_value'"
         " attr { key: 'T' value { type: DT_FLOAT } } }\n" +
         StringConst("prefix", prefix, false) + StringConst("names", "weights", true) +
         StringConst("slices", "", true) +
         "node { name: 'save' op: 'SaveV2' input: 'prefix' input: 'names' input: 'slices'"
         " input: 'weights' input: '^init'"
         " attr { key: 'dtypes' value { list { type: DT_FLOAT } } } }\n";
}

std::string RestoreGraph(const std::string& prefix) {
  return StringConst("prefix", prefix, false) + StringConst("names", "weights", true) +
         StringConst("slices", "", true) +
         "node { name: 'restore' op: 'RestoreV2' input: 'prefix' input: 'names' input: 'slices'"
         " attr { key: 'dtypes' value { list { type: DT_FLOAT } } } }\n";
}

BOOST_AUTO_TEST_SUITE(checkpoint_command)

BOOST_AUTO_TEST_CASE(save_inspect_and_restore_through_the_command_line) {
  TempDir dir;
  const std::string prefix = dir.path() + "/model.ckpt-1";
  WriteText(dir.path() + "/save.pbtxt", SaveGraph(prefix));
  Result r = Actorflow("run --graph " + dir.path() + "/save.pbtxt --target save");
  BOOST_TEST_INFO(r.output);
  BOOST_REQUIRE(r.exit_code == 0);
  BOOST_REQUIRE(std::filesystem::exists(prefix + ".index"));  // TensorFlow's format

  r = Actorflow("checkpoint inspect " + prefix);
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "checkpoint: " + prefix + ".index (tensor bundle, 1 data file)"));
  BOOST_TEST(Contains(r.output, "tensors: 1 (8 bytes of data, all checksums verified)"));
  BOOST_TEST(Contains(r.output, "\nweights (DT_FLOAT) [2]\n"));  // inspect_checkpoint's lines

  // A directory means its latest checkpoint.
  WriteText(dir.path() + "/checkpoint", "model_checkpoint_path: \"model.ckpt-1\"\n"
                                        "all_model_checkpoint_paths: \"model.ckpt-1\"\n");
  r = Actorflow("checkpoint inspect " + dir.path());
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "weights"));

  WriteText(dir.path() + "/restore.pbtxt", RestoreGraph(prefix));
  r = Actorflow("run --graph " + dir.path() + "/restore.pbtxt --fetch restore:0");
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "restore:0: dtype float, shape [2]"));
  BOOST_TEST(Contains(r.output, "values: 1.5 -2"));
}

BOOST_AUTO_TEST_CASE(damaged_checkpoints_print_data_loss_and_exit_1) {
  TempDir dir;
  const std::string prefix = dir.path() + "/m";
  WriteText(dir.path() + "/save.pbtxt", SaveGraph(prefix));
  BOOST_REQUIRE(Actorflow("run --graph " + dir.path() + "/save.pbtxt --target save").exit_code ==
                0);
  const std::string file = prefix + ".data-00000-of-00001";

  // A flipped bit in the tensor's bytes.
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::string bad = bytes;
  bad[1] = static_cast<char>(bad[1] ^ 1);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bad;
  Result r = Actorflow("checkpoint inspect " + prefix);
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "DATA_LOSS"));
  BOOST_TEST(Contains(r.output, "'weights'"));

  // The restore fails the same way.
  WriteText(dir.path() + "/restore.pbtxt", RestoreGraph(prefix));
  r = Actorflow("run --graph " + dir.path() + "/restore.pbtxt --fetch restore:0");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "DATA_LOSS"));

  const std::string index = prefix + ".index";
  std::filesystem::resize_file(index, std::filesystem::file_size(index) / 2);
  r = Actorflow("checkpoint inspect " + index);
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "DATA_LOSS"));
}

BOOST_AUTO_TEST_CASE(missing_checkpoints_and_bad_usage) {
  TempDir dir;
  Result r = Actorflow("checkpoint inspect " + dir.path() + "/nothing");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "NOT_FOUND"));
  r = Actorflow("checkpoint inspect " + dir.path());  // no state file
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "NOT_FOUND"));
  r = Actorflow("checkpoint");
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(Contains(r.output, "usage: actorflow checkpoint inspect"));
  r = Actorflow("checkpoint list x");
  BOOST_TEST(r.exit_code == 2);
  r = Actorflow("help");
  BOOST_TEST(Contains(r.output, "checkpoint"));
}

std::string RealBundle(const std::string& model) {
  return std::string(AF_TEST_DATA_DIR) + "/saved_models/saved_model_" + model +
         "/00000123/variables/variables";
}

BOOST_AUTO_TEST_CASE(inspect_tensorflows_checkpoints_and_print_a_tensor) {
  Result r = Actorflow("checkpoint inspect " + RealBundle("half_plus_two_tf2_cpu"));
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "\n_CHECKPOINTABLE_OBJECT_GRAPH (DT_STRING) []\n"));
  BOOST_TEST(Contains(r.output, "\na/.ATTRIBUTES/VARIABLE_VALUE (DT_FLOAT) []\n"));

  TempDir dir;
  r = Actorflow("checkpoint inspect " + RealBundle("half_plus_two_cpu") + " --tensor b --out " +
                dir.path() + "/b.npy");
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "tensor_name:  b\n2.0\n"));
  BOOST_TEST(std::filesystem::exists(dir.path() + "/b.npy"));
  r = Actorflow("checkpoint inspect " + RealBundle("counter") + " --tensor nope");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "NOT_FOUND"));
  r = Actorflow("checkpoint inspect " + RealBundle("counter") + " --bogus 1");
  BOOST_TEST(r.exit_code == 2);
}

BOOST_AUTO_TEST_CASE(convert_between_bundle_and_afckpt) {
  TempDir dir;
  Result r = Actorflow("checkpoint convert " + RealBundle("half_plus_two_cpu") + " " + dir.path() +
                       "/own.afckpt");
  BOOST_TEST_INFO(r.output);
  BOOST_TEST_REQUIRE(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "converted 5 tensors"));
  BOOST_TEST(std::filesystem::exists(dir.path() + "/own.afckpt"));
  r = Actorflow("checkpoint convert " + dir.path() + "/own " + dir.path() + "/back");
  BOOST_TEST_INFO(r.output);
  BOOST_TEST_REQUIRE(r.exit_code == 0);
  r = Actorflow("checkpoint inspect " + dir.path() + "/back --tensor a2");
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(Contains(r.output, "tensor_name:  a2\n0.5\n"));
  // Forced format, and a bad one.
  r = Actorflow("checkpoint convert " + dir.path() + "/back " + dir.path() +
                "/again --format afckpt");
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(std::filesystem::exists(dir.path() + "/again.afckpt"));
  r = Actorflow("checkpoint convert " + dir.path() + "/back " + dir.path() + "/x --format zip");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "INVALID_ARGUMENT"));
}

// Mutated .index files through the command: an exit status, never a crash.
BOOST_AUTO_TEST_CASE(mutated_indexes_never_crash_the_command) {
  TempDir dir;
  const std::string src = RealBundle("half_plus_two_cpu");
  std::string index;
  {
    std::ifstream in(src + ".index", std::ios::binary);
    index.assign(std::istreambuf_iterator<char>(in), {});
  }
  {
    std::ifstream in(src + ".data-00000-of-00001", std::ios::binary);
    std::ofstream(dir.path() + "/m.data-00000-of-00001", std::ios::binary)
        << std::string(std::istreambuf_iterator<char>(in), {});
  }
  unsigned seed = 27;
  for (int i = 0; i < 25; ++i) {
    std::string bad = index;
    seed = seed * 1103515245u + 12345u;
    bad[seed % bad.size()] ^= static_cast<char>(1u << (seed >> 16) % 8);
    if (i % 5 == 4) bad.resize(seed % bad.size());
    std::ofstream(dir.path() + "/m.index", std::ios::binary | std::ios::trunc) << bad;
    Result r = Actorflow("checkpoint inspect " + dir.path() + "/m");
    BOOST_TEST_INFO(r.output);
    BOOST_TEST((r.exit_code == 0 || r.exit_code == 1), "mutant " << i);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
