// Each way a GraphDef can be wrong, written by hand, must come back as an
// error that names the offending node and leaves the graph empty.
#include <boost/test/unit_test.hpp>

#include "graph_test_util.h"

namespace af {
namespace {

using testing::Contains;
using testing::ControlFlowTestRegistry;
using testing::ImportText;
using testing::OpT;
using testing::Placeholder;

// Imports `text` into a fresh graph and checks the error's code and that
// its message names `node` (quoted) and mentions `reason`.
void ExpectImportError(const std::string& text, Code code, const std::string& node,
                       const std::string& reason, const OpRegistry* registry = OpRegistry::Global()) {
  Graph g(registry);
  Status s = ImportText(text, &g);
  BOOST_TEST_INFO("status: " << s);
  BOOST_TEST(s.code() == code);
  BOOST_TEST(Contains(s.message(), node));
  BOOST_TEST(Contains(s.message(), reason));
  BOOST_TEST(g.num_nodes() == 0);
}

BOOST_AUTO_TEST_CASE(unknown_op) {
  ExpectImportError(Placeholder("x") + "node { name: 'weird' op: 'NoSuchOp' input: 'x' }",
                    Code::NOT_FOUND, "'weird'", "NoSuchOp");
}

BOOST_AUTO_TEST_CASE(duplicate_node_names) {
  ExpectImportError(Placeholder("x") + Placeholder("x"), Code::INVALID_ARGUMENT, "'x'",
                    "duplicate");
}

BOOST_AUTO_TEST_CASE(input_naming_a_missing_node) {
  ExpectImportError(Placeholder("x") + OpT("y", "Identity", {"nowhere"}), Code::INVALID_ARGUMENT,
                    "'y'", "nowhere");
  ExpectImportError(Placeholder("x") + OpT("y", "Identity", {"x", "^ghost"}),
                    Code::INVALID_ARGUMENT, "'y'", "ghost");
}

BOOST_AUTO_TEST_CASE(output_port_out_of_range) {
  ExpectImportError(Placeholder("x") + OpT("y", "Identity", {"x:1"}), Code::INVALID_ARGUMENT,
                    "'y'", "x:1");
}

BOOST_AUTO_TEST_CASE(malformed_input_name) {
  ExpectImportError(Placeholder("x") + OpT("y", "Identity", {"x:one"}), Code::INVALID_ARGUMENT,
                    "'y'", "x:one");
}

BOOST_AUTO_TEST_CASE(invalid_node_name) {
  ExpectImportError(Placeholder("a:b"), Code::INVALID_ARGUMENT, "'a:b'", "name");
  ExpectImportError(Placeholder(""), Code::INVALID_ARGUMENT, "''", "name");
}

BOOST_AUTO_TEST_CASE(data_input_after_control_input) {
  ExpectImportError(Placeholder("x") + Placeholder("z") + OpT("y", "Add", {"x", "^z", "x"}),
                    Code::INVALID_ARGUMENT, "'y'", "control input");
}

BOOST_AUTO_TEST_CASE(type_mismatch_along_an_edge) {
  ExpectImportError(Placeholder("f") + Placeholder("i", "DT_INT32") +
                        OpT("sum", "Add", {"f", "i"}),
                    Code::INVALID_ARGUMENT, "'sum'", "int32");
}

BOOST_AUTO_TEST_CASE(wrong_number_of_inputs) {
  {
    Graph g;
    Status s = ImportText(Placeholder("x") + OpT("y", "Identity", {"x", "x"}), &g);
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
    BOOST_TEST(Contains(s.message(), "y"), s.message());
    BOOST_TEST(g.num_nodes() == 0);
  }
  {
    Graph g;
    Status s = ImportText(Placeholder("x") + OpT("y", "Add", {"x"}), &g);
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
    BOOST_TEST(Contains(s.message(), "y"), s.message());
  }
}

BOOST_AUTO_TEST_CASE(illegal_cycle) {
  ExpectImportError(Placeholder("x") + OpT("a", "Add", {"x", "b"}) + OpT("b", "Relu", {"a"}),
                    Code::INVALID_ARGUMENT, "'a'", "cycle");
}

BOOST_AUTO_TEST_CASE(ref_output_may_feed_a_value_input_but_not_the_reverse) {
  const OpRegistry* r = ControlFlowTestRegistry();
  {
    Graph g(r);
    Status s = ImportText("node { name: 'var' op: 'TestRefSource' } "
                          "node { name: 'read' op: 'TestValueSink' input: 'var' } "
                          "node { name: 'assign' op: 'TestRefSink' input: 'var' } ",
                          &g);
    BOOST_TEST(s.ok(), s);
    BOOST_TEST(g.FindNode("var")->output_type(0) == MakeRefType(DT_FLOAT));
  }
  ExpectImportError(Placeholder("x") + "node { name: 'assign' op: 'TestRefSink' input: 'x' }",
                    Code::INVALID_ARGUMENT, "'assign'", "float_ref", r);
}

BOOST_AUTO_TEST_CASE(failed_import_leaves_a_non_empty_graph_unchanged) {
  Graph g;
  BOOST_REQUIRE(ImportText(Placeholder("kept"), &g).ok());
  Status s = ImportText(Placeholder("new") + OpT("bad", "Identity", {"missing"}), &g);
  BOOST_TEST(!s.ok());
  BOOST_TEST(g.num_nodes() == 1);
  BOOST_TEST(g.FindNode("kept") != nullptr);
  BOOST_TEST(g.FindNode("new") == nullptr);
}

BOOST_AUTO_TEST_CASE(versions_are_optional_and_kept_when_present) {
  Graph without;
  BOOST_REQUIRE(ImportText(Placeholder("x"), &without).ok());
  BOOST_TEST(without.versions().producer() == 0);
  Graph with;
  BOOST_REQUIRE(ImportText(Placeholder("x") + "versions { producer: 440 min_consumer: 12 }", &with)
                    .ok());
  BOOST_TEST(with.versions().producer() == 440);
  BOOST_TEST(with.versions().min_consumer() == 12);
}

BOOST_AUTO_TEST_CASE(inputs_may_name_nodes_defined_later) {
  Graph g;
  Status s = ImportText(OpT("y", "Relu", {"x"}) + Placeholder("x"), &g);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  const Edge* e = nullptr;
  BOOST_REQUIRE(g.FindNode("y")->input_edge(0, &e).ok());
  BOOST_TEST(e->src()->name() == "x");
}

BOOST_AUTO_TEST_CASE(duplicate_control_inputs_become_one_edge) {
  Graph g;
  BOOST_REQUIRE(ImportText(Placeholder("x") + OpT("y", "Identity", {"x", "^x", "^x"}), &g).ok());
  BOOST_TEST(g.FindNode("y")->in_edges().size() == 2u);
}

}  // namespace
}  // namespace af
