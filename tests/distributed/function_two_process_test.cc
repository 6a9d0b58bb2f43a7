// Functions whose bodies span two `actorflow server` processes: a call's
// body nodes carry devices of two tasks, and a StatelessWhile's body
// function does half of each iteration in each process. Inlining happens
// before partitioning, so Send/Recv pairs cut the bodies like any graph.
#include <boost/test/unit_test.hpp>

#include <google/protobuf/text_format.h>

#include "tests/distributed/server_process.h"
#include "tests/loop_graphs_test_util.h"

namespace af {
namespace {

using testing::ServerProcess;

const std::string kTask1 = "/job:worker/replica:0/task:1/device:CPU:0";
const std::string kTask2 = "/job:worker/replica:0/task:2/device:CPU:0";
const std::string kF = "attr { key: 'T' value { type: DT_FLOAT } } ";
const std::string kI = "attr { key: 'T' value { type: DT_INT32 } } ";

std::string ConstDef(const std::string& name, const std::string& dtype, const std::string& v,
                     const std::string& device) {
  return "node_def { name: '" + name + "' op: 'Const' device: '" + device +
         "' attr { key: 'dtype' value { type: " + dtype +
         " } } attr { key: 'value' value { tensor { dtype: " + dtype + " tensor_shape {} " + v +
         " } } } } ";
}

// split(x) = (x * 3 on task 1) + 1 on task 2
const std::string kSplit =
    "function { signature { name: 'split' input_arg { name: 'x' type: DT_FLOAT } "
    "output_arg { name: 'y' type: DT_FLOAT } } " +
    ConstDef("three", "DT_FLOAT", "float_val: 3", kTask1) +
    ConstDef("one", "DT_FLOAT", "float_val: 1", kTask2) +
    "node_def { name: 'mul' op: 'Mul' device: '" + kTask1 +
    "' input: 'x' input: 'three:output:0' " + kF +
    "} "
    "node_def { name: 'add' op: 'AddV2' device: '" +
    kTask2 + "' input: 'mul:z:0' input: 'one:output:0' " + kF +
    "} "
    "ret { key: 'y' value: 'add:z:0' } } ";

const std::string kLoopArgs =
    "input_arg { name: 'i' type: DT_INT32 } input_arg { name: 'x' type: DT_FLOAT } "
    "input_arg { name: 'n' type: DT_INT32 } ";

const std::string kBelow = "function { signature { name: 'below' " + kLoopArgs +
                           "output_arg { name: 'b' type: DT_BOOL } } "
                           "node_def { name: 'less' op: 'Less' device: '" +
                           kTask1 + "' input: 'i' input: 'n' " + kI +
                           "} ret { key: 'b' value: 'less:z:0' } } ";

// step(i, x, n) = (i + 1, split(x), n): the body calls split.
const std::string kStep =
    "function { signature { name: 'step' " + kLoopArgs +
    "output_arg { name: 'i2' type: DT_INT32 } output_arg { name: 'x2' type: DT_FLOAT } "
    "output_arg { name: 'n2' type: DT_INT32 } } " +
    ConstDef("one", "DT_INT32", "int_val: 1", kTask1) +
    "node_def { name: 'inc' op: 'AddV2' device: '" + kTask1 +
    "' input: 'i' input: 'one:output:0' " + kI +
    "} "
    "node_def { name: 'call' op: 'PartitionedCall' input: 'x' "
    "attr { key: 'Tin' value { list { type: DT_FLOAT } } } "
    "attr { key: 'Tout' value { list { type: DT_FLOAT } } } "
    "attr { key: 'f' value { func { name: 'split' } } } } "
    "ret { key: 'i2' value: 'inc:z:0' } ret { key: 'x2' value: 'call:output:0' } "
    "ret { key: 'n2' value: 'n' } } ";

tensorflow::GraphDef Graph() {
  const std::string text =
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } } "
      "node { name: 'i0' op: 'Placeholder' attr { key: 'dtype' value { type: DT_INT32 } } } "
      "node { name: 'n' op: 'Placeholder' attr { key: 'dtype' value { type: DT_INT32 } } } "
      "node { name: 'once' op: 'PartitionedCall' input: 'x' "
      "attr { key: 'Tin' value { list { type: DT_FLOAT } } } "
      "attr { key: 'Tout' value { list { type: DT_FLOAT } } } "
      "attr { key: 'f' value { func { name: 'split' } } } } "
      "node { name: 'loop' op: 'StatelessWhile' input: 'i0' input: 'x' input: 'n' "
      "attr { key: 'T' value { list { type: DT_INT32 type: DT_FLOAT type: DT_INT32 } } } "
      "attr { key: 'cond' value { func { name: 'below' } } } "
      "attr { key: 'body' value { func { name: 'step' } } } } "
      "library { " +
      kSplit + kBelow + kStep + "} ";
  tensorflow::GraphDef def;
  BOOST_TEST_REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

BOOST_AUTO_TEST_SUITE(function_two_process)

BOOST_AUTO_TEST_CASE(function_bodies_and_functional_loops_span_two_server_processes) {
  ServerProcess one, two;
  Status s = one.Start({"--task", "1", "--threads", "2"});
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  s = two.Start({"--task", "2", "--threads", "2"});
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  SessionOptions options;
  options.remote_workers = {one.address(), two.address()};
  options.default_timeout_ms = 30000;
  auto session = testing::SessionWithGraph(options, Graph());
  for (int n : {0, 1, 5}) {
    std::vector<Tensor> out;
    s = session->Run({{"x", Tensor::Scalar<float>(1.0f)},
                      {"i0", Tensor::Scalar<int32_t>(0)},
                      {"n", Tensor::Scalar<int32_t>(n)}},
                     {"once:0", "loop:1"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].scalar<float>() == 4.0f);
    double expected = 1.0;
    for (int k = 0; k < n; ++k) expected = expected * 3 + 1;
    BOOST_TEST(out[1].scalar<float>() == static_cast<float>(expected));
  }
  BOOST_TEST(session->Close().ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
