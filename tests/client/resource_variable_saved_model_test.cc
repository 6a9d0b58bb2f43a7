// TensorFlow 2's half-plus-two SavedModel at the level of its graph, with
// no loader in between: its variables are VarHandleOp resources that the
// restore function assigns (RestoreV2 into AssignVariableOp) and the
// serving function reads (ReadVariableOp), and its save path is built with
// StringJoin and StaticRegexFullMatch. Restoring and serving must give
// y = 0.5 x + 2.
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <vector>

#include "client/saved_model/reader.h"
#include "client/session.h"
#include "tests/saved_model_test_util.h"

namespace af {
namespace {

BOOST_AUTO_TEST_SUITE(resource_variable_saved_model)

BOOST_AUTO_TEST_CASE(tf2_half_plus_two_restores_and_reads_its_resource_variables) {
  const std::string dir = testing::SavedModelPath("saved_model_half_plus_two_tf2_cpu");
  tensorflow::MetaGraphDef meta_graph;
  Status s = ReadMetaGraphDefFromSavedModel(dir, {"serve"}, &meta_graph);
  BOOST_TEST_REQUIRE(s.ok(), s);
  SessionOptions options;
  options.num_gpu_devices = 0;
  std::unique_ptr<Session> session;
  s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  s = session->Reset({});
  BOOST_TEST_REQUIRE(s.ok(), s);
  s = session->Extend(meta_graph.graph_def());
  BOOST_TEST_REQUIRE(s.ok(), s);

  const tensorflow::SaverDef& saver = meta_graph.saver_def();
  std::vector<Tensor> unused;
  s = session->Run(
      {{saver.filename_tensor_name(), Tensor::Scalar<std::string>(dir + "/variables/variables")}},
      {}, {saver.restore_op_name()}, &unused);
  BOOST_TEST_REQUIRE(s.ok(), s);

  const auto& signature = meta_graph.signature_def().at("serving_default");
  const std::string x = signature.inputs().at("x").name();
  const std::string y = signature.outputs().begin()->second.name();
  std::vector<Tensor> out;
  s = session->Run({{x, Tensor::FromVector<float>({1, 5})}}, {y}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST_REQUIRE(out[0].NumElements() == 2);
  BOOST_TEST(out[0].data<float>()[0] == 2.5f);
  BOOST_TEST(out[0].data<float>()[1] == 4.5f);
  (void)session->Reset({});
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
