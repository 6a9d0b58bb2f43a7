// `actorflow saved_model show|run` on TensorFlow Serving's SavedModels, run
// as a user runs it, with saved_model_cli's output; and a seeded fuzz of
// saved_model.pb through `saved_model show --all`.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "core/npy.h"
#include "tests/process_test_util.h"
#include "tests/saved_model_test_util.h"
#include "tests/temp_dir_test_util.h"
#include "tests/test_util.h"

namespace {

namespace fs = std::filesystem;
using Result = af::testing::CommandResult;
using af::testing::Contains;
using af::testing::SavedModelPath;
using af::testing::TempDir;

Result Actorflow(const std::string& args) {
  return af::testing::RunCommand(std::string(AF_ACTORFLOW_BIN) + " " + args);
}

const std::string kTf1 = SavedModelPath("saved_model_half_plus_two_cpu");
const std::string kTf2 = SavedModelPath("saved_model_half_plus_two_tf2_cpu");
const std::string kCounter = SavedModelPath("saved_model_counter");

BOOST_AUTO_TEST_SUITE(saved_model_command)

BOOST_AUTO_TEST_CASE(show_tag_sets_keys_and_one_signature) {
  Result r = Actorflow("saved_model show " + kTf1);
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(
      Contains(r.output, "The given SavedModel contains the following tag-sets:\n'serve'\n"));

  r = Actorflow("saved_model show --dir " + kTf1 + " --tag_set serve");
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output,
                      "The given SavedModel MetaGraphDef contains SignatureDefs with the following "
                      "keys:\nSignatureDef key: \"classify_x_to_y\"\n"
                      "SignatureDef key: \"regress_x2_to_y3\"\n"
                      "SignatureDef key: \"regress_x_to_y\"\n"
                      "SignatureDef key: \"regress_x_to_y2\"\n"
                      "SignatureDef key: \"serving_default\"\n"));

  r = Actorflow("saved_model show " + kTf1 + " --tag_set serve --signature_def serving_default");
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output,
                      "The given SavedModel SignatureDef contains the following input(s):\n"
                      "  inputs['x'] tensor_info:\n"
                      "      dtype: DT_FLOAT\n"
                      "      shape: (-1, 1)\n"
                      "      name: x:0\n"
                      "The given SavedModel SignatureDef contains the following output(s):\n"
                      "  outputs['y'] tensor_info:\n"
                      "      dtype: DT_FLOAT\n"
                      "      shape: (-1, 1)\n"
                      "      name: y:0\n"
                      "Method name is: tensorflow/serving/predict\n"));

  r = Actorflow("saved_model show " + kTf1 + " --tag_set serve --signature_def classify_x_to_y");
  BOOST_TEST(Contains(r.output, "      dtype: DT_STRING\n      shape: unknown_rank\n"
                                "      name: tf_example:0\n"));
  BOOST_TEST(Contains(r.output, "Method name is: tensorflow/serving/classify"));
}

BOOST_AUTO_TEST_CASE(show_all) {
  Result r = Actorflow("saved_model show " + kTf1 + " --all");
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output,
                      "\nMetaGraphDef with tag-set: 'serve' contains the following SignatureDefs:\n"
                      "\nsignature_def['classify_x_to_y']:\n"
                      "  The given SavedModel SignatureDef contains the following input(s):\n"
                      "    inputs['inputs'] tensor_info:\n"
                      "        dtype: DT_STRING\n"));
  BOOST_TEST(Contains(r.output, "\nsignature_def['serving_default']:\n"));
  BOOST_TEST(Contains(r.output, "  Method name is: tensorflow/serving/regress\n"));

  r = Actorflow("saved_model show " + kCounter + " --all");
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "dtype: DT_FLOAT_REF"));

  // TF 2: the init signature, then the functions of the object graph.
  r = Actorflow("saved_model show " + kTf2 + " --all");
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "signature_def['__saved_model_init_op']:"));
  BOOST_TEST(Contains(r.output, "      name: serving_default_x:0\n"));
  BOOST_TEST(Contains(r.output, "\nConcrete Functions:"));
  BOOST_TEST(Contains(r.output, "  Function Name: 'predict'\n"));
  BOOST_TEST(Contains(r.output, "TensorSpec(shape=(1,), dtype=tf.float32, name='x')"));
}

BOOST_AUTO_TEST_CASE(show_errors) {
  Result r = Actorflow("saved_model show " + kTf1 + " --tag_set gpu");
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "NOT_FOUND"));
  BOOST_TEST(Contains(r.output, "{ gpu }"));
  BOOST_TEST(Contains(r.output, "its tag sets: { serve }"));

  r = Actorflow("saved_model show " + kTf1 + " --tag_set serve --signature_def nope");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "no SignatureDef 'nope'"));

  r = Actorflow("saved_model show /no/such/dir");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "/no/such/dir"));

  r = Actorflow("saved_model show");
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(Contains(r.output, "usage: actorflow saved_model"));
  r = Actorflow("saved_model show " + kTf1 + " --bogus 1");
  BOOST_TEST(r.exit_code == 2);
  r = Actorflow("saved_model run " + kTf1 + " --tag_set serve");
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(Contains(r.output, "--signature_def"));
}

BOOST_AUTO_TEST_CASE(run_with_input_exprs_prints_as_numpy) {
  Result r = Actorflow("saved_model run " + kTf1 +
                       " --tag_set serve --signature_def serving_default"
                       " --input_exprs 'x=[[1],[2],[5]]'");
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "Result for output key y:\n[[2.5]\n [3. ]\n [4.5]]\n"));
}

BOOST_AUTO_TEST_CASE(run_with_input_examples) {
  Result r = Actorflow("saved_model run " + kTf1 +
                       " --tag_set serve --signature_def regress_x_to_y"
                       " --input_examples 'inputs=[{\"x\":[3.0]}]'");
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "Result for output key outputs:\n[[3.5]]\n"));

  r = Actorflow("saved_model run " + kTf1 +
                " --tag_set serve --signature_def regress_x_to_y2"
                " --input_examples 'inputs=[{\"x\":[3.0]},{\"x\":[1.0]}]'");
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(Contains(r.output, "Result for output key outputs:\n[[4.5]\n [3.5]]\n"));
}

BOOST_AUTO_TEST_CASE(run_with_npy_inputs_writes_npy_outputs) {
  TempDir tmp("af_saved_model_cli");
  const std::string x = tmp.path() + "/x.npy";
  BOOST_TEST_REQUIRE(
      af::WriteNpy(x, af::Tensor::FromVector<float>({1, 2, 5}, af::TensorShape{3, 1})).ok());
  const std::string out = tmp.path() + "/out";
  const std::string cmd = "saved_model run " + kTf1 +
                          " --tag_set serve --signature_def serving_default --inputs x=" + x +
                          " --outdir " + out;
  Result r = Actorflow(cmd);
  BOOST_TEST_INFO(r.output);
  BOOST_TEST_REQUIRE(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "Output y is saved to " + out + "/y.npy"));
  af::Tensor y;
  BOOST_TEST_REQUIRE(af::ReadNpy(out + "/y.npy", &y).ok());
  BOOST_TEST(y.shape() == (af::TensorShape{3, 1}));
  BOOST_TEST(y.data<float>()[0] == 2.5f);
  BOOST_TEST(y.data<float>()[2] == 4.5f);
  // An existing output is refused without --overwrite, replaced with it.
  r = Actorflow(cmd);
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "--overwrite"));
  r = Actorflow(cmd + " --overwrite");
  BOOST_TEST(r.exit_code == 0);

  // Inputs that do not fit the signature.
  r = Actorflow("saved_model run " + kTf1 +
                " --tag_set serve --signature_def serving_default --input_exprs 'x=[1,[2]]'");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "ragged"));
  r = Actorflow("saved_model run " + kTf1 +
                " --tag_set serve --signature_def serving_default --input_exprs 'z=[[1]]'");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "no input 'z'"));
}

BOOST_AUTO_TEST_CASE(run_counter_and_tf2) {
  Result r = Actorflow("saved_model run " + kCounter +
                       " --tag_set serve --signature_def incr_counter_by --input_exprs delta=2.5");
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "Result for output key output:\n2.5\n"));

  r = Actorflow("saved_model run " + kTf2 +
                " --tag_set serve --signature_def serving_default --input_exprs 'x=[1.0]'");
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "Result for output key y:\n[2.5]\n"));
  r = Actorflow("saved_model run " + kTf2 +
                " --tag_set serve --signature_def regress_x_to_y"
                " --input_examples 'inputs=[{\"x\":[3.0]}]'");
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(Contains(r.output, "Result for output key outputs:\n[[3.5]]\n"));
}

// Mutated saved_model.pb files through `show --all`: exit 0 or 1, never a
// crash (a signal gives another exit code) or a hang.
BOOST_AUTO_TEST_CASE(fuzzed_saved_model_pb_through_show) {
  std::ifstream in(kTf2 + "/saved_model.pb", std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string real = buffer.str();
  BOOST_TEST_REQUIRE(!real.empty());
  TempDir tmp("af_saved_model_cli_fuzz");
  std::mt19937 rng(1129);
  for (int i = 0; i < 60; ++i) {
    std::string bytes = real;
    if (i % 3 == 0) {
      bytes.resize(rng() % bytes.size());
    } else {
      for (int k = 0, n = 1 + rng() % 6; k < n; ++k)
        bytes[rng() % bytes.size()] ^= static_cast<char>(1 + rng() % 255);
    }
    std::ofstream(tmp.path() + "/saved_model.pb", std::ios::binary | std::ios::trunc) << bytes;
    Result r = Actorflow("saved_model show " + tmp.path() + " --all");
    BOOST_TEST_INFO("mutation " << i << ": " << r.output.substr(0, 400));
    BOOST_TEST((r.exit_code == 0 || r.exit_code == 1));
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
