// Servers that refuse harm: file-touching ops stay inside --allowed_dirs
// (`..` and symlinks out of the tree refused), graphs over --max_graph_bytes
// or --max_graph_nodes are refused, and one client holds at most
// --max_sessions_per_client sessions. Each refusal names the node or the
// session and the limit; the server goes on serving.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "client/client_session.h"
#include "client/saver.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "tests/actors/session_test_util.h"
#include "tests/distributed/server_process.h"
#include "tests/temp_dir_test_util.h"

namespace af {
namespace {

using testing::GraphBuilder;
using testing::ServerProcess;

constexpr const char* kServerCpu = "/job:worker/replica:0/task:0/device:CPU:0";

SessionOptions DirectSession(const ServerProcess& server) {
  SessionOptions options;
  options.remote_workers = {server.address()};
  options.default_timeout_ms = 30000;
  return options;
}

SessionOptions ServerSession(const ServerProcess& server) {
  SessionOptions options;
  options.target = "af://" + server.address();
  options.default_timeout_ms = 30000;
  return options;
}

// ReadFile of `path` on the server, as node `name`: its contents or the error.
Status ReadOnServer(Session* session, const std::string& name, const std::string& path,
                    std::string* contents) {
  GraphBuilder b;
  b.Const(name + "_path", Tensor::Scalar<std::string>(path), kServerCpu);
  b.Add(name, "ReadFile", {name + "_path"}, kServerCpu);
  AF_RETURN_IF_ERROR(session->Extend(b.graph()));
  std::vector<Tensor> out;
  AF_RETURN_IF_ERROR(session->Run({}, {name}, {}, &out));
  *contents = out[0].scalar<std::string>();
  return Status::OK();
}

void ExpectRefused(const Status& s, const std::string& node) {
  BOOST_TEST_MESSAGE(s);
  BOOST_TEST(s.code() == Code::PERMISSION_DENIED, s);
  BOOST_TEST(s.message().find("'" + node + "'") != std::string::npos, s);
  BOOST_TEST(s.message().find("--allowed_dirs") != std::string::npos, s);
}

BOOST_AUTO_TEST_SUITE(server_limits)

BOOST_AUTO_TEST_CASE(file_ops_stay_inside_the_allowed_directories) {
  testing::TempDir allowed("af_allowed"), outside("af_outside");
  std::ofstream(allowed.path() + "/data.txt") << "inside";
  std::ofstream(outside.path() + "/secret.txt") << "outside";
  std::filesystem::create_directory_symlink(outside.path(), allowed.path() + "/link");
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({"--allowed_dirs", allowed.path()}).ok());
  BOOST_TEST(server.output().find("graphs may use files under " +
                                  std::filesystem::canonical(allowed.path()).string()) !=
                 std::string::npos,
             server.output());
  std::unique_ptr<Session> session;
  BOOST_TEST_REQUIRE(Session::Create(DirectSession(server), &session).ok());
  std::string contents;
  Status s = ReadOnServer(session.get(), "inside", allowed.path() + "/data.txt", &contents);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(contents == "inside");
  ExpectRefused(ReadOnServer(session.get(), "passwd", "/etc/passwd", &contents), "passwd");
  const std::string dotdot = allowed.path() + "/../" +
                             std::filesystem::path(outside.path()).filename().string() +
                             "/secret.txt";
  ExpectRefused(ReadOnServer(session.get(), "dotdot", dotdot, &contents), "dotdot");
  ExpectRefused(ReadOnServer(session.get(), "symlink", allowed.path() + "/link/secret.txt",
                             &contents),
                "symlink");

  // A checkpoint written on the server: inside yes, outside no (and no
  // directory is made for it there).
  Scope root = Scope::NewRootScope();
  Variable v(root.WithDevice(kServerCpu).WithOpName("v"), Input::Initializer({1.0f, 2.0f}));
  SaverOptions sharded;
  sharded.sharded = true;
  Saver saver(root, sharded);
  BOOST_TEST_REQUIRE(saver.status().ok(), saver.status());
  ClientSession client(root, DirectSession(server));
  BOOST_TEST_REQUIRE(client.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr).ok());
  s = saver.Save(client, allowed.path() + "/model", 1, nullptr);
  BOOST_TEST(s.ok(), s);
  s = saver.Save(client, outside.path() + "/made/model", 1, nullptr);
  BOOST_TEST(s.code() == Code::PERMISSION_DENIED, s);
  BOOST_TEST(!std::filesystem::exists(outside.path() + "/made"));
  BOOST_TEST(session->Close().ok());
}

BOOST_AUTO_TEST_CASE(graphs_over_the_servers_limits_are_refused) {
  ServerProcess few_nodes;
  BOOST_TEST_REQUIRE(few_nodes.Start({"--max_graph_nodes", "3"}).ok());
  std::unique_ptr<Session> session;
  BOOST_TEST_REQUIRE(Session::Create(ServerSession(few_nodes), &session).ok());
  GraphBuilder b;
  for (int i = 0; i < 4; ++i) b.Const("c" + std::to_string(i), Tensor::Scalar<float>(i), "");
  Status s = session->Extend(b.graph());
  BOOST_TEST(s.code() == Code::RESOURCE_EXHAUSTED, s);
  BOOST_TEST(s.message().find("4 nodes") != std::string::npos, s);
  BOOST_TEST(s.message().find("--max_graph_nodes") != std::string::npos, s);

  ServerProcess few_bytes;
  BOOST_TEST_REQUIRE(few_bytes.Start({"--max_graph_bytes", "64"}).ok());
  std::unique_ptr<Session> direct;
  BOOST_TEST_REQUIRE(Session::Create(DirectSession(few_bytes), &direct).ok());
  GraphBuilder big;
  big.Const("w", testing::Matrix(8, 8, std::vector<float>(64, 1.0f)), kServerCpu);
  big.Op("Neg", "n", {"w"}, DT_FLOAT, kServerCpu);
  BOOST_TEST_REQUIRE(direct->Extend(big.graph()).ok());
  std::vector<Tensor> out;
  s = direct->Run({}, {"n"}, {}, &out);
  BOOST_TEST(s.code() == Code::RESOURCE_EXHAUSTED, s);
  BOOST_TEST(s.message().find("--max_graph_bytes") != std::string::npos, s);
}

BOOST_AUTO_TEST_CASE(one_client_holds_at_most_its_sessions) {
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({"--max_sessions_per_client", "2"}).ok());
  std::unique_ptr<Session> first, second, third;
  BOOST_TEST_REQUIRE(Session::Create(ServerSession(server), &first).ok());
  BOOST_TEST_REQUIRE(Session::Create(ServerSession(server), &second).ok());
  Status s = Session::Create(ServerSession(server), &third);
  BOOST_TEST(s.code() == Code::RESOURCE_EXHAUSTED, s);
  BOOST_TEST(s.message().find("--max_sessions_per_client") != std::string::npos, s);
  // A closed session makes room.
  BOOST_TEST(first->Close().ok());
  first.reset();
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  do {
    s = Session::Create(ServerSession(server), &third);
    if (s.ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  } while (std::chrono::steady_clock::now() < until);
  BOOST_TEST(s.ok(), s);
}

BOOST_AUTO_TEST_CASE(a_sessions_memory_budget_refuses_an_allocation_before_making_it) {
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({"--session_memory_limit", "1M"}).ok());
  std::unique_ptr<Session> session;
  BOOST_TEST_REQUIRE(Session::Create(DirectSession(server), &session).ok());
  GraphBuilder b;
  b.Placeholder("dims", DT_INT32, testing::LocalCpu(0));
  b.Const("one", Tensor::Scalar<float>(1), kServerCpu);
  b.Op("Fill", "filled", {"dims", "one"}, DT_FLOAT, kServerCpu);
  b.Op("Sum", "total", {"filled", "axis"}, DT_FLOAT, kServerCpu);
  b.Const("axis", Tensor::Scalar<int32_t>(0), kServerCpu);
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  auto fill = [&](int32_t n, std::vector<Tensor>* out) {
    Tensor dims(DT_INT32, TensorShape{1});
    dims.data<int32_t>()[0] = n;
    return session->Run({{"dims", dims}}, {"total"}, {}, out);
  };
  std::vector<Tensor> out;
  // 256 KiB at a time, many times: what a step frees goes back to the budget.
  for (int i = 0; i < 20; ++i) {
    Status s = fill(64 * 1024, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST(out[0].scalar<float>() == 65536.0f);
  }
  // 8 MiB does not fit in 1 MiB.
  Status s = fill(2 * 1024 * 1024, &out);
  BOOST_TEST_MESSAGE(s);
  BOOST_TEST(s.code() == Code::RESOURCE_EXHAUSTED, s);
  BOOST_TEST(s.message().find("'filled'") != std::string::npos, s);
  BOOST_TEST(s.message().find("session ") != std::string::npos, s);
  BOOST_TEST(s.message().find("--session_memory_limit") != std::string::npos, s);
  s = fill(1024, &out);
  BOOST_TEST(s.ok(), s);
  BOOST_TEST(session->Close().ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
