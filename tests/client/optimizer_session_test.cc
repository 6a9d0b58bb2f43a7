// The graph optimizer as a session uses it: on by default with the same
// results as off, its passes listed in a traced step, fed and fetched nodes
// never folded away, and OptimizerOptions' text form.
#include <boost/test/unit_test.hpp>

#include "client/client_session.h"
#include "client/standard_ops.h"
#include "graph/optimizer_trace.h"

namespace af {
namespace {

BOOST_AUTO_TEST_SUITE(optimizer_session)

// y = (x*c1 + c2*c3) twice over, summed: a constant subexpression and a
// duplicated subgraph.
struct DuplicatedGraph {
  DuplicatedGraph() : root(Scope::NewRootScope()) {
    x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
    auto c1 = ops::Const(root.WithOpName("c1"), 2.0f);
    auto c2 = ops::Const(root.WithOpName("c2"), 3.0f);
    auto c3 = ops::Const(root.WithOpName("c3"), 4.0f);
    auto left = ops::Add(root.WithOpName("left"), ops::Mul(root.WithOpName("lm"), x, c1),
                         ops::Mul(root.WithOpName("lc"), c2, c3));
    auto right = ops::Add(root.WithOpName("right"), ops::Mul(root.WithOpName("rm"), x, c1),
                          ops::Mul(root.WithOpName("rc"), c2, c3));
    y = ops::Add(root.WithOpName("y"), left, right);
    folded = ops::Mul(root.WithOpName("folded"), c2, c3);
  }
  Scope root;
  Output x, y, folded;
};

RunOptions Traced() {
  RunOptions options;
  options.trace_level = RunOptions::SOFTWARE_TRACE;
  return options;
}

const tensorflow::DeviceStepStats* OptimizerDevice(const RunMetadata& metadata) {
  for (const auto& device : metadata.step_stats.dev_stats())
    if (device.device() == kOptimizerTraceDevice) return &device;
  return nullptr;
}

float RunY(const DuplicatedGraph& g, const SessionOptions& options, float x,
           RunMetadata* metadata) {
  ClientSession session(g.root, options);
  std::vector<Tensor> out;
  Status s = session.Run(Traced(), {{g.x, x}}, {g.y}, {}, &out, metadata);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return out[0].scalar<float>();
}

BOOST_AUTO_TEST_CASE(results_match_with_the_optimizer_off_and_a_trace_lists_the_passes) {
  DuplicatedGraph g;
  SessionOptions on, off;
  on.optimizer = OptimizerOptions{};
  off.optimizer.opt_level = OptimizerOptions::L0;
  RunMetadata traced_on, traced_off;
  const float with = RunY(g, on, 1.5f, &traced_on);
  const float without = RunY(g, off, 1.5f, &traced_off);
  // 2 * (1.5 * 2 + 3 * 4)
  BOOST_TEST(with == 30.0f);
  BOOST_TEST(without == 30.0f);
  BOOST_TEST(OptimizerDevice(traced_off) == nullptr);
  const tensorflow::DeviceStepStats* passes = OptimizerDevice(traced_on);
  BOOST_TEST_REQUIRE(passes != nullptr);
  std::set<std::string> names;
  for (const auto& pass : passes->node_stats()) names.insert(pass.node_name());
  for (const char* expected : {"common_subexpression", "constant_folding", "dead_nodes"})
    BOOST_TEST(names.count(expected) == 1u, expected);
  // The duplicated right half is gone: fewer nodes ran on the CPU.
  auto nodes_run = [](const RunMetadata& m) {
    int n = 0;
    for (const auto& device : m.step_stats.dev_stats())
      if (device.device() != kOptimizerTraceDevice) n += device.node_stats_size();
    return n;
  };
  BOOST_TEST(nodes_run(traced_on) < nodes_run(traced_off));
}

BOOST_AUTO_TEST_CASE(fed_and_fetched_nodes_keep_their_values) {
  DuplicatedGraph g;
  ClientSession session(g.root);
  std::vector<Tensor> out;
  // `folded` is constant but fetched by name; c2 is a Const that is fed,
  // which must win over its value in every consumer.
  Status s = session.Run({{g.x, 1.0f}}, {g.folded, g.y}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(out[0].scalar<float>() == 12.0f);
  BOOST_TEST(out[1].scalar<float>() == 2 * (2.0f + 12.0f));
  Output c2(g.root.graph()->FindNode("c2"), 0);
  s = session.Run({{g.x, 1.0f}, {c2, 10.0f}}, {g.folded, g.y}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(out[0].scalar<float>() == 40.0f);
  BOOST_TEST(out[1].scalar<float>() == 2 * (2.0f + 40.0f));
}

BOOST_AUTO_TEST_CASE(options_read_and_write_their_text_form) {
  OptimizerOptions options;
  BOOST_TEST(OptimizerOptions::Parse("off", &options).ok());
  BOOST_TEST(!options.enabled());
  BOOST_TEST(options.ToString() == "off");
  BOOST_TEST(OptimizerOptions::Parse("off:fold,cse", &options).ok());
  BOOST_TEST(options.enabled());
  BOOST_TEST(!options.do_constant_folding);
  BOOST_TEST(!options.do_common_subexpression_elimination);
  BOOST_TEST(options.do_arithmetic_simplification);
  BOOST_TEST(options.ToString() == "off:fold,cse");
  OptimizerOptions back;
  BOOST_TEST(OptimizerOptions::Parse(options.ToString(), &back).ok());
  BOOST_TEST(back.ToString() == options.ToString());
  BOOST_TEST(OptimizerOptions::Parse("on", &options).ok());
  BOOST_TEST(options.ToString() == "on");
  Status bad = OptimizerOptions::Parse("off:inline", &options);
  BOOST_TEST(bad.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(bad.message().find("inline") != std::string::npos, bad.ToString());
  BOOST_TEST(OptimizerOptions::Parse("fast", &options).code() == Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
