// Graphs the client's WhileLoop and Cond build pass ValidateFrames, the
// whole-graph frame check meant for Session::Extend: adding that check at
// Extend must not refuse loops this library itself writes.
#include <boost/test/unit_test.hpp>

#include "client/client_session.h"
#include "client/control_flow/cond.h"
#include "client/control_flow/while_loop.h"
#include "client/standard_ops.h"
#include "control-flow/frame_analysis.h"
#include "control_flow_test_util.h"

namespace af {
namespace {

BOOST_AUTO_TEST_CASE(nested_loops_with_a_cond_and_captured_tensors_validate) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> out;
  Status s = testing::NestedLoopsWithCond(root, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  s = ValidateFrames(*root.graph());
  BOOST_TEST(s.ok(), s);

  // And the check is live on this graph: a control edge from outside into
  // the inner loop is refused, naming both nodes and both frames.
  Node* inner_add = nullptr;
  for (Node* n : root.graph()->nodes())
    if (n->name() == "while/while/Add") inner_add = n;
  BOOST_TEST_REQUIRE(inner_add != nullptr);
  root.graph()->AddControlEdge(root.graph()->FindNode("one"), inner_add);
  s = ValidateFrames(*root.graph());
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  const std::string m(s.message());
  BOOST_TEST(m.find("'while/while/Add'") != std::string::npos, m);
  BOOST_TEST(m.find("'one' (op 'Const') in the root frame") != std::string::npos, m);
  BOOST_TEST(m.find("frame 'while/while/while_context'") != std::string::npos, m);
}

}  // namespace
}  // namespace af
