// Helpers the optimizer passes' graph tests share: a float _Retval, running
// a pass (which must succeed), and the source feeding a node's input.
#pragma once

#include <string>

#include "graph/optimizer_pass.h"
#include "pass_test_util.h"

namespace af::pass_testing {

inline std::string Retval(const std::string& name, const std::string& input, int index) {
  return NodeText(name, "_Retval", {input},
                  TypeAttr("T", "DT_FLOAT") +
                      "attr { key: 'index' value { i: " + std::to_string(index) + " } } ");
}

using PassFunction = Status (*)(Graph*, const PassContext&, PassStats*);

inline PassStats RunPass(PassFunction pass, Graph* g, const PassContext& context) {
  PassStats stats;
  Status s = pass(g, context, &stats);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return stats;
}

inline const Node* Input(const Graph& g, const std::string& node, int index) {
  const Node* n = g.FindNode(node);
  BOOST_REQUIRE_MESSAGE(n != nullptr, "no node " << node);
  const Edge* e = nullptr;
  BOOST_REQUIRE(n->input_edge(index, &e).ok());
  return e->src();
}

}  // namespace af::pass_testing
