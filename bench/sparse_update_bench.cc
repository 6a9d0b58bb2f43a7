// bench_sparse_update: one training step of an embedding table whose loss
// reads a small fraction of its rows, with the gradient kept sparse
// (IndexedSlices into the optimizer's sparse update) beside the same
// gradient made dense first (the only path before sparse gradients), in
// one run on one machine. Prints the step times, their ratio, and the
// bytes of the gradient each path hands to the update (what a parameter
// server would receive). Then the update alone: the optimizer's apply fed
// k distinct rows (sparse) against the same rows as a V-row tensor (dense),
// which is what a ps task spends per gradient.
//
//   bench_sparse_update [--rows 1000000] [--dim 32] [--fraction 0.01]
//                       [--optimizers sgd,adagrad,lazy_adam,adam] [--seconds 2]
//                       [--sparse_only true]
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "client/client_session.h"
#include "client/gradients.h"
#include "client/optimizers/optimizer_by_name.h"
#include "client/standard_ops.h"
#include "client/variables.h"

namespace af {
namespace {

struct Options {
  int64_t rows = 1000000, dim = 32;
  double fraction = 0.01, seconds = 2;
  std::vector<std::string> optimizers = {"sgd", "adagrad", "lazy_adam", "adam"};
  bool dense = true;  // --sparse_only true: skip the dense path (for profiling)
};

Options ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--rows") o.rows = std::atoll(value.c_str());
    else if (flag == "--dim") o.dim = std::atoll(value.c_str());
    else if (flag == "--fraction") o.fraction = std::atof(value.c_str());
    else if (flag == "--seconds") o.seconds = std::atof(value.c_str());
    else if (flag == "--sparse_only") o.dense = value != "true";
    else if (flag == "--optimizers") {
      o.optimizers.clear();
      std::stringstream in(value);
      for (std::string item; std::getline(in, item, ',');) o.optimizers.push_back(item);
    } else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      std::exit(2);
    }
  }
  return o;
}

std::unique_ptr<Optimizer> MakeOptimizer(const std::string& name) {
  const double lr = name == "sgd" || name == "adagrad" ? 0.1 : 0.001;
  std::unique_ptr<Optimizer> opt = OptimizerByName(name, lr);
  if (!opt) {
    std::fprintf(stderr, "unknown optimizer %s\n", name.c_str());
    std::exit(2);
  }
  return opt;
}

struct StepFigures {
  double seconds = 0;
  int64_t gradient_bytes = 0;
};

// Builds table, lookup, loss and the update; `sparse` false converts the
// gradient to a tensor before the optimizer sees it.
StepFigures TimeStep(const Options& o, const std::string& optimizer, bool sparse,
                     const Tensor& ids) {
  Scope root = Scope::NewRootScope();
  Variable table(root.WithOpName("table"), PartialTensorShape({o.rows, o.dim}), DT_FLOAT,
                 ops::Fill(root, ops::Const(root, Input::Initializer({o.rows, o.dim})),
                           ops::Const(root, 0.5f)));
  auto id_feed = ops::Placeholder(root.WithOpName("ids"), DT_INT32);
  auto rows = ops::Gather(root, table, id_feed);
  auto loss = ops::Sum(root, ops::Square(root, rows), ops::Const(root, Input::Initializer({0, 1})));
  std::unique_ptr<Optimizer> opt = MakeOptimizer(optimizer);
  std::vector<GradAndVar> gv;
  bench::CheckOk(opt->ComputeGradients(root, loss, {}, &gv), "gradients");
  if (!sparse) gv[0].first = ToDense(root, gv[0].first);
  std::vector<Output> gradient_parts;
  if (gv[0].first.is_sparse()) {
    gradient_parts = {gv[0].first.slices().values, gv[0].first.slices().indices};
  } else {
    gradient_parts = {gv[0].first.dense()};
  }
  Operation train;
  bench::CheckOk(opt->ApplyGradients(root, gv, GetOrCreateGlobalStep(root), &train), "update");
  ClientSession session(root);
  std::vector<Tensor> out;
  bench::CheckOk(session.Run({}, {}, {GlobalVariablesInitializer(root)}, &out), "init");
  StepFigures f;
  bench::CheckOk(session.Run({{id_feed, ids}}, gradient_parts, &out), "gradient");
  for (const Tensor& t : out) f.gradient_bytes += t.TotalBytes();
  f.seconds = bench::TimePerCall(
      [&] { bench::CheckOk(session.Run({{id_feed, ids}}, {}, {train}, &out), "step"); },
      o.seconds);
  bench::CheckOk(session.Reset({}), "reset");
  return f;
}

// The optimizer's update alone, fed the gradient: k distinct rows as
// IndexedSlices, or the same rows inside a [rows, dim] tensor.
double TimeUpdate(const Options& o, const std::string& optimizer, bool sparse,
                  const Tensor& unique_ids) {
  Scope root = Scope::NewRootScope();
  Variable table(root.WithOpName("update_table"), PartialTensorShape({o.rows, o.dim}), DT_FLOAT,
                 ops::Fill(root, ops::Const(root, Input::Initializer({o.rows, o.dim})),
                           ops::Const(root, 0.5f)));
  std::unique_ptr<Optimizer> opt = MakeOptimizer(optimizer);
  const int64_t k = unique_ids.NumElements();
  auto values = ops::Placeholder(root.WithOpName("values"), DT_FLOAT);
  auto indices = ops::Placeholder(root.WithOpName("indices"), DT_INT32);
  auto dense = ops::Placeholder(root.WithOpName("dense"), DT_FLOAT);
  std::vector<GradAndVar> gv;
  if (sparse) {
    gv.emplace_back(IndexedSlices{values, indices,
                                  ops::Const(root, Input::Initializer({o.rows, o.dim}))},
                    table.var);
  } else {
    gv.emplace_back(Output(dense), table.var);
  }
  Operation update;
  bench::CheckOk(opt->ApplyGradients(root, gv, Output(), &update), "update");
  ClientSession session(root);
  std::vector<Tensor> out;
  bench::CheckOk(session.Run({}, {}, {GlobalVariablesInitializer(root)}, &out), "init");
  Tensor rows(DT_FLOAT, TensorShape({k, o.dim}));
  for (int64_t i = 0; i < rows.NumElements(); ++i) rows.data<float>()[i] = 0.01f;
  ClientSession::FeedType feeds;
  if (sparse) {
    feeds = {{values, rows}, {indices, unique_ids}};
  } else {
    Tensor whole(DT_FLOAT, TensorShape({o.rows, o.dim}));
    std::fill(whole.data<float>(), whole.data<float>() + whole.NumElements(), 0.0f);
    for (int64_t i = 0; i < k; ++i)
      std::fill(whole.data<float>() + unique_ids.data<int32_t>()[i] * o.dim,
                whole.data<float>() + (unique_ids.data<int32_t>()[i] + 1) * o.dim, 0.01f);
    feeds = {{dense, whole}};
  }
  const double seconds = bench::TimePerCall(
      [&] { bench::CheckOk(session.Run(feeds, {}, {update}, &out), "update step"); }, o.seconds);
  bench::CheckOk(session.Reset({}), "reset");
  return seconds;
}

}  // namespace
}  // namespace af

int main(int argc, char** argv) {
  using namespace af;
  const Options o = ParseOptions(argc, argv);
  const int64_t k = std::max<int64_t>(1, static_cast<int64_t>(o.rows * o.fraction));
  Tensor ids(DT_INT32, TensorShape({k}));
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> pick(0, static_cast<int32_t>(o.rows - 1));
  for (int64_t i = 0; i < k; ++i) ids.data<int32_t>()[i] = pick(rng);
  const std::string extra = "\"rows\":" + std::to_string(o.rows) + ",\"dim\":" +
                            std::to_string(o.dim) + ",\"ids\":" + std::to_string(k);
  // k distinct rows for the update-only figures.
  std::vector<int32_t> distinct(static_cast<size_t>(o.rows));
  for (int64_t i = 0; i < o.rows; ++i) distinct[i] = static_cast<int32_t>(i);
  std::shuffle(distinct.begin(), distinct.end(), rng);
  Tensor unique_ids(DT_INT32, TensorShape({k}));
  std::copy(distinct.begin(), distinct.begin() + k, unique_ids.data<int32_t>());
  for (const std::string& name : o.optimizers) {
    const double sparse_update = TimeUpdate(o, name, true, unique_ids);
    const double dense_update = o.dense ? TimeUpdate(o, name, false, unique_ids) : 0;
    bench::PrintResult("sparse_update", name + "/update_sparse", extra, "update_ms",
                       sparse_update * 1e3, "ms");
    if (o.dense) {
      bench::PrintResult("sparse_update", name + "/update_dense", extra, "update_ms",
                         dense_update * 1e3, "ms");
      bench::PrintResult("sparse_update", name, extra, "dense_over_sparse_update",
                         dense_update / sparse_update, "x");
    }
    const StepFigures sparse = TimeStep(o, name, true, ids);
    if (!o.dense) {
      bench::PrintResult("sparse_update", name + "/sparse", extra, "step_ms",
                         sparse.seconds * 1e3, "ms");
      continue;
    }
    const StepFigures dense = TimeStep(o, name, false, ids);
    bench::PrintResult("sparse_update", name + "/dense", extra, "step_ms", dense.seconds * 1e3,
                       "ms");
    bench::PrintResult("sparse_update", name + "/sparse", extra, "step_ms", sparse.seconds * 1e3,
                       "ms");
    bench::PrintResult("sparse_update", name, extra, "dense_over_sparse_time",
                       dense.seconds / sparse.seconds, "x");
    bench::PrintResult("sparse_update", name + "/dense", extra, "gradient_bytes",
                       static_cast<double>(dense.gradient_bytes), "bytes");
    bench::PrintResult("sparse_update", name + "/sparse", extra, "gradient_bytes",
                       static_cast<double>(sparse.gradient_bytes), "bytes");
  }
  return 0;
}
