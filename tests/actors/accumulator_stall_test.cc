// The stall inspector covers gradient accumulators: a take that waits
// longer than stall_warning_ms is reported once, naming the accumulator,
// how many gradients it needs and holds, the global step and how many
// stale gradients were dropped.
#include <boost/test/unit_test.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tests/actors/accumulator_test_util.h"
#include "tests/actors/stall_log_test_util.h"

namespace af::testing {
namespace {

BOOST_AUTO_TEST_CASE(a_take_waiting_for_gradients_is_reported_once) {
  StallLog stall_log;
  SessionOptions options = stall_log.Options(200);
  DenseAccumulator acc(PartialTensorShape({2}), "stalled_acc");
  ClientSession session(acc.root, options);
  BOOST_REQUIRE(acc.SetGlobalStep(session, 7).ok());
  BOOST_REQUIRE(acc.Apply(session, 7, {1.f, 2.f}).ok());
  BOOST_REQUIRE(acc.Apply(session, 6, {1.f, 2.f}).ok());  // stale
  Tensor out;
  Status s = acc.Take(session, 3, &out, 1200);  // several inspections while it waits
  BOOST_TEST(s.code() == Code::DEADLINE_EXCEEDED, s);
  const std::vector<std::string> lines = stall_log.Lines();
  BOOST_TEST_REQUIRE(lines.size() == 1u);  // once, not at every inspection
  const std::string& line = lines.front();
  const std::string head =
      "actorflow stall inspector: ConditionalAccumulator 'stalled_acc': a take of 3 gradients "
      "has waited ";
  BOOST_TEST(line.substr(0, head.size()) == head, line);
  BOOST_TEST(line.find("s; it holds 1 (global step 7): does anything apply gradients with "
                       "local_step >= 7? 1 stale gradients dropped so far") != std::string::npos,
             line);
  BOOST_REQUIRE(session.Reset({}).ok());
}

}  // namespace
}  // namespace af::testing
