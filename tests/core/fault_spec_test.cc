// Fault specs (core/fault_injection/fault_spec.h): every field, the task
// selectors and their order, and malformed specs as INVALID_ARGUMENT
// naming the field.
#include <boost/test/unit_test.hpp>

#include <string>

#include "core/fault_injection/fault_spec.h"
#include "tests/test_util.h"

namespace af::faults {
namespace {

constexpr std::string_view kWorker2 = "/job:worker/replica:0/task:2";
constexpr std::string_view kPs0 = "/job:ps/replica:0/task:0";

FaultSpec MustParse(std::string_view text, std::string_view task = kWorker2) {
  FaultSpec spec;
  Status s = ParseFaultSpec(text, task, &spec);
  BOOST_REQUIRE_MESSAGE(s.ok(), text << ": " << s);
  return spec;
}

// The error's message, after checking it is INVALID_ARGUMENT.
std::string ErrorOf(std::string_view text) {
  FaultSpec spec;
  Status s = ParseFaultSpec(text, kWorker2, &spec);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, text << ": " << s);
  return s.message();
}

using testing::Contains;

BOOST_AUTO_TEST_CASE(the_example_spec_sets_every_field_it_names) {
  const FaultSpec spec =
      MustParse("compute=exp:20ms;transport=const:1ms;drop=0.01;dup=0.001;seed=7");
  BOOST_TEST((spec.compute.kind() == DelayDistribution::Kind::kExponential));
  BOOST_TEST(spec.compute.MeanNanos() == 20e6);
  BOOST_TEST((spec.compute_at == ComputeAt::kStart));
  BOOST_TEST((spec.transport.kind() == DelayDistribution::Kind::kConstant));
  BOOST_TEST(spec.transport.MeanNanos() == 1e6);
  BOOST_TEST(spec.drop == 0.01);
  BOOST_TEST(spec.dup == 0.001);
  BOOST_TEST(spec.seed == 7u);
  BOOST_TEST(spec.cap_ns == 3600e9);
  BOOST_TEST(!spec.empty());
  BOOST_TEST(spec.has_transport_faults());
}

BOOST_AUTO_TEST_CASE(defaults_inject_nothing) {
  for (std::string_view text : {"", "  ", "seed=3", ";", "drop=0;dup=0;compute=none"}) {
    const FaultSpec spec = MustParse(text);
    BOOST_TEST(spec.empty(), text);
    BOOST_TEST(!spec.has_transport_faults(), text);
  }
}

BOOST_AUTO_TEST_CASE(every_distribution_and_unit_parses) {
  struct Case {
    std::string_view text;
    DelayDistribution::Kind kind;
    double mean_ns;
  };
  const Case cases[] = {
      {"none", DelayDistribution::Kind::kNone, 0},
      {"const:0", DelayDistribution::Kind::kConstant, 0},
      {"const:250ns", DelayDistribution::Kind::kConstant, 250},
      {"const:12.5us", DelayDistribution::Kind::kConstant, 12500},
      {"const:1.5s", DelayDistribution::Kind::kConstant, 1.5e9},
      {"uniform:1ms:3ms", DelayDistribution::Kind::kUniform, 2e6},
      {"exp:20ms", DelayDistribution::Kind::kExponential, 20e6},
      {"pareto:10ms:2", DelayDistribution::Kind::kPareto, 20e6},
      {"lognormal:10ms:0", DelayDistribution::Kind::kLogNormal, 10e6},
  };
  for (const Case& c : cases) {
    const FaultSpec spec = MustParse("compute=" + std::string(c.text));
    BOOST_TEST((spec.compute.kind() == c.kind), c.text);
    BOOST_TEST(spec.compute.MeanNanos() == c.mean_ns, c.text);
    // The spec form parses back to the same distribution.
    const FaultSpec again = MustParse("compute=" + spec.compute.ToString());
    BOOST_TEST(again.compute.ToString() == spec.compute.ToString(), c.text);
  }
}

BOOST_AUTO_TEST_CASE(the_printed_spec_parses_back_to_itself) {
  const FaultSpec spec = MustParse(
      "compute=pareto:20ms:1.5;compute_at=end;transport=lognormal:1ms:0.5;drop=0.25;dup=0.5;"
      "seed=18446744073709551615;cap=2s");
  BOOST_TEST(spec.ToString() ==
             "compute=pareto:20ms:1.5;compute_at=end;transport=lognormal:1ms:0.5;drop=0.25;"
             "dup=0.5;seed=18446744073709551615;cap=2s");
  BOOST_TEST(MustParse(spec.ToString()).ToString() == spec.ToString());
}

BOOST_AUTO_TEST_CASE(blanks_around_separators_are_ignored) {
  const FaultSpec spec = MustParse(" compute = const:5ms ; drop = 0.5 | task = /job:worker ; dup=1 ");
  BOOST_TEST(spec.compute.MeanNanos() == 5e6);
  BOOST_TEST(spec.drop == 0.5);
  BOOST_TEST(spec.dup == 1.0);
}

BOOST_AUTO_TEST_CASE(task_selectors_choose_groups_and_later_groups_override) {
  const std::string text =
      "transport=const:1ms;seed=7 | task=/job:worker/task:2;compute=pareto:20ms:1.5 | "
      "task=/job:ps,/job:worker/task:0;drop=0.5;seed=9";
  const FaultSpec worker2 = MustParse(text, kWorker2);
  BOOST_TEST(worker2.transport.ToString() == "const:1ms");
  BOOST_TEST(worker2.compute.ToString() == "pareto:20ms:1.5");
  BOOST_TEST(worker2.drop == 0.0);
  BOOST_TEST(worker2.seed == 7u);
  const FaultSpec ps0 = MustParse(text, kPs0);
  BOOST_TEST(ps0.transport.ToString() == "const:1ms");
  BOOST_TEST(ps0.compute.is_none());
  BOOST_TEST(ps0.drop == 0.5);
  BOOST_TEST(ps0.seed == 9u);
  const FaultSpec worker0 = MustParse(text, "/job:worker/replica:0/task:0");
  BOOST_TEST(worker0.drop == 0.5);
  BOOST_TEST(worker0.compute.is_none());
  // A client's own process is /job:localhost.
  const FaultSpec client = MustParse("task=/job:localhost;compute=const:1ms",
                                     "/job:localhost/replica:0/task:0");
  BOOST_TEST(!client.compute.is_none());
  BOOST_TEST(MustParse("task=/job:localhost;compute=const:1ms", kWorker2).empty());
  // A later general group overrides a specific one: order is the rule.
  BOOST_TEST(MustParse("task=/job:worker/task:2;drop=0.5 | drop=0.1").drop == 0.1);
}

BOOST_AUTO_TEST_CASE(malformed_specs_name_the_field) {
  BOOST_TEST(Contains(ErrorOf("comptue=exp:1ms"), "unknown field 'comptue'"));
  BOOST_TEST(Contains(ErrorOf("compute"), "'compute' is not FIELD=VALUE"));
  BOOST_TEST(Contains(ErrorOf("compute="), "field 'compute' has no value"));
  BOOST_TEST(Contains(ErrorOf("compute=expo:1ms"), "field 'compute': unknown distribution 'expo'"));
  BOOST_TEST(Contains(ErrorOf("compute=exp:20"), "field 'compute': '20' is not a duration"));
  BOOST_TEST(Contains(ErrorOf("transport=exp:20 ms"), "field 'transport'"));
  BOOST_TEST(Contains(ErrorOf("transport=const:-1ms"), "field 'transport': duration '-1ms' is negative"));
  BOOST_TEST(Contains(ErrorOf("transport=exp:0ms"), "field 'transport': MEAN"));
  BOOST_TEST(Contains(ErrorOf("compute=exp:1ms:2"), "should be exp:MEAN"));
  BOOST_TEST(Contains(ErrorOf("compute=uniform:3ms:1ms"), "HI below LO"));
  BOOST_TEST(Contains(ErrorOf("compute=pareto:10ms"), "pareto:SCALE:ALPHA"));
  BOOST_TEST(Contains(ErrorOf("compute=pareto:10ms:0"), "ALPHA"));
  BOOST_TEST(Contains(ErrorOf("compute=pareto:10ms:x"), "ALPHA 'x'"));
  BOOST_TEST(Contains(ErrorOf("compute=lognormal:10ms:-1"), "SIGMA '-1'"));
  BOOST_TEST(Contains(ErrorOf("compute_at=middle"), "field 'compute_at'"));
  BOOST_TEST(Contains(ErrorOf("drop=1.5"), "field 'drop': '1.5' is not a probability"));
  BOOST_TEST(Contains(ErrorOf("drop=-0.1"), "field 'drop'"));
  BOOST_TEST(Contains(ErrorOf("dup=often"), "field 'dup'"));
  BOOST_TEST(Contains(ErrorOf("seed=-3"), "field 'seed'"));
  BOOST_TEST(Contains(ErrorOf("cap=forever"), "field 'cap'"));
  BOOST_TEST(Contains(ErrorOf("task=worker2;drop=1"), "field 'task': 'worker2'"));
  BOOST_TEST(Contains(ErrorOf("task=/job:worker/device:CPU:0;drop=1"), "names a device"));
  BOOST_TEST(Contains(ErrorOf("drop=0.1;drop=0.2"), "field 'drop' given twice"));
  // A mistake in a group for another task still fails here.
  BOOST_TEST(Contains(ErrorOf("drop=0.1 | task=/job:ps;dup=2"), "field 'dup'"));
}

}  // namespace
}  // namespace af::faults
