#include "core/device_name.h"

#include <boost/test/unit_test.hpp>

#include "pass_test_util.h"

namespace af {
namespace {

using pass_testing::Contains;

DeviceName Parse(const std::string& s) {
  DeviceName d;
  Status status = ParseDeviceName(s, &d);
  BOOST_REQUIRE_MESSAGE(status.ok(), status.ToString());
  return d;
}

BOOST_AUTO_TEST_SUITE(device_name)

BOOST_AUTO_TEST_CASE(parses_full_names) {
  DeviceName d = Parse("/job:worker/replica:2/task:3/device:GPU:1");
  BOOST_TEST(d.IsFullySpecified());
  BOOST_TEST(d.job == "worker");
  BOOST_TEST(d.replica == 2);
  BOOST_TEST(d.task == 3);
  BOOST_TEST(d.type == "GPU");
  BOOST_TEST(d.id == 1);
  BOOST_TEST(d.ToString() == "/job:worker/replica:2/task:3/device:GPU:1");
  // Components in another order come back canonical.
  BOOST_TEST(Parse("/device:CPU:0/task:0/job:localhost/replica:0").ToString() ==
             "/job:localhost/replica:0/task:0/device:CPU:0");
}

BOOST_AUTO_TEST_CASE(parses_legacy_and_case_insensitive_types) {
  BOOST_TEST(Parse("/cpu:0").ToString() == "/device:CPU:0");
  BOOST_TEST(Parse("/gpu:1").ToString() == "/device:GPU:1");
  BOOST_TEST(Parse("/CPU:0").ToString() == "/device:CPU:0");
  BOOST_TEST(Parse("/device:cpu:0").ToString() == "/device:CPU:0");
  BOOST_TEST(Parse("/job:a/replica:0/task:0/gpu:2").ToString() ==
             "/job:a/replica:0/task:0/device:GPU:2");
  BOOST_TEST(Parse("/device:CPU:0") == Parse("/device:cpu:0"));
}

BOOST_AUTO_TEST_CASE(parses_partial_specifications) {
  DeviceName any_cpu = Parse("/device:CPU:*");
  BOOST_TEST(any_cpu.has_type);
  BOOST_TEST(!any_cpu.has_id);
  BOOST_TEST(!any_cpu.has_job);
  BOOST_TEST(any_cpu.ToString() == "/device:CPU:*");
  BOOST_TEST(Parse("/device:GPU").ToString() == "/device:GPU:*");
  DeviceName ps = Parse("/job:ps");
  BOOST_TEST(ps.has_job);
  BOOST_TEST(!ps.has_task);
  BOOST_TEST(!ps.IsFullySpecified());
  BOOST_TEST(Parse("/job:x/task:1").ToString() == "/job:x/task:1");
  BOOST_TEST(Parse("/job:*/replica:*/task:*").ToString() == "");
  BOOST_TEST(Parse("").ToString() == "");
  BOOST_TEST(Parse("/") == DeviceName());
}

BOOST_AUTO_TEST_CASE(rejects_malformed_names_naming_them) {
  for (const std::string bad :
       {"job:x", "/job:", "/job:1x", "/replica:-1", "/task:x", "/device:CPU:0:1", "/device:CPU:x",
        "/foo:1", "/job:a/job:b", "/job:a/", "/job:a//task:0", "/device:9PU:0",
        "/replica:99999999999", "/cpu:0/device:GPU:0"}) {
    DeviceName d;
    Status s = ParseDeviceName(bad, &d);
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, bad);
    BOOST_TEST(Contains(s.message(), "'" + bad + "'"), s.message());
  }
}

BOOST_AUTO_TEST_CASE(matches_specifications_against_full_names) {
  const std::string cpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
  const std::string gpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";
  BOOST_TEST(IsSpecification("", cpu0));
  BOOST_TEST(IsSpecification("/device:CPU:*", cpu0));
  BOOST_TEST(!IsSpecification("/device:CPU:*", gpu0));
  BOOST_TEST(IsSpecification("/cpu:0", cpu0));
  BOOST_TEST(IsSpecification("/device:gpu:0", gpu0));
  BOOST_TEST(!IsSpecification("/gpu:1", gpu0));
  BOOST_TEST(IsSpecification("/job:localhost/task:0", gpu0));
  BOOST_TEST(!IsSpecification("/job:ps", cpu0));
  BOOST_TEST(IsSpecification(cpu0, cpu0));
  // A specification more precise than the name does not match it.
  BOOST_TEST(!IsSpecification("/device:CPU:0", "/job:localhost"));
  BOOST_TEST(!IsSpecification("/job:bad name", cpu0));
}

BOOST_AUTO_TEST_CASE(merges_compatible_specifications) {
  std::string merged = "/job:a";
  Status s = MergeDevNames(&merged, "/device:GPU:0");
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  BOOST_TEST(merged == "/job:a/device:GPU:0");
  s = MergeDevNames(&merged, "/job:a/replica:1/gpu:0");
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  BOOST_TEST(merged == "/job:a/replica:1/device:GPU:0");
  s = MergeDevNames(&merged, "");
  BOOST_TEST(s.ok());
  BOOST_TEST(merged == "/job:a/replica:1/device:GPU:0");
}

BOOST_AUTO_TEST_CASE(merge_conflicts_are_errors_naming_both) {
  struct Case {
    std::string a, b, what;
  };
  for (const Case& c :
       {Case{"/job:a", "/job:b", "jobs"}, Case{"/replica:0", "/replica:1", "replicas"},
        Case{"/task:0", "/task:2", "tasks"}, Case{"/device:CPU:0", "/device:GPU:0", "types"},
        Case{"/device:GPU:0", "/gpu:1", "ids"}}) {
    DeviceName target = Parse(c.a);
    DeviceName before = target;
    Status s = MergeDevNames(&target, Parse(c.b));
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
    BOOST_TEST(Contains(s.message(), c.what), s.message());
    BOOST_TEST(Contains(s.message(), Parse(c.a).ToString()), s.message());
    BOOST_TEST(Contains(s.message(), Parse(c.b).ToString()), s.message());
    BOOST_TEST(target == before);  // unchanged on error
  }
  std::string bad = "/job:a";
  Status s = MergeDevNames(&bad, "/nonsense");
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "/nonsense"));
}

BOOST_AUTO_TEST_CASE(canonical_full_names) {
  BOOST_TEST(CanonicalDeviceName("localhost", 0, 0, "cpu", 0) ==
             "/job:localhost/replica:0/task:0/device:CPU:0");
  std::string out;
  Status s = CanonicalizeDeviceName("/job:w/replica:1/task:2/gpu:3", &out);
  BOOST_REQUIRE(s.ok());
  BOOST_TEST(out == "/job:w/replica:1/task:2/device:GPU:3");
  s = CanonicalizeDeviceName("/job:w/device:GPU:3", &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "/job:w/device:GPU:3"));
  BOOST_TEST(IsSameAddressSpace(Parse("/job:w/replica:1/task:2/gpu:3"),
                                Parse("/job:w/replica:1/task:2/cpu:0")));
  BOOST_TEST(!IsSameAddressSpace(Parse("/job:w/replica:1/task:2/gpu:3"),
                                 Parse("/job:w/replica:1/task:1/gpu:3")));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
