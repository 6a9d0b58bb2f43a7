// The run-time side of fault injection (core/fault_injection/
// fault_injector.h): decisions at the configured rates, fixed by the seed
// and different per task, counted, and configured from a flag or from
// $ACTORFLOW_FAULTS.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/fault_injection/fault_injector.h"

namespace af::faults {
namespace {

constexpr std::string_view kTask = "/job:worker/replica:0/task:1";

FaultInjector Make(std::string_view text, std::string_view task = kTask) {
  FaultSpec spec;
  Status s = ParseFaultSpec(text, task, &spec);
  BOOST_REQUIRE_MESSAGE(s.ok(), s);
  return FaultInjector(spec, std::string(task));
}

// Sets or clears $ACTORFLOW_FAULTS for one test.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const char* value) {
    if (value == nullptr) {
      unsetenv(kFaultsEnvironmentVariable);
    } else {
      setenv(kFaultsEnvironmentVariable, value, 1);
    }
  }
  ~ScopedEnvironment() { unsetenv(kFaultsEnvironmentVariable); }
};

BOOST_AUTO_TEST_CASE(drops_and_duplicates_come_at_their_rates) {
  FaultInjector injector = Make("drop=0.1;dup=0.2;seed=5");
  const int n = 100000;
  int drops = 0, dups = 0;
  for (int i = 0; i < n; ++i) {
    const TransportFault f = injector.NextTransport(true);
    drops += f.drop;
    dups += f.duplicate;
    BOOST_TEST(f.delay.count() == 0);
    BOOST_TEST(!(f.drop && f.duplicate));  // a lost message has no copy
  }
  // Standard errors ~0.0009 and ~0.0012 (the dup rate is among the kept).
  BOOST_TEST(std::abs(drops / double(n) - 0.1) < 0.005);
  BOOST_TEST(std::abs(dups / double(n) - 0.9 * 0.2) < 0.006);
  const FaultCounts c = injector.counts();
  BOOST_TEST(c.tensors == uint64_t(n));
  BOOST_TEST(c.drops == uint64_t(drops));
  BOOST_TEST(c.duplicates == uint64_t(dups));
}

BOOST_AUTO_TEST_CASE(streamed_transfers_are_never_duplicated) {
  FaultInjector injector = Make("dup=1");
  for (int i = 0; i < 100; ++i) {
    BOOST_TEST(!injector.NextTransport(false).duplicate);
    BOOST_TEST(injector.NextTransport(true).duplicate);
  }
  BOOST_TEST(injector.counts().duplicates == 100u);
}

BOOST_AUTO_TEST_CASE(the_same_seed_and_task_give_the_same_decisions) {
  auto decisions = [](std::string_view text, std::string_view task) {
    FaultInjector injector = Make(text, task);
    std::vector<int64_t> out;
    for (int i = 0; i < 200; ++i) {
      const TransportFault f = injector.NextTransport(true);
      out.push_back(f.drop ? -1 : f.delay.count() + (f.duplicate ? 1 : 0));
      out.push_back(injector.NextCompute().delay.count());
    }
    return out;
  };
  const std::string spec = "compute=exp:10ms;transport=pareto:1ms:1.2;drop=0.1;dup=0.1;seed=7";
  BOOST_TEST(decisions(spec, kTask) == decisions(spec, kTask));
  // Another seed, or another task under the same spec, draws differently.
  BOOST_TEST(decisions(spec, kTask) !=
             decisions("compute=exp:10ms;transport=pareto:1ms:1.2;drop=0.1;dup=0.1;seed=8",
                       kTask));
  BOOST_TEST(decisions(spec, kTask) != decisions(spec, "/job:worker/replica:0/task:2"));
}

BOOST_AUTO_TEST_CASE(compute_delays_are_counted_and_capped) {
  FaultInjector injector = Make("compute=const:50ms");
  for (int i = 0; i < 4; ++i) BOOST_TEST(injector.NextCompute().delay.count() == 50000000);
  FaultCounts c = injector.counts();
  BOOST_TEST(c.steps == 4u);
  BOOST_TEST(c.compute_delays == 4u);
  BOOST_TEST(c.compute_delay_ms == 200.0);

  FaultInjector capped = Make("compute=pareto:10ms:0.5;cap=100ms;seed=1");
  int64_t longest = 0;
  for (int i = 0; i < 1000; ++i) longest = std::max(longest, capped.NextCompute().delay.count());
  BOOST_TEST(longest == 100000000);  // alpha 0.5 exceeds 100 ms in about 1 of 3 draws
}

BOOST_AUTO_TEST_CASE(counts_are_reported_at_1_10_100_and_every_1000) {
  FaultInjector injector = Make("transport=const:1us");
  std::vector<int> reported;
  for (int i = 1; i <= 3000; ++i) {
    if (injector.NextTransport(true).report) reported.push_back(i);
  }
  BOOST_TEST(reported == (std::vector<int>{1, 10, 100, 1000, 2000, 3000}));
  BOOST_TEST(injector.CountsLine().find("of 3000 tensors sent to other processes 3000 delayed") !=
             std::string::npos,
             injector.CountsLine());
}

BOOST_AUTO_TEST_CASE(the_first_drops_are_logged_by_name) {
  FaultInjector injector = Make("drop=1");
  for (uint64_t i = 1; i <= 12; ++i) {
    const TransportFault f = injector.NextTransport(true);
    BOOST_TEST(f.drop);
    BOOST_TEST(f.drop_number == i);
    BOOST_TEST(f.log_drop == (i <= FaultInjector::kDropsLoggedByName));
  }
}

BOOST_AUTO_TEST_CASE(the_start_line_says_what_is_injected_with_the_seed) {
  FaultInjector injector = Make("compute=exp:20ms;drop=0.01;seed=7");
  BOOST_TEST(injector.Describe() ==
             "fault injection on /job:worker/replica:0/task:1: compute=exp:20ms;"
             "compute_at=start;transport=none;drop=0.01;dup=0;seed=7;cap=3600s (seed 7)");
}

BOOST_AUTO_TEST_CASE(the_flag_wins_over_the_environment) {
  ScopedEnvironment env("compute=const:1ms");
  std::shared_ptr<FaultInjector> injector;
  BOOST_TEST_REQUIRE(FaultInjector::Create("drop=0.5", kTask, &injector).ok());
  BOOST_TEST_REQUIRE(injector != nullptr);
  BOOST_TEST(injector->spec().drop == 0.5);
  BOOST_TEST(injector->spec().compute.is_none());
  BOOST_TEST_REQUIRE(FaultInjector::Create("", kTask, &injector).ok());
  BOOST_TEST_REQUIRE(injector != nullptr);
  BOOST_TEST(injector->spec().compute.ToString() == "const:1ms");
}

BOOST_AUTO_TEST_CASE(nothing_configured_means_no_injector) {
  ScopedEnvironment env(nullptr);
  std::shared_ptr<FaultInjector> injector = std::make_shared<FaultInjector>(FaultSpec{}, "x");
  BOOST_TEST(FaultInjector::Create("", kTask, &injector).ok());
  BOOST_TEST(injector == nullptr);
  // A spec whose groups all select other tasks configures nothing here.
  BOOST_TEST(FaultInjector::Create("task=/job:ps;drop=1", kTask, &injector).ok());
  BOOST_TEST(injector == nullptr);
}

BOOST_AUTO_TEST_CASE(errors_name_where_the_spec_came_from) {
  std::shared_ptr<FaultInjector> injector;
  Status s = FaultInjector::Create("drop=2", kTask, &injector);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("--faults: fault spec: field 'drop'") == 0u, s);
  ScopedEnvironment env("compute=slow");
  s = FaultInjector::Create("", kTask, &injector);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("ACTORFLOW_FAULTS: fault spec: field 'compute'") == 0u, s);
}

}  // namespace
}  // namespace af::faults
