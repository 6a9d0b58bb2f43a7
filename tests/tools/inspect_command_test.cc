// Runs the built `actorflow` binary the way a user would.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "proto/graph.pb.h"

#include "tests/process_test_util.h"
#include "tests/test_util.h"

namespace {

using Result = af::testing::CommandResult;

Result RunActorflow(const std::string& args) {
  return af::testing::RunCommand(std::string(AF_ACTORFLOW_BIN) + " " + args);
}

std::string Data(const std::string& file) { return std::string(AF_TEST_DATA_DIR) + "/" + file; }

using af::testing::Contains;

BOOST_AUTO_TEST_CASE(inspect_fc_layers_graph) {
  Result r = RunActorflow("inspect " + Data("tf2onnx_fc_layers_frozen.pb"));
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "nodes: 24"));
  BOOST_TEST(Contains(r.output, "parameters: 269,322 (1,077,288 bytes)"));
  BOOST_TEST(Contains(r.output, "X  float [?,784]"));
  BOOST_TEST(Contains(r.output, "output  float [?,10]"));
  // Ops by count, ties by name.
  const size_t identity = r.output.find("Identity"), constant = r.output.find("Const"),
               bias_add = r.output.find("BiasAdd"), mat_mul = r.output.find("MatMul"),
               relu = r.output.find("Relu "), placeholder = r.output.find("Placeholder");
  BOOST_TEST(identity < constant);
  BOOST_TEST(constant < bias_add);
  BOOST_TEST(bias_add < mat_mul);
  BOOST_TEST(mat_mul < relu);
  BOOST_TEST(relu < placeholder);
}

BOOST_AUTO_TEST_CASE(inspect_other_graphs) {
  Result r = RunActorflow("inspect " + Data("tf2onnx_regression_frozen.pb"));
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "parameters: 2 (8 bytes)"));
  BOOST_TEST(Contains(r.output, "pred  float <unknown>"));

  r = RunActorflow("inspect " + Data("chaow94_mnist_mlp_frozen.pb"));
  BOOST_TEST(r.exit_code == 0);
  // 784*128 + 128 + 128*32 + 32 + 32*10 + 10
  BOOST_TEST(Contains(r.output, "parameters: 104,938"));
  BOOST_TEST(Contains(r.output, "Placeholder  float [100,784]"));
}

BOOST_AUTO_TEST_CASE(inspect_errors_exit_non_zero_with_the_status) {
  const std::string missing = Data("no_such_graph.pb");
  Result r = RunActorflow("inspect " + missing);
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code != 0);
  BOOST_TEST(Contains(r.output, "NOT_FOUND"));
  BOOST_TEST(Contains(r.output, missing));

  r = RunActorflow("inspect " + Data("README.md"));  // not a GraphDef
  BOOST_TEST(r.exit_code != 0);
  BOOST_TEST(Contains(r.output, "README.md"));

  r = RunActorflow("inspect");
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(Contains(r.output, "usage: actorflow inspect"));
}

BOOST_AUTO_TEST_CASE(help_lists_subcommands) {
  for (const char* args : {"--help", "help", "-h"}) {
    Result r = RunActorflow(args);
    BOOST_TEST_INFO(args << ": " << r.output);
    BOOST_TEST(r.exit_code == 0);
    BOOST_TEST(Contains(r.output, "inspect"));
  }
  Result r = RunActorflow("help inspect");
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "usage: actorflow inspect GRAPH"));
  r = RunActorflow("frobnicate");
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(Contains(r.output, "unknown command 'frobnicate'"));
  r = RunActorflow("");
  BOOST_TEST(r.exit_code == 2);
}

}  // namespace

BOOST_AUTO_TEST_CASE(inspect_shows_the_variables_bytes_per_ps_task) {
  // Variables as a replica device setter spreads them over two ps tasks:
  // 4000 bytes on task 0, 3600 + 400 on task 1.
  tensorflow::GraphDef def;
  const std::vector<std::pair<int64_t, std::string>> vars = {
      {1000, "/job:ps/task:0"}, {900, "/job:ps/task:1"}, {100, "/job:ps/task:1"}};
  for (const auto& [elements, device] : vars) {
    tensorflow::NodeDef* v = def.add_node();
    v->set_name("v" + std::to_string(elements));
    v->set_op("VariableV2");
    v->set_device(device);
    (*v->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
    (*v->mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(elements);
  }
  const std::string path = "/tmp/af_inspect_ps_" + std::to_string(getpid()) + ".pb";
  {
    std::ofstream file(path, std::ios::binary);
    BOOST_TEST_REQUIRE(def.SerializeToOstream(&file));
  }
  Result r = RunActorflow("inspect " + path);
  std::remove(path.c_str());
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "variables by device:"));
  BOOST_TEST(Contains(r.output, "/job:ps/task:0: 1 variable, 4,000 bytes (50%)"));
  BOOST_TEST(Contains(r.output, "/job:ps/task:1: 2 variables, 4,000 bytes (50%)"));
}
