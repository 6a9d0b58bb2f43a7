// Large tensors cross processes intact in both directions, sizes that are
// not a multiple of the chunk size included, and a tensor over 4 GiB
// (BASP's 32-bit frame limit) crosses (label "slow": `make test-slow`).
// They take the data plane (actors/worker/data_plane.h) where both workers
// have one; with ACTORFLOW_DATA_PLANE=off they cross in chunks with a
// credit window through CAF, written straight into the destination tensor.
#include <signal.h>
#include <stdlib.h>

#include <boost/test/unit_test.hpp>

#include "core/net/transfer_counters.h"
#include "tests/actors/session_test_util.h"
#include "tests/distributed/server_process.h"

namespace af {
namespace {

using testing::GraphBuilder;
using testing::LocalCpu;
using testing::ServerProcess;

const std::string kRemoteCpu = "/job:worker/replica:0/task:1/device:CPU:0";

std::unique_ptr<Session> Connect(const ServerProcess& server) {
  SessionOptions options;
  options.remote_workers = {server.address()};
  options.default_timeout_ms = 120000;
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  return session;
}

BOOST_AUTO_TEST_SUITE(chunked_transfer)

BOOST_AUTO_TEST_CASE(large_tensors_arrive_intact_both_ways) {
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({"--task", "1"}).ok());
  auto session = Connect(server);
  GraphBuilder b;
  b.Placeholder("x", DT_DOUBLE, LocalCpu(0));
  b.Op("Neg", "there", {"x"}, DT_DOUBLE, kRemoteCpu);   // local -> remote, chunked
  b.Op("Neg", "back", {"there"}, DT_DOUBLE, LocalCpu(0));  // remote -> local, chunked
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  // 0 chunks' worth, just over one chunk, and many chunks with a ragged end.
  for (int64_t elements : {int64_t{100}, int64_t{(1 << 17) + 1}, int64_t{(9 << 20) / 8 + 3}}) {
    Tensor x(DT_DOUBLE, TensorShape{elements});
    for (int64_t i = 0; i < elements; ++i) x.data<double>()[i] = static_cast<double>(i) * 0.5 - 7;
    for (int step = 0; step < 3; ++step) {
      std::vector<Tensor> out;
      Status s = session->Run({{"x", x}}, {"back"}, {}, &out);
      BOOST_TEST_REQUIRE(s.ok(), s);
      BOOST_TEST_REQUIRE(out[0].NumElements() == elements);
      int64_t wrong = 0;
      for (int64_t i = 0; i < elements; ++i) wrong += out[0].data<double>()[i] != x.data<double>()[i];
      BOOST_TEST(wrong == 0, "elements " << elements << " step " << step);
    }
  }
}

// ACTORFLOW_DATA_PLANE=off, for this process's worker and the server's
// (which inherits the environment): every byte goes through CAF in chunks.
BOOST_AUTO_TEST_CASE(the_chunk_path_carries_them_when_the_data_plane_is_off) {
  struct DataPlaneOff {
    DataPlaneOff() { setenv("ACTORFLOW_DATA_PLANE", "off", 1); }
    ~DataPlaneOff() { unsetenv("ACTORFLOW_DATA_PLANE"); }
  } off;
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({"--task", "1"}).ok());
  BOOST_TEST(server.output().find("no data plane") != std::string::npos, server.output());
  auto session = Connect(server);
  GraphBuilder b;
  b.Placeholder("x", DT_DOUBLE, LocalCpu(0));
  b.Op("Neg", "there", {"x"}, DT_DOUBLE, kRemoteCpu);
  b.Op("Neg", "back", {"there"}, DT_DOUBLE, LocalCpu(0));
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  const net::TransferCounters& moved = net::TransferCounters::Global();
  const uint64_t sent = moved.bytes_sent.load(), received = moved.bytes_received.load();
  const int64_t elements = (9 << 20) / 8 + 3;
  Tensor x(DT_DOUBLE, TensorShape{elements});
  for (int64_t i = 0; i < elements; ++i) x.data<double>()[i] = static_cast<double>(i) * 0.25 + 1;
  std::vector<Tensor> out;
  Status s = session->Run({{"x", x}}, {"back"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST_REQUIRE(out[0].NumElements() == elements);
  int64_t wrong = 0;
  for (int64_t i = 0; i < elements; ++i) wrong += out[0].data<double>()[i] != x.data<double>()[i];
  BOOST_TEST(wrong == 0);
  BOOST_TEST(moved.bytes_sent.load() == sent);
  BOOST_TEST(moved.bytes_received.load() == received);
}

BOOST_AUTO_TEST_CASE(a_tensor_over_4_gib_crosses,
                     *boost::unit_test::label("slow") * boost::unit_test::disabled()) {
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({"--task", "1"}).ok());
  auto session = Connect(server);
  // 4 GiB + 4 MiB of int32 made on the server, reduced here.
  const int64_t elements = ((int64_t{4} << 30) + (int64_t{4} << 20)) / 4;
  GraphBuilder b;
  b.Const("dims", Tensor::FromVector<int64_t>({elements}, TensorShape{1}), kRemoteCpu);
  b.Const("value", Tensor::Scalar<int32_t>(3), kRemoteCpu);
  tensorflow::NodeDef* fill = b.Op("Fill", "big", {"dims", "value"}, DT_INT32, kRemoteCpu);
  (*fill->mutable_attr())["index_type"].set_type(tensorflow::DT_INT64);
  b.Op("Identity", "here", {"big"}, DT_INT32, LocalCpu(0));  // 4 GiB crosses
  b.Const("axis", Tensor::Scalar<int32_t>(0), LocalCpu(0));
  // A byte the transfer missed would read 0 (fresh pages): min and max
  // both 3 means every byte came.
  b.Op("Min", "min", {"here", "axis"}, DT_INT32, LocalCpu(0));
  b.Op("Max", "max", {"here", "axis"}, DT_INT32, LocalCpu(0));
  tensorflow::NodeDef* size = b.Add("size", "Size", {"here"}, LocalCpu(0));
  (*size->mutable_attr())["T"].set_type(tensorflow::DT_INT32);
  (*size->mutable_attr())["out_type"].set_type(tensorflow::DT_INT64);
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  const uint64_t received = net::TransferCounters::Global().bytes_received.load();
  std::vector<Tensor> out;
  Status s = session->Run({}, {"min", "max", "size"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<int32_t>() == 3);
  BOOST_TEST(out[1].scalar<int32_t>() == 3);
  BOOST_TEST(out[2].scalar<int64_t>() == elements);
  // One frame on the data plane (unless ACTORFLOW_DATA_PLANE=off).
  if (getenv("ACTORFLOW_DATA_PLANE") == nullptr) {
    BOOST_TEST(net::TransferCounters::Global().bytes_received.load() - received ==
               static_cast<uint64_t>(elements) * 4);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
