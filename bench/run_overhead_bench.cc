// bench/run_overhead: the cost of a cached Session::Run. Feeds N scalars,
// each through an Identity, and fetches them back (TensorFlow's
// BM_FeedFetch); prints microseconds per Run after the first.
#include "bench/bench_util.h"
#include "client/session.h"
#include "core/types.h"

namespace af::bench {
namespace {

void Run(int num_feeds) {
  tensorflow::GraphDef g;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
  for (int i = 0; i < num_feeds; ++i) {
    const std::string x = "x" + std::to_string(i), y = "y" + std::to_string(i);
    SetTypeAttr(AddNode(&g, x, "Placeholder", {}), "dtype", DT_FLOAT);
    SetTypeAttr(AddNode(&g, y, "Identity", {x}), "T", DT_FLOAT);
    feeds.emplace_back(x + ":0", Tensor::Scalar<float>(static_cast<float>(i)));
    fetches.push_back(y + ":0");
  }
  std::unique_ptr<Session> session;
  CheckOk(Session::Create(SessionOptions{}, &session), "create session");
  CheckOk(session->Extend(g), "extend");
  std::vector<Tensor> out;
  CheckOk(session->Run(feeds, fetches, {}, &out), "first run");
  const double seconds =
      TimePerCall([&] { CheckOk(session->Run(feeds, fetches, {}, &out), "run"); }, 1.0);
  PrintResult("run_overhead", std::to_string(num_feeds) + "_feeds",
              "\"feeds\":" + std::to_string(num_feeds), "us_per_run", seconds * 1e6, "us");
}

}  // namespace
}  // namespace af::bench

int main() {
  for (int n : {1, 2, 5, 10}) af::bench::Run(n);
  return 0;
}
