// LoadSavedModel on TensorFlow Serving's real SavedModels: every signature
// of the TF 1 and TF 2 half-plus-two models gives the values of their
// README, and the counter's stateful signatures behave in sequence.
// Variables live in the process's containers, shared by sessions, so each
// test resets the default container before and after it loads a model.
#include <boost/test/unit_test.hpp>

#include <map>
#include <string>
#include <vector>

#include "client/saved_model/constants.h"
#include "client/saved_model/loader.h"
#include "client/saved_model/signature_runner.h"
#include "tests/saved_model_test_util.h"
#include "tests/test_util.h"

namespace af {
namespace {

using testing::FloatExample;
using testing::SavedModelPath;

// A loaded model whose containers are cleared when the test ends.
struct Loaded {
  explicit Loaded(const std::string& name) {
    SessionOptions options;
    options.num_gpu_devices = 0;
    status =
        LoadSavedModel(options, RunOptions(), SavedModelPath(name), {kSavedModelTagServe}, &bundle);
  }
  ~Loaded() {
    if (bundle.session != nullptr) {
      (void)bundle.session->Reset({});
      (void)bundle.session->Close();
    }
  }
  Status status;
  SavedModelBundle bundle;
};

std::vector<float> Values(const Tensor& t) {
  std::vector<float> v(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) v[i] = t.data<float>()[i];
  return v;
}

Tensor Examples(const std::vector<std::map<std::string, std::vector<float>>>& examples) {
  Tensor t(DT_STRING, TensorShape{static_cast<int64_t>(examples.size())});
  for (size_t i = 0; i < examples.size(); ++i) t.data<std::string>()[i] = FloatExample(examples[i]);
  return t;
}

// The one output of a signature run on `inputs`.
std::vector<float> RunOne(const SavedModelBundle& bundle, const std::string& key,
                          const std::map<std::string, Tensor>& inputs, Tensor* raw = nullptr) {
  std::map<std::string, Tensor> out;
  const Status s = RunSignature(bundle, key, inputs, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), key << ": " << s);
  BOOST_TEST_REQUIRE(out.size() == 1u);
  if (raw != nullptr) *raw = out.begin()->second;
  BOOST_TEST_REQUIRE(out.begin()->second.dtype() == DT_FLOAT);
  return Values(out.begin()->second);
}

BOOST_AUTO_TEST_SUITE(saved_model_load)

BOOST_AUTO_TEST_CASE(tf1_half_plus_two_predict) {
  Loaded m("saved_model_half_plus_two_cpu");
  BOOST_TEST_REQUIRE(m.status.ok(), m.status);
  BOOST_TEST(m.bundle.GetSignatures().size() == 5u);
  BOOST_TEST(m.bundle.meta_graph_def.saver_def().restore_op_name() == "save/restore_all");
  Tensor y;
  const std::vector<float> got =
      RunOne(m.bundle, kDefaultServingSignatureDefKey,
             {{"x", Tensor::FromVector<float>({1, 2, 5}, TensorShape{3, 1})}}, &y);
  BOOST_TEST(y.shape() == (TensorShape{3, 1}));
  BOOST_TEST(got == (std::vector<float>{2.5f, 3.0f, 4.5f}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(tf1_half_plus_two_restores_variables_and_runs_the_main_op) {
  Loaded m("saved_model_half_plus_two_cpu");
  BOOST_TEST_REQUIRE(m.status.ok(), m.status);
  std::vector<Tensor> out;
  // a, b, c, a2, c2 from variables/, not their initial values (which the
  // graph also holds): restore ran.
  const Status s = m.bundle.session->Run(
      {}, {"a:0", "b:0", "c:0", "a2:0", "c2:0", "filename_tensor:0"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<float>() == 0.5f);
  BOOST_TEST(out[1].scalar<float>() == 2.0f);
  BOOST_TEST(out[2].scalar<float>() == 3.0f);
  BOOST_TEST(out[3].scalar<float>() == 0.5f);
  BOOST_TEST(out[4].scalar<float>() == 3.0f);
  // The main op ("group_deps") assigned the variable.
  BOOST_TEST(out[5].scalar<std::string>() == "foo.txt");
}

BOOST_AUTO_TEST_CASE(tf1_half_plus_two_regress_and_classify) {
  Loaded m("saved_model_half_plus_two_cpu");
  BOOST_TEST_REQUIRE(m.status.ok(), m.status);
  const Tensor x3 = Examples({{{"x", {3.0f}}}});
  BOOST_TEST(RunOne(m.bundle, "regress_x_to_y", {{"inputs", x3}}) == std::vector<float>{3.5f});
  BOOST_TEST(RunOne(m.bundle, "regress_x_to_y2", {{"inputs", x3}}) == std::vector<float>{4.5f});
  BOOST_TEST(RunOne(m.bundle, "classify_x_to_y", {{"inputs", x3}}) == std::vector<float>{3.5f});
  // x2 is fed directly in this model's regress_x2_to_y3.
  BOOST_TEST(RunOne(m.bundle, "regress_x2_to_y3",
                    {{"inputs", Tensor::FromVector<float>({4}, TensorShape{1, 1})}}) ==
             std::vector<float>{5.0f});
  // A batch; x2 is optional (default 0), x is required (its default in
  // the graph is empty), as TensorFlow's ParseExample has them.
  const Tensor batch =
      Examples({{{"x", {1.0f}}}, {{"x", {2.0f}}, {"x2", {7.0f}}}, {{"x", {5.0f}}}});
  BOOST_TEST(RunOne(m.bundle, "regress_x_to_y", {{"inputs", batch}}) ==
                 (std::vector<float>{2.5f, 3.0f, 4.5f}),
             boost::test_tools::per_element());
  std::map<std::string, Tensor> out;
  const Status s = RunSignature(m.bundle, "regress_x_to_y", {{"inputs", Examples({{}})}}, {}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(testing::Mentions(s, "'x'"), s);
}

BOOST_AUTO_TEST_CASE(counter_signatures_in_sequence) {
  Loaded m("saved_model_counter");
  BOOST_TEST_REQUIRE(m.status.ok(), m.status);
  auto call = [&](const std::string& key, const std::map<std::string, Tensor>& in = {}) {
    const std::vector<float> v = RunOne(m.bundle, key, in);
    BOOST_TEST_REQUIRE(v.size() == 1u);
    return v[0];
  };
  BOOST_TEST(call("get_counter") == 0.0f);
  BOOST_TEST(call("incr_counter") == 1.0f);
  BOOST_TEST(call("incr_counter") == 2.0f);
  BOOST_TEST(call("get_counter") == 2.0f);
  BOOST_TEST(call("incr_counter_by", {{"delta", Tensor::Scalar<float>(3.5f)}}) == 5.5f);
  BOOST_TEST(call("get_counter") == 5.5f);
  BOOST_TEST(call("reset_counter") == 0.0f);
  BOOST_TEST(call("get_counter") == 0.0f);
  BOOST_TEST(call("incr_counter") == 1.0f);
}

BOOST_AUTO_TEST_CASE(counter_reload_restores_the_saved_value) {
  {
    Loaded m("saved_model_counter");
    BOOST_TEST_REQUIRE(m.status.ok(), m.status);
    BOOST_TEST(RunOne(m.bundle, "incr_counter", {}) == std::vector<float>{1.0f});
  }
  Loaded again("saved_model_counter");
  BOOST_TEST_REQUIRE(again.status.ok(), again.status);
  BOOST_TEST(RunOne(again.bundle, "get_counter", {}) == std::vector<float>{0.0f});
}

// TF 2: signatures are StatefulPartitionedCalls of FunctionDefs, variables
// VarHandleOp resources restored by the restore function.
BOOST_AUTO_TEST_CASE(tf2_half_plus_two_every_signature) {
  Loaded m("saved_model_half_plus_two_tf2_cpu");
  BOOST_TEST_REQUIRE(m.status.ok(), m.status);
  BOOST_TEST(m.bundle.GetSignatures().count(kSavedModelInitOpSignatureKey) == 1u);
  BOOST_TEST(m.bundle.meta_graph_def.saver_def().restore_op_name() == "StatefulPartitionedCall_7");
  BOOST_TEST(RunOne(m.bundle, kDefaultServingSignatureDefKey,
                    {{"x", Tensor::FromVector<float>({1})}}) == std::vector<float>{2.5f});
  BOOST_TEST(RunOne(m.bundle, kDefaultServingSignatureDefKey,
                    {{"x", Tensor::FromVector<float>({5})}}) == std::vector<float>{4.5f});
  // serving_default's x has a default (0): y = 2.
  BOOST_TEST(RunOne(m.bundle, kDefaultServingSignatureDefKey, {}) == std::vector<float>{2.0f});
  const Tensor x3 = Examples({{{"x", {3.0f}}}});
  BOOST_TEST(RunOne(m.bundle, "regress_x_to_y", {{"inputs", x3}}) == std::vector<float>{3.5f});
  BOOST_TEST(RunOne(m.bundle, "regress_x_to_y2", {{"inputs", x3}}) == std::vector<float>{4.5f});
  BOOST_TEST(RunOne(m.bundle, "classify_x_to_y", {{"inputs", x3}}) == std::vector<float>{3.5f});
  const Tensor x2 = Tensor::FromVector<float>({4});
  BOOST_TEST(RunOne(m.bundle, "regress_x2_to_y3", {{"inputs", x2}}) == std::vector<float>{5.0f});
  BOOST_TEST(RunOne(m.bundle, "classify_x2_to_y3", {{"inputs", x2}}) == std::vector<float>{5.0f});
  // Feature x is required here too: an empty example is refused.
  std::map<std::string, Tensor> out;
  const Status s = RunSignature(m.bundle, "regress_x_to_y", {{"inputs", Examples({{}})}}, {}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(testing::Mentions(s, "'x'"), s);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
