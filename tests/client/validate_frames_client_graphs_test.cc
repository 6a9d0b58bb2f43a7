// Graphs the client's WhileLoop and Cond build pass ValidateFrames, the
// whole-graph frame check meant for Session::Extend: adding that check at
// Extend must not refuse loops this library itself writes.
#include <boost/test/unit_test.hpp>

#include "client/client_session.h"
#include "client/control_flow/cond.h"
#include "client/control_flow/while_loop.h"
#include "client/standard_ops.h"
#include "control-flow/frame_analysis.h"

namespace af {
namespace {

WhileCondFn Below(int limit) {
  return [limit](const Scope& s, const std::vector<Output>& v, Output* c) {
    *c = ops::Less(s, v[0], limit);
    return s.status();
  };
}

BOOST_AUTO_TEST_CASE(nested_loops_with_a_cond_and_captured_tensors_validate) {
  Scope root = Scope::NewRootScope();
  auto one = ops::Const(root.WithOpName("one"), 1.0);
  auto scale = ops::Const(root.WithOpName("scale"), 2.0);
  std::vector<Output> out;
  Status s = WhileLoop(
      root, {ops::Const(root, 0), ops::Const(root, 0.0)}, Below(4),
      [&](const Scope& outer, const std::vector<Output>& ov, std::vector<Output>* onext) {
        std::vector<Output> inner_out;
        AF_RETURN_IF_ERROR(WhileLoop(
            outer, {ops::Const(outer, 0), ov[1]}, Below(3),
            [&](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
              auto even = ops::Equal(sc, ops::FloorMod(sc, ops::Add(sc, ov[0], v[0]), 2), 0);
              std::vector<Output> picked;
              AF_RETURN_IF_ERROR(Cond(
                  sc, even,
                  [&](const Scope& b, std::vector<Output>* r) {
                    *r = {ops::Mul(b, scale, ops::Cast(b, v[0], DT_DOUBLE))};
                    return b.status();
                  },
                  [&](const Scope&, std::vector<Output>* r) {
                    *r = {one};
                    return Status::OK();
                  },
                  &picked));
              *next = {ops::Add(sc, v[0], 1), ops::Add(sc, v[1], picked[0])};
              return sc.status();
            },
            &inner_out));
        *onext = {ops::Add(outer, ov[0], 1), inner_out[1]};
        return outer.status();
      },
      &out);
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
