// Helpers shared by the op/kernel registry tests: NodeDefs in one line and
// OpDefs straight from builder specs.
#pragma once

#include <boost/test/unit_test.hpp>

#include <initializer_list>
#include <string>
#include <utility>

#include "core/node_def_util.h"
#include "core/op_registry.h"
#include "tests/test_util.h"

namespace af::test {

// A NodeDef named `name` running `op` on `inputs`, attrs added by the caller.
inline tensorflow::NodeDef MakeNode(const std::string& name, const std::string& op,
                                    std::initializer_list<std::string> inputs = {}) {
  tensorflow::NodeDef node;
  node.set_name(name);
  node.set_op(op);
  for (const auto& in : inputs) node.add_input(in);
  return node;
}

// The registered OpDef of `op`; fails the test when the op is missing.
inline const tensorflow::OpDef& RegisteredOp(const std::string& op) {
  const tensorflow::OpDef* def = nullptr;
  Status s = OpRegistry::Global()->LookUpOpDef(op, &def);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return *def;
}

// Finalizes `builder`, failing the test on error.
inline OpRegistrationData Finalized(const OpDefBuilder& builder) {
  OpRegistrationData data;
  Status s = builder.Finalize(&data);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return data;
}

using testing::Contains;

}  // namespace af::test
