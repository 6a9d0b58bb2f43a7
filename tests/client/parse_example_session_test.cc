// The parsing ops through the client API and a session: generated wrappers,
// shape functions, placement and kernels together. The graph is the one
// TensorFlow Serving's half_plus_two regress signature runs: serialized
// tf.Example strings -> ParseExample -> y = 0.5 * x + 2.
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/standard_ops.h"
#include "proto/example.pb.h"

namespace af {
namespace {

std::string ExampleWithX(float x) {
  tensorflow::Example example;
  (*example.mutable_features()->mutable_feature())["x"].mutable_float_list()->add_value(x);
  return example.SerializeAsString();
}

BOOST_AUTO_TEST_SUITE(parse_example_session)

BOOST_AUTO_TEST_CASE(regress_half_plus_two_through_parse_example) {
  Scope root = Scope::NewRootScope();
  auto serialized = ops::Placeholder(root, DT_STRING);
  auto names = ops::Const(root, Tensor(DT_STRING, TensorShape{0}));
  auto parsed = ops::ParseExample(
      root, serialized, names, std::vector<Input>{},
      {ops::Const(root, std::string("x")), ops::Const(root, std::string("x2"))},
      {ops::Const(root, Tensor(DT_FLOAT, TensorShape{0})), ops::Const(root, {0.f}, TensorShape{1})},
      DataTypeVector{}, {PartialTensorShape{1}, PartialTensorShape{1}});
  auto y = ops::Add(root, ops::Mul(root, parsed.dense_values[0], 0.5f), 2.0f);
  ClientSession session(root);
  std::vector<Tensor> out;
  Tensor batch = Tensor::FromVector<std::string>({ExampleWithX(3), ExampleWithX(1)});
  Status s = session.Run({{serialized, batch}}, {y, parsed.dense_values[1]}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST_REQUIRE(out[0].shape() == (TensorShape{2, 1}));
  BOOST_TEST(out[0].data<float>()[0] == 3.5f);
  BOOST_TEST(out[0].data<float>()[1] == 2.5f);
  BOOST_TEST(out[1].data<float>()[0] == 0.f);

  // x is required: an Example without it fails the step, naming the feature.
  s = session.Run({{serialized, Tensor::FromVector<std::string>({""})}}, {y}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("'x'") != std::string::npos, s.ToString());
}

BOOST_AUTO_TEST_CASE(parse_example_v2_and_decode_csv) {
  Scope root = Scope::NewRootScope();
  auto serialized = ops::Placeholder(root, DT_STRING);
  auto empty = ops::Const(root, Tensor(DT_STRING, TensorShape{0}));
  auto parsed = ops::ParseExampleV2(root, serialized, empty, empty,
                                    ops::Const(root, Tensor::FromVector<std::string>({"x"})), empty,
                                    {ops::Const(root, {0.f}, TensorShape{1})}, 0, DataTypeVector{},
                                    DataTypeVector{}, DataTypeVector{}, {PartialTensorShape{1}});
  auto csv = ops::DecodeCSV(root, ops::Const(root, Tensor::FromVector<std::string>({"1,a", ",b"})),
                            {ops::Const(root, 7), ops::Const(root, std::string("?"))});
  ClientSession session(root);
  std::vector<Tensor> out;
  Status s = session.Run({{serialized, Tensor::Scalar<std::string>(ExampleWithX(4))}},
                         {parsed.dense_values[0], csv.output[0], csv.output[1]}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(out[0].shape() == (TensorShape{1}));
  BOOST_TEST(out[0].data<float>()[0] == 4.f);
  BOOST_TEST(out[1].data<int32_t>()[0] == 1);
  BOOST_TEST(out[1].data<int32_t>()[1] == 7);
  BOOST_TEST(out[2].data<std::string>()[1] == "b");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
