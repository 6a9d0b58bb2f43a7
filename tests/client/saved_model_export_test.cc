// SavedModelBuilder: a model trained here, exported, loaded back with
// LoadSavedModel into a fresh session gives the same outputs bit for bit;
// the SavedModel names a saver whose ops exist, its signatures, its main
// op and its assets; and the builder refuses what TensorFlow's refuses.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/optimizers/gradient_descent.h"
#include "client/saved_model/builder.h"
#include "client/saved_model/constants.h"
#include "client/saved_model/loader.h"
#include "client/saved_model/reader.h"
#include "client/saved_model/signature_def_utils.h"
#include "client/saved_model/signature_runner.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "tests/temp_dir_test_util.h"
#include "tests/test_util.h"

namespace af {
namespace {

namespace fs = std::filesystem;
using testing::Mentions;
using testing::TempDir;

// y = x W + b, trained a few steps towards y = 2 x0 - x1 + 1.
struct Model {
  Output x, y, labels;
  Operation train;
};

Model BuildModel(const Scope& root) {
  Model m;
  m.x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                         ops::Placeholder::Shape(PartialTensorShape({-1, 2})));
  m.labels = ops::Placeholder(root.WithOpName("labels"), DT_FLOAT,
                              ops::Placeholder::Shape(PartialTensorShape({-1, 1})));
  Variable w(root.WithOpName("w"), Tensor::FromVector<float>({0.1f, -0.2f}, TensorShape{2, 1}));
  Variable b(root.WithOpName("b"), Tensor::FromVector<float>({0.0f}));
  m.y = ops::Add(root.WithOpName("y"), ops::MatMul(root, m.x, w), b);
  auto loss = ops::Mean(root, ops::Square(root, ops::Sub(root, m.y, m.labels)), {0, 1});
  GradientDescentOptimizer sgd(0.1);
  Status s = sgd.Minimize(root, loss, &m.train);
  BOOST_TEST_REQUIRE(s.ok(), s);
  return m;
}

const Tensor kBatch = Tensor::FromVector<float>({1, 2, -1, 0.5f, 3, 3}, TensorShape{3, 2});

BOOST_AUTO_TEST_SUITE(saved_model_export)

BOOST_AUTO_TEST_CASE(trained_model_round_trips_through_a_saved_model) {
  TempDir tmp("af_saved_model_export");
  const std::string dir = tmp.path() + "/model/1";
  Tensor before;
  {
    Scope root = Scope::NewRootScope();
    Model m = BuildModel(root);
    ClientSession session(root);
    BOOST_TEST_REQUIRE(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr).ok());
    const Tensor labels = Tensor::FromVector<float>({1, 0, 4}, TensorShape{3, 1});
    for (int step = 0; step < 20; ++step)
      BOOST_TEST_REQUIRE(
          session.Run({{m.x, kBatch}, {m.labels, labels}}, {}, {m.train}, nullptr).ok());
    std::vector<Tensor> out;
    BOOST_TEST_REQUIRE(session.Run({{m.x, kBatch}}, {m.y}, &out).ok());
    before = out[0];

    SavedModelBuilder builder(dir);
    std::map<std::string, tensorflow::SignatureDef> signatures;
    signatures[kDefaultServingSignatureDefKey] = PredictSignatureDef({{"x", m.x}}, {{"y", m.y}});
    Status s = builder.AddMetaGraphAndVariables(root, session, {kSavedModelTagServe}, signatures);
    BOOST_TEST_REQUIRE(s.ok(), s);
    s = builder.AddMetaGraph(root, {kSavedModelTagServe, kSavedModelTagGpu}, signatures);
    BOOST_TEST_REQUIRE(s.ok(), s);
    // The same tag set twice is refused.
    s = builder.AddMetaGraph(root, {kSavedModelTagServe}, signatures);
    BOOST_TEST(s.code() == Code::ALREADY_EXISTS);
    s = builder.Save();
    BOOST_TEST_REQUIRE(s.ok(), s);
    (void)session.Reset({});  // the loaded model must not see these values
  }
  BOOST_TEST(fs::exists(dir + "/saved_model.pb"));
  BOOST_TEST(!fs::exists(dir + "/variables/checkpoint"));
  tensorflow::MetaGraphDef mg;
  Status s = ReadMetaGraphDefFromSavedModel(dir, {kSavedModelTagServe}, &mg);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(mg.saver_def().restore_op_name() == "save/restore_all");
  BOOST_TEST(mg.saver_def().filename_tensor_name() == "save/filename:0");
  BOOST_TEST(mg.saver_def().save_tensor_name() == "save/control_dependency:0");
  BOOST_TEST(mg.saver_def().version() == tensorflow::SaverDef::V2);
  const auto& sig = mg.signature_def().at(kDefaultServingSignatureDefKey);
  BOOST_TEST(sig.method_name() == kPredictMethodName);
  BOOST_TEST(sig.inputs().at("x").name() == "x:0");
  BOOST_TEST(sig.inputs().at("x").dtype() == tensorflow::DT_FLOAT);
  BOOST_TEST(sig.inputs().at("x").tensor_shape().dim_size() == 2);
  BOOST_TEST(sig.inputs().at("x").tensor_shape().dim(0).size() == -1);
  BOOST_TEST(sig.outputs().at("y").name() == "y:0");

  for (const std::unordered_set<std::string>& tags :
       {std::unordered_set<std::string>{"serve"},
        std::unordered_set<std::string>{"gpu", "serve"}}) {
    SavedModelBundle bundle;
    SessionOptions options;
    options.num_gpu_devices = 0;
    s = LoadSavedModel(options, RunOptions(), dir, tags, &bundle);
    BOOST_TEST_REQUIRE(s.ok(), s);
    std::map<std::string, Tensor> out;
    s = RunSignature(bundle, kDefaultServingSignatureDefKey, {{"x", kBatch}}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    const Tensor& after = out.at("y");
    BOOST_TEST_REQUIRE(after.shape() == before.shape());
    BOOST_TEST(after.tensor_data() == before.tensor_data());  // bit for bit
    (void)bundle.session->Reset({});
  }
}

BOOST_AUTO_TEST_CASE(main_op_and_assets_are_bound_at_load) {
  TempDir tmp("af_saved_model_export");
  const std::string vocab = tmp.path() + "/vocab.txt";
  std::ofstream(vocab) << "a\nb\n";
  const std::string dir = tmp.path() + "/export";
  {
    Scope root = Scope::NewRootScope();
    auto asset_path = ops::Placeholder(root.WithOpName("asset_path"), DT_STRING);
    Variable path_var(root.WithOpName("path_var"), Tensor::Scalar<std::string>("unset"), false);
    Variable counter(root.WithOpName("counter"), Tensor::Scalar<float>(41), false);
    auto main_op = ops::Assign(root.WithOpName("main_op_assign"), path_var, asset_path);
    auto grouped = ops::NoOp(root.WithOpName("main_op").WithControlDependencies(
        std::vector<Operation>{main_op.operation}));
    auto read = ops::Identity(root.WithOpName("read_path"), path_var);
    ClientSession session(root);
    BOOST_TEST_REQUIRE(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr).ok());
    MetaGraphOptions options;
    options.main_op = grouped.operation;
    options.assets.push_back({asset_path, vocab, ""});
    SavedModelBuilder builder(dir);
    std::map<std::string, tensorflow::SignatureDef> signatures;
    signatures["path"] = PredictSignatureDef({}, {{"path", read}, {"counter", counter}});
    Status s = builder.AddMetaGraphAndVariables(root, session, {"serve"}, signatures, options);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST_REQUIRE(builder.Save().ok());
    (void)session.Reset({});
  }
  BOOST_TEST(fs::exists(dir + "/assets/vocab.txt"));
  SavedModelBundle bundle;
  SessionOptions options;
  options.num_gpu_devices = 0;
  Status s = LoadSavedModel(options, RunOptions(), dir, {"serve"}, &bundle);
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::map<std::string, Tensor> out;
  s = RunSignature(bundle, "path", {}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out.at("path").scalar<std::string>() ==
             (fs::path(dir) / "assets" / "vocab.txt").string());
  BOOST_TEST(out.at("counter").scalar<float>() == 41.0f);
  (void)bundle.session->Reset({});
}

BOOST_AUTO_TEST_CASE(builder_refusals) {
  TempDir tmp("af_saved_model_export");
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto y = ops::Identity(root.WithOpName("y"), x);
  ClientSession session(root);
  {
    std::ofstream(tmp.path() + "/occupied") << "x";
    SavedModelBuilder builder(tmp.path());
    const Status s = builder.AddMetaGraphAndVariables(root, session, {"serve"}, {});
    BOOST_TEST(s.code() == Code::ALREADY_EXISTS);
  }
  {
    SavedModelBuilder builder(tmp.path() + "/a");
    BOOST_TEST(builder.Save().code() == Code::FAILED_PRECONDITION);
    BOOST_TEST(builder.AddMetaGraph(root, {"serve"}, {}).code() == Code::FAILED_PRECONDITION);
    std::map<std::string, tensorflow::SignatureDef> bad;
    bad["s"] = PredictSignatureDef({{"x", x}}, {{"y", y}});
    (*bad["s"].mutable_outputs())["y"].set_name("nope:0");
    Status s = builder.AddMetaGraphAndVariables(root, session, {"serve"}, bad);
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
    BOOST_TEST(Mentions(s, "'nope:0'"), s);
  }
  {
    // No variables: no saver, no variables folder; still loads and runs.
    const std::string dir = tmp.path() + "/novars";
    SavedModelBuilder builder(dir);
    std::map<std::string, tensorflow::SignatureDef> sigs;
    sigs["id"] = PredictSignatureDef({{"x", x}}, {{"y", y}});
    Status s = builder.AddMetaGraphAndVariables(root, session, {"serve"}, sigs);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST_REQUIRE(builder.Save().ok());
    BOOST_TEST(!fs::exists(dir + "/variables"));
    SavedModelBundle bundle;
    SessionOptions options;
    options.num_gpu_devices = 0;
    s = LoadSavedModel(options, RunOptions(), dir, {"serve"}, &bundle);
    BOOST_TEST_REQUIRE(s.ok(), s);
    std::map<std::string, Tensor> out;
    s = RunSignature(bundle, "id", {{"x", Tensor::Scalar<float>(3)}}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST(out.at("y").scalar<float>() == 3.0f);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
