// Variables through Sessions: state lives in the device's containers across
// steps, two sessions in one process share a named container (whitepaper
// §4.6), and an uninitialized read names the variable.
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <vector>

#include "core/resource_mgr.h"
#include "tests/actors/session_test_util.h"

namespace af::testing {
namespace {

tensorflow::NodeDef* Variable(GraphBuilder& g, const std::string& name,
                              const std::string& container) {
  tensorflow::NodeDef* n = g.Add(name, "VariableV2", {}, "");
  (*n->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  (*n->mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(2);
  (*n->mutable_attr())["container"].set_s(container);
  return n;
}

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

std::unique_ptr<Session> NewSession(const tensorflow::GraphDef& graph) {
  std::unique_ptr<Session> s;
  BOOST_REQUIRE(Session::Create(SessionOptions(), &s).ok());
  BOOST_REQUIRE(s->Extend(graph).ok());
  return s;
}

BOOST_AUTO_TEST_SUITE(variables_in_sessions)

BOOST_AUTO_TEST_CASE(training_steps_update_a_variable_and_sessions_share_it) {
  const std::string container = "variables_session_test";
  GraphBuilder g;
  Variable(g, "w", container);
  g.Const("w_init", Tensor::FromVector<float>({1, 2}));
  g.Op("Assign", "init", {"w", "w_init"});
  g.Const("lr", Tensor::Scalar<float>(0.5f));
  g.Const("grad", Tensor::FromVector<float>({1, -2}));
  g.Op("ApplyGradientDescent", "step", {"w", "lr", "grad"});
  g.Op("Identity", "read", {"w"});
  std::unique_ptr<Session> trainer = NewSession(g.graph());

  std::vector<Tensor> out;
  Status s = trainer->Run({}, {"read"}, {}, &out);
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION);
  BOOST_TEST(s.message().find("Attempting to use uninitialized value w") != std::string::npos,
             s.ToString());

  BOOST_REQUIRE(trainer->Run({}, {}, {"init"}, &out).ok());
  for (int i = 0; i < 3; ++i) BOOST_REQUIRE(trainer->Run({}, {}, {"step"}, &out).ok());
  s = trainer->Run({}, {"read"}, {}, &out);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  BOOST_TEST(Floats(out[0]) == (std::vector<float>{-0.5f, 5}));  // w - 3 * 0.5 * grad

  // A second session naming the same container and variable sees it.
  GraphBuilder reader_graph;
  Variable(reader_graph, "w", container);
  reader_graph.Op("Identity", "read", {"w"});
  std::unique_ptr<Session> reader = NewSession(reader_graph.graph());
  s = reader->Run({}, {"read"}, {}, &out);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  BOOST_TEST(Floats(out[0]) == (std::vector<float>{-0.5f, 5}));

  // Resetting the container on every device forgets it.
  CleanupContainerOnAllDevices(container);
  BOOST_TEST(reader->Run({}, {"read"}, {}, &out).code() == Code::FAILED_PRECONDITION);
  BOOST_TEST(trainer->Close().ok());
  BOOST_TEST(reader->Close().ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::testing
