// SymbolicGradient nodes, as TensorFlow 1 graphs with function gradients
// hold them (graph/symbolic_gradient.h): each becomes a call of a gradient
// function built by the client's gradient registry and is inlined like any
// call. Checked against the derivatives worked out by hand, with the
// optimizer on and off.
#include <boost/test/unit_test.hpp>

#include <google/protobuf/text_format.h>

#include "client/session.h"

namespace af {
namespace {

const std::string kF = "attr { key: 'T' value { type: DT_FLOAT } } ";

std::string Binary(const std::string& name, const std::string& op, const std::string& a,
                   const std::string& b) {
  return "node_def { name: '" + name + "' op: '" + op + "' input: '" + a + "' input: '" + b +
         "' " + kF + "} ";
}

// f(x, y) = x * y + x;  g(x) = (3 x, x * x);  h(x, n) = x * x (n unused).
const std::string kLibrary =
    "library { "
    "function { signature { name: 'f' input_arg { name: 'x' type: DT_FLOAT } "
    "input_arg { name: 'y' type: DT_FLOAT } output_arg { name: 'z' type: DT_FLOAT } } " +
    Binary("xy", "Mul", "x", "y") + Binary("z", "AddV2", "xy:z:0", "x") +
    "ret { key: 'z' value: 'z:z:0' } } "
    "function { signature { name: 'g' input_arg { name: 'x' type: DT_FLOAT } "
    "output_arg { name: 'a' type: DT_FLOAT } output_arg { name: 'b' type: DT_FLOAT } } "
    "node_def { name: 'three' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
    "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 3 } } } } " +
    Binary("a", "Mul", "x", "three:output:0") + Binary("b", "Mul", "x", "x") +
    "ret { key: 'a' value: 'a:z:0' } ret { key: 'b' value: 'b:z:0' } } "
    "function { signature { name: 'h' input_arg { name: 'x' type: DT_FLOAT } "
    "input_arg { name: 'n' type: DT_INT32 } output_arg { name: 'y' type: DT_FLOAT } } " +
    Binary("y", "Mul", "x", "x") + "ret { key: 'y' value: 'y:z:0' } } } ";

std::string Placeholder(const std::string& name, const std::string& dtype) {
  return "node { name: '" + name + "' op: 'Placeholder' attr { key: 'dtype' value { type: " +
         dtype + " } } } ";
}

std::string Gradient(const std::string& name, const std::string& f, const std::string& inputs,
                     const std::string& tin, const std::string& tout) {
  return "node { name: '" + name + "' op: 'SymbolicGradient' " + inputs +
         "attr { key: 'Tin' value { list { " + tin + "} } } attr { key: 'Tout' value { list { " +
         tout + "} } } attr { key: 'f' value { func { name: '" + f + "' } } } } ";
}

std::unique_ptr<Session> Open(const std::string& nodes, bool optimize) {
  SessionOptions options;
  if (!optimize) options.optimizer.opt_level = OptimizerOptions::L0;
  std::unique_ptr<Session> session;
  BOOST_TEST_REQUIRE(Session::Create(options, &session).ok());
  tensorflow::GraphDef def;
  BOOST_TEST_REQUIRE(google::protobuf::TextFormat::ParseFromString(nodes + kLibrary, &def));
  Status s = session->Extend(def);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return session;
}

Tensor Floats(std::vector<float> v) { return Tensor::FromVector<float>(v); }

BOOST_AUTO_TEST_SUITE(symbolic_gradient)

BOOST_AUTO_TEST_CASE(gradients_of_functions_match_their_derivatives) {
  const std::string f2 = "type: DT_FLOAT type: DT_FLOAT ";
  const std::string nodes =
      Placeholder("x", "DT_FLOAT") + Placeholder("y", "DT_FLOAT") + Placeholder("d0", "DT_FLOAT") +
      Placeholder("d1", "DT_FLOAT") + Placeholder("n", "DT_INT32") +
      Gradient("df", "f", "input: 'x' input: 'y' input: 'd0' ", f2 + "type: DT_FLOAT ", f2) +
      Gradient("dg", "g", "input: 'x' input: 'd0' input: 'd1' ", f2 + "type: DT_FLOAT ",
               "type: DT_FLOAT ") +
      Gradient("dh", "h", "input: 'x' input: 'n' input: 'd0' ",
               "type: DT_FLOAT type: DT_INT32 type: DT_FLOAT ", "type: DT_FLOAT type: DT_INT32 ");
  const std::vector<float> x = {1, -2, 0.5f}, y = {4, 3, -1}, d0 = {1, 2, 3}, d1 = {-1, 0.5f, 2};
  for (bool optimize : {true, false}) {
    auto session = Open(nodes, optimize);
    std::vector<Tensor> out;
    Tensor n(DT_INT32, TensorShape{3});
    for (int i = 0; i < 3; ++i) n.data<int32_t>()[i] = i;
    Status s = session->Run({{"x", Floats(x)}, {"y", Floats(y)}, {"d0", Floats(d0)},
                             {"d1", Floats(d1)}, {"n", n}},
                            {"df:0", "df:1", "dg:0", "dh:0", "dh:1"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    for (int i = 0; i < 3; ++i) {
      // d(xy + x)/dx = y + 1, /dy = x; d(3x, x^2)/dx . (d0, d1) = 3 d0 + 2 x d1.
      BOOST_TEST(out[0].data<float>()[i] == (y[i] + 1) * d0[i]);
      BOOST_TEST(out[1].data<float>()[i] == x[i] * d0[i]);
      BOOST_TEST(out[2].data<float>()[i] == 3 * d0[i] + 2 * x[i] * d1[i]);
      BOOST_TEST(out[3].data<float>()[i] == 2 * x[i] * d0[i]);
      // n reaches no output: its gradient is zero, of its own type.
      BOOST_TEST(out[4].dtype() == DT_INT32);
      BOOST_TEST(out[4].data<int32_t>()[i] == 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_gradient_of_a_missing_function_is_not_found_naming_the_node) {
  const std::string nodes =
      Placeholder("x", "DT_FLOAT") + Placeholder("d0", "DT_FLOAT") +
      Gradient("d_missing", "nowhere", "input: 'x' input: 'd0' ", "type: DT_FLOAT type: DT_FLOAT ",
               "type: DT_FLOAT ");
  auto session = Open(nodes, true);
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Floats({1})}, {"d0", Floats({1})}}, {"d_missing:0"}, {}, &out);
  BOOST_TEST(s.code() == Code::NOT_FOUND, s.ToString());
  BOOST_TEST(s.message().find("d_missing") != std::string::npos, s.ToString());
  BOOST_TEST(s.message().find("nowhere") != std::string::npos, s.ToString());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
