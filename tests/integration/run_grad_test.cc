// `actorflow run --grad Y --wrt X`: gradients of a GraphDef's tensors,
// computed by the CLI as a user runs it, against values known in closed
// form and against the same gradients built in-process with the C++ API.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <fstream>

#include "client/client_session.h"
#include "client/gradients.h"
#include "client/standard_ops.h"
#include "core/npy.h"
#include "graph/graph_def_import.h"
#include "tests/process_test_util.h"
#include "tests/temp_dir_test_util.h"

namespace af {
namespace {

using testing::Capture;
using testing::TempDir;

std::string Run(const std::string& args, int* code) {
  return Capture(std::string(AF_ACTORFLOW_BIN) + " run " + args, code);
}

// y = x * x * w with w = [1, 2, 3]; z = sum(y).
void WriteToyGraph(const std::string& path) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, PartialTensorShape({3}));
  auto w = ops::Const(root.WithOpName("w"), {1.f, 2.f, 3.f});
  auto y = ops::Mul(root.WithOpName("y"), ops::Mul(root, x, x), w);
  ops::Sum(root.WithOpName("z"), y, 0);
  tensorflow::GraphDef def;
  BOOST_TEST_REQUIRE(root.ToGraphDef(&def).ok());
  std::ofstream(path, std::ios::binary) << def.SerializeAsString();
}

BOOST_AUTO_TEST_CASE(gradients_of_a_toy_graph) {
  TempDir dir;
  const std::string graph = dir.path() + "/toy.pb", feed = dir.path() + "/x.npy";
  WriteToyGraph(graph);
  BOOST_TEST_REQUIRE(WriteNpy(feed, Tensor::FromVector<float>({0.5f, -1.f, 2.f})).ok());

  // d(sum y)/dx = 2 x w, printed and written next to the fetch of z.
  int code = 0;
  std::string out = Run("--graph " + graph + " --feed x=" + feed +
                            " --fetch z --grad y --wrt x --out " + dir.path(),
                        &code);
  BOOST_TEST_REQUIRE(code == 0, out);
  BOOST_TEST(out.find("grad(x)") != std::string::npos, out);
  Tensor grad, z;
  BOOST_TEST_REQUIRE(ReadNpy(dir.path() + "/grad_x_0.npy", &grad).ok());
  BOOST_TEST_REQUIRE(ReadNpy(dir.path() + "/z_0.npy", &z).ok());
  BOOST_TEST(z.scalar<float>() == 0.25f + 2.f + 12.f);
  const float want[] = {1.f, -4.f, 12.f};
  BOOST_TEST_REQUIRE(grad.NumElements() == 3);
  for (int i = 0; i < 3; ++i) BOOST_TEST(grad.data<float>()[i] == want[i]);

  // Weighted by --grad_ys: d(sum(dy * y))/dx = 2 x w dy.
  const std::string dy = dir.path() + "/dy.npy";
  BOOST_TEST_REQUIRE(WriteNpy(dy, Tensor::FromVector<float>({1.f, 0.f, -2.f})).ok());
  out = Run("--graph " + graph + " --feed x:0=" + feed + " --grad y:0 --wrt x:0 --grad_ys " +
                dy + " --out " + dir.path(),
            &code);
  BOOST_TEST_REQUIRE(code == 0, out);
  BOOST_TEST_REQUIRE(ReadNpy(dir.path() + "/grad_x_0.npy", &grad).ok());
  BOOST_TEST(grad.data<float>()[0] == 1.f);
  BOOST_TEST(grad.data<float>()[1] == 0.f);
  BOOST_TEST(grad.data<float>()[2] == -24.f);

  // Two xs, one of which y does not depend on through a differentiable
  // path (w is a constant but still a tensor: d/dw = x * x).
  out = Run("--graph " + graph + " --feed x=" + feed + " --grad z --wrt x --wrt w --out " +
                dir.path(),
            &code);
  BOOST_TEST_REQUIRE(code == 0, out);
  BOOST_TEST_REQUIRE(ReadNpy(dir.path() + "/grad_w_0.npy", &grad).ok());
  BOOST_TEST(grad.data<float>()[1] == 1.f);
  BOOST_TEST(grad.data<float>()[2] == 4.f);
}

BOOST_AUTO_TEST_CASE(gradient_errors) {
  TempDir dir;
  const std::string graph = dir.path() + "/toy.pb", feed = dir.path() + "/x.npy";
  WriteToyGraph(graph);
  BOOST_TEST_REQUIRE(WriteNpy(feed, Tensor::FromVector<float>({0.5f, -1.f, 2.f})).ok());
  int code = 0;
  std::string out = Run("--graph " + graph + " --feed x=" + feed + " --grad nope --wrt x", &code);
  BOOST_TEST(code == 1, out);
  BOOST_TEST(out.find("NOT_FOUND") != std::string::npos, out);
  BOOST_TEST(out.find("nope") != std::string::npos, out);

  out = Run("--graph " + graph + " --grad y", &code);
  BOOST_TEST(code == 2, out);
  BOOST_TEST(out.find("--wrt") != std::string::npos, out);

  const std::string dy = dir.path() + "/dy.npy";
  BOOST_TEST_REQUIRE(WriteNpy(dy, Tensor::FromVector<float>({1.f, 2.f})).ok());
  out = Run("--graph " + graph + " --feed x=" + feed + " --grad y --wrt x --grad_ys " + dy,
            &code);
  BOOST_TEST(code == 1, out);  // weights shaped [2] for a [3] output
}

BOOST_AUTO_TEST_CASE(gradient_of_a_tensorflow_graph_matches_the_cpp_api) {
  const std::string graph = std::string(AF_TEST_DATA_DIR) + "/tf2onnx_fc_layers_frozen.pb";
  Tensor ramp(DT_FLOAT, TensorShape{1, 784});
  for (int i = 0; i < 784; ++i) ramp.data<float>()[i] = static_cast<float>(i % 17) / 17.0f;
  TempDir dir;
  const std::string feed = dir.path() + "/x.npy";
  BOOST_TEST_REQUIRE(WriteNpy(feed, ramp).ok());
  int code = 0;
  const std::string out = Run("--graph " + graph + " --feed X:0=" + feed +
                                  " --grad output:0 --wrt X:0 --out " + dir.path(),
                              &code);
  BOOST_TEST_REQUIRE(code == 0, out);
  Tensor cli;
  BOOST_TEST_REQUIRE(ReadNpy(dir.path() + "/grad_X_0.npy", &cli).ok());
  BOOST_TEST_REQUIRE(cli.shape() == TensorShape({1, 784}));

  // The same gradient in-process.
  tensorflow::GraphDef def;
  BOOST_TEST_REQUIRE(ReadGraphDefFile(graph, &def).ok());
  Graph g;
  BOOST_TEST_REQUIRE(ImportGraphDef(def, &g).ok());
  Scope root = Scope::NewRootScopeForGraph(&g);
  Output x(g.FindNode("X"), 0), y(g.FindNode("output"), 0);
  std::vector<Output> grads;
  BOOST_TEST_REQUIRE(AddSymbolicGradients(root, {y}, {x}, &grads).ok());
  tensorflow::GraphDef with_grads;
  BOOST_TEST_REQUIRE(root.ToGraphDef(&with_grads).ok());
  std::unique_ptr<Session> session;
  BOOST_TEST_REQUIRE(Session::Create({}, &session).ok());
  BOOST_TEST_REQUIRE(session->Extend(with_grads).ok());
  std::vector<Tensor> in_process;
  BOOST_TEST_REQUIRE(session->Run({{"X:0", ramp}}, {grads[0].name()}, {}, &in_process).ok());
  double max_diff = 0, max_abs = 0;
  for (int i = 0; i < 784; ++i) {
    max_diff = std::max<double>(max_diff, std::fabs(cli.data<float>()[i] -
                                                    in_process[0].data<float>()[i]));
    max_abs = std::max<double>(max_abs, std::fabs(cli.data<float>()[i]));
  }
  BOOST_TEST(max_diff == 0.0);
  BOOST_TEST(max_abs > 0.0);  // the network does depend on its input
}

}  // namespace
}  // namespace af
