// What LoadSavedModel and the signature runner say when something is
// wrong: tags no MetaGraphDef has, a missing or garbage saved_model.pb, an
// unknown signature, input key, dtype or shape; and a seeded fuzz of the
// real saved_model.pb through the reader and the loader (errors are fine,
// crashes and hangs are not).
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "client/saved_model/constants.h"
#include "client/saved_model/loader.h"
#include "client/saved_model/reader.h"
#include "client/saved_model/signature_runner.h"
#include "tests/saved_model_test_util.h"
#include "tests/temp_dir_test_util.h"
#include "tests/test_util.h"

namespace af {
namespace {

namespace fs = std::filesystem;
using testing::Mentions;
using testing::SavedModelPath;
using testing::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

SessionOptions CpuOnly() {
  SessionOptions options;
  options.num_gpu_devices = 0;
  return options;
}

BOOST_AUTO_TEST_SUITE(saved_model_errors)

BOOST_AUTO_TEST_CASE(tags_that_no_meta_graph_has_list_the_tag_sets) {
  SavedModelBundle bundle;
  const std::string dir = SavedModelPath("saved_model_half_plus_two_cpu");
  const Status s = LoadSavedModel(CpuOnly(), RunOptions(), dir, {"serve", "gpu"}, &bundle);
  BOOST_TEST(s.code() == Code::NOT_FOUND);
  BOOST_TEST(Mentions(s, "{ gpu, serve }"), s);
  BOOST_TEST(Mentions(s, "its tag sets: { serve }"), s);
  BOOST_TEST(Mentions(s, dir), s);
  BOOST_TEST(bundle.session == nullptr);

  tensorflow::MetaGraphDef mg;
  BOOST_TEST(ReadMetaGraphDefFromSavedModel(dir, {"train"}, &mg).code() == Code::NOT_FOUND);
  BOOST_TEST(ReadMetaGraphDefFromSavedModel(dir, {"serve"}, &mg).ok());
  BOOST_TEST(mg.signature_def_size() == 5);
}

BOOST_AUTO_TEST_CASE(missing_directory_or_file) {
  TempDir tmp("af_saved_model");
  SavedModelBundle bundle;
  Status s = LoadSavedModel(CpuOnly(), RunOptions(), tmp.path() + "/absent", {"serve"}, &bundle);
  BOOST_TEST(s.code() == Code::NOT_FOUND);
  BOOST_TEST(Mentions(s, tmp.path() + "/absent"), s);
  BOOST_TEST(!MaybeSavedModelDirectory(tmp.path()));
  s = LoadSavedModel(CpuOnly(), RunOptions(), tmp.path(), {"serve"}, &bundle);
  BOOST_TEST(s.code() == Code::NOT_FOUND);
  BOOST_TEST(Mentions(s, "saved_model.pb"), s);
}

BOOST_AUTO_TEST_CASE(garbage_or_truncated_saved_model_pb_is_data_loss) {
  TempDir tmp("af_saved_model");
  const std::string real =
      ReadFile(SavedModelPath("saved_model_half_plus_two_cpu") + "/saved_model.pb");
  BOOST_TEST_REQUIRE(real.size() > 1000u);
  const std::string pb = tmp.path() + "/saved_model.pb";
  for (const std::string& bytes : {std::string("this is not a protobuf\xff\xff\xff", 25),
                                   real.substr(0, real.size() / 2), real.substr(0, 7)}) {
    WriteFile(pb, bytes);
    BOOST_TEST(MaybeSavedModelDirectory(tmp.path()));
    SavedModelBundle bundle;
    const Status s = LoadSavedModel(CpuOnly(), RunOptions(), tmp.path(), {"serve"}, &bundle);
    BOOST_TEST(s.code() == Code::DATA_LOSS, s);
    BOOST_TEST(Mentions(s, pb), s);
  }
  // An empty file is an empty SavedModel: no MetaGraphDef to find.
  WriteFile(pb, "");
  SavedModelBundle bundle;
  const Status s = LoadSavedModel(CpuOnly(), RunOptions(), tmp.path(), {"serve"}, &bundle);
  BOOST_TEST(s.code() == Code::NOT_FOUND);
  BOOST_TEST(Mentions(s, "holds no MetaGraphDef"), s);
}

BOOST_AUTO_TEST_CASE(text_format_saved_model_is_read) {
  TempDir tmp("af_saved_model");
  WriteFile(tmp.path() + "/saved_model.pbtxt",
            "saved_model_schema_version: 1\n"
            "meta_graphs { meta_info_def { tags: 'serve' }\n"
            "  graph_def { node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: "
            "DT_FLOAT } } }\n"
            "              node { name: 'y' op: 'Identity' input: 'x' attr { key: 'T' value { "
            "type: DT_FLOAT } } } }\n"
            "  signature_def { key: 'id' value { inputs { key: 'x' value { name: 'x:0' dtype: "
            "DT_FLOAT } }\n"
            "    outputs { key: 'y' value { name: 'y:0' dtype: DT_FLOAT } } method_name: "
            "'tensorflow/serving/predict' } } }\n");
  SavedModelBundle bundle;
  Status s = LoadSavedModel(CpuOnly(), RunOptions(), tmp.path(), {"serve"}, &bundle);
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::map<std::string, Tensor> out;
  s = RunSignature(bundle, "id", {{"x", Tensor::FromVector<float>({7})}}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out.at("y").data<float>()[0] == 7.0f);

  WriteFile(tmp.path() + "/saved_model.pbtxt", "meta_graphs { no_such_field: 1 }");
  s = LoadSavedModel(CpuOnly(), RunOptions(), tmp.path(), {"serve"}, &bundle);
  BOOST_TEST(s.code() == Code::DATA_LOSS);
  BOOST_TEST(Mentions(s, "line 1"), s);
}

BOOST_AUTO_TEST_CASE(signature_errors_name_the_signature_and_key) {
  SavedModelBundle bundle;
  Status s = LoadSavedModel(CpuOnly(), RunOptions(),
                            SavedModelPath("saved_model_half_plus_two_cpu"), {"serve"}, &bundle);
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::map<std::string, Tensor> out;
  const Tensor x = Tensor::FromVector<float>({1}, TensorShape{1, 1});
  s = RunSignature(bundle, "no_such", {{"x", x}}, {}, &out);
  BOOST_TEST(s.code() == Code::NOT_FOUND);
  BOOST_TEST(Mentions(s, "'serving_default'"), s);
  s = RunSignature(bundle, "serving_default", {{"z", x}}, {}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Mentions(s, "no input 'z'; its inputs: 'x'"), s);
  s = RunSignature(bundle, "serving_default", {}, {}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Mentions(s, "needs input 'x'"), s);
  s = RunSignature(bundle, "serving_default", {{"x", Tensor::FromVector<int32_t>({1})}}, {}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Mentions(s, "signature 'serving_default' input 'x' is float"), s);
  s = RunSignature(bundle, "serving_default", {{"x", Tensor::FromVector<float>({1, 2})}}, {}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Mentions(s, "shape"), s);
  s = RunSignature(bundle, "serving_default", {{"x", x}}, {"nope"}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Mentions(s, "no output 'nope'"), s);
  (void)bundle.session->Reset({});
}

// Mutations of the real saved_model.pb: byte flips, truncations and
// spliced runs, each read, searched by tags and, for the ones that still
// parse, loaded and run. A crash or a hang fails the test binary; any
// Status is fine.
BOOST_AUTO_TEST_CASE(fuzzed_saved_model_pb_never_crashes) {
  const std::string src = SavedModelPath("saved_model_counter");
  const std::string real = ReadFile(src + "/saved_model.pb");
  BOOST_TEST_REQUIRE(!real.empty());
  TempDir tmp("af_saved_model_fuzz");
  fs::copy(src + "/variables", tmp.path() + "/variables");
  std::mt19937 rng(20261129);
  int parsed = 0, loaded = 0;
  RunOptions run_options;
  run_options.timeout_ms = 10000;
  for (int i = 0; i < 300; ++i) {
    std::string bytes = real;
    switch (rng() % 4) {
      case 0:
        for (int k = 0, n = 1 + rng() % 8; k < n; ++k)
          bytes[rng() % bytes.size()] ^= static_cast<char>(1 + rng() % 255);
        break;
      case 1:
        bytes.resize(rng() % bytes.size());
        break;
      case 2: {
        const size_t at = rng() % bytes.size(), len = rng() % 64;
        bytes.insert(at, real.substr(rng() % real.size(), len));
        break;
      }
      default:
        bytes[rng() % bytes.size()] = static_cast<char>(rng() % 256);
    }
    WriteFile(tmp.path() + "/saved_model.pb", bytes);
    tensorflow::MetaGraphDef mg;
    if (!ReadMetaGraphDefFromSavedModel(tmp.path(), {"serve"}, &mg).ok()) continue;
    ++parsed;
    SavedModelBundle bundle;
    if (!LoadSavedModel(CpuOnly(), run_options, tmp.path(), {"serve"}, &bundle).ok()) continue;
    ++loaded;
    for (const auto& [key, sig] : bundle.GetSignatures()) {
      std::map<std::string, Tensor> out;
      std::map<std::string, Tensor> in;
      if (sig.inputs().count("delta")) in["delta"] = Tensor::Scalar<float>(1);
      (void)RunSignature(bundle, key, in, {}, &out, run_options);
    }
    (void)bundle.session->Reset({});
  }
  BOOST_TEST_MESSAGE("fuzz: 300 mutations, " << parsed << " parsed, " << loaded << " loaded");
  BOOST_TEST(parsed > 0);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
