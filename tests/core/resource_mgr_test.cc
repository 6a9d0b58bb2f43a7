// ResourceMgr: named containers, sharing, deletion and reset.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/resource_mgr.h"
#include "core/variable.h"

namespace af {
namespace {

// Counts live instances so tests can see when the last reference went.
class Counter : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "Counter";
  static inline std::atomic<int> live{0};
  explicit Counter(int v) : value(v) { ++live; }
  ~Counter() override { --live; }
  std::string DebugString() const override { return "Counter " + std::to_string(value); }
  int value;
};

class OtherResource : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "OtherResource";
  std::string DebugString() const override { return "other"; }
};

Status MakeCounter(int v, Counter** out) {
  *out = new Counter(v);
  return Status::OK();
}

BOOST_AUTO_TEST_SUITE(resource_mgr)

BOOST_AUTO_TEST_CASE(two_lookups_share_one_resource) {
  ResourceMgr rm;
  ResourceRef<Counter> a, b;
  BOOST_REQUIRE(rm.LookupOrCreate<Counter>("c", "x", &a, [](Counter** out) {
                    return MakeCounter(1, out);
                  }).ok());
  int creations = 0;
  BOOST_REQUIRE(rm.LookupOrCreate<Counter>("c", "x", &b, [&](Counter** out) {
                    ++creations;
                    return MakeCounter(2, out);
                  }).ok());
  BOOST_TEST(creations == 0);
  BOOST_TEST(a.get() == b.get());
  a->value = 42;
  ResourceRef<Counter> c;
  BOOST_REQUIRE(rm.Lookup<Counter>("c", "x", &c).ok());
  BOOST_TEST(c->value == 42);
}

BOOST_AUTO_TEST_CASE(names_are_scoped_by_container_and_type) {
  ResourceMgr rm;
  BOOST_REQUIRE(rm.Create("c1", "x", new Counter(1)).ok());
  BOOST_REQUIRE(rm.Create("c2", "x", new Counter(2)).ok());
  BOOST_REQUIRE(rm.Create("c1", "x", new OtherResource).ok());
  ResourceRef<Counter> one, two;
  BOOST_REQUIRE(rm.Lookup<Counter>("c1", "x", &one).ok());
  BOOST_REQUIRE(rm.Lookup<Counter>("c2", "x", &two).ok());
  BOOST_TEST(one->value == 1);
  BOOST_TEST(two->value == 2);
  Status dup = rm.Create("c1", "x", new Counter(3));
  BOOST_TEST(dup.code() == Code::ALREADY_EXISTS);
  BOOST_TEST(dup.message().find("c1/x") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(empty_container_means_the_default_one) {
  ResourceMgr rm("my_default");
  BOOST_REQUIRE(rm.Create("", "x", new Counter(5)).ok());
  ResourceRef<Counter> found;
  BOOST_REQUIRE(rm.Lookup<Counter>("my_default", "x", &found).ok());
  BOOST_TEST(found->value == 5);
  BOOST_TEST(rm.Containers() == std::vector<std::string>{"my_default"});
}

BOOST_AUTO_TEST_CASE(missing_resources_are_not_found) {
  ResourceMgr rm;
  ResourceRef<Counter> r;
  Status s = rm.Lookup<Counter>("c", "nope", &r);
  BOOST_TEST(s.code() == Code::NOT_FOUND);
  BOOST_TEST(s.message().find("c/nope") != std::string::npos);
  BOOST_TEST(s.message().find("Counter") != std::string::npos);
  BOOST_TEST(rm.Delete<Counter>("c", "nope").code() == Code::NOT_FOUND);
}

BOOST_AUTO_TEST_CASE(a_failing_creator_adds_nothing) {
  ResourceMgr rm;
  ResourceRef<Counter> r;
  Status s = rm.LookupOrCreate<Counter>("c", "x", &r, [](Counter**) {
    return errors::InvalidArgument("no");
  });
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(rm.Containers().empty());
}

BOOST_AUTO_TEST_CASE(delete_and_cleanup_drop_only_the_managers_reference) {
  const int before = Counter::live;
  ResourceMgr rm;
  ResourceRef<Counter> held;
  BOOST_REQUIRE(rm.Create("c", "held", new Counter(1)).ok());
  BOOST_REQUIRE(rm.Create("c", "dropped", new Counter(2)).ok());
  BOOST_REQUIRE(rm.Create("keep", "y", new Counter(3)).ok());
  BOOST_REQUIRE(rm.Lookup<Counter>("c", "held", &held).ok());
  BOOST_TEST(Counter::live == before + 3);

  const uint64_t g0 = rm.generation();
  BOOST_REQUIRE(rm.Cleanup("c").ok());
  BOOST_TEST(rm.generation() != g0);
  BOOST_TEST(Counter::live == before + 2);  // "held" lives on in `held`
  BOOST_TEST(held->value == 1);
  ResourceRef<Counter> r;
  BOOST_TEST(rm.Lookup<Counter>("c", "held", &r).code() == Code::NOT_FOUND);
  BOOST_TEST(rm.Lookup<Counter>("keep", "y", &r).ok());
  BOOST_TEST(rm.Cleanup("never_made").ok());

  // After a reset the name makes a fresh resource.
  ResourceRef<Counter> fresh;
  BOOST_REQUIRE(rm.LookupOrCreate<Counter>("c", "held", &fresh, [](Counter** out) {
                    return MakeCounter(9, out);
                  }).ok());
  BOOST_TEST(fresh->value == 9);
  BOOST_TEST(fresh.get() != held.get());

  const uint64_t g1 = rm.generation();
  BOOST_REQUIRE(rm.Delete<Counter>("keep", "y").ok());
  BOOST_TEST(rm.generation() != g1);
  r = ResourceRef<Counter>();
  held = ResourceRef<Counter>();
  BOOST_TEST(Counter::live == before + 1);  // only `fresh`, still in the manager
}

BOOST_AUTO_TEST_CASE(destroying_the_manager_releases_everything) {
  const int before = Counter::live;
  {
    ResourceMgr rm;
    BOOST_REQUIRE(rm.Create("a", "x", new Counter(1)).ok());
    BOOST_REQUIRE(rm.Create("b", "x", new Counter(1)).ok());
  }
  BOOST_TEST(Counter::live == before);
}

BOOST_AUTO_TEST_CASE(concurrent_lookup_or_create_makes_one_resource) {
  ResourceMgr rm;
  std::atomic<int> creations{0};
  std::vector<std::thread> threads;
  std::vector<Counter*> seen(8, nullptr);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      ResourceRef<Counter> r;
      Status s = rm.LookupOrCreate<Counter>("c", "x", &r, [&](Counter** out) {
        ++creations;
        return MakeCounter(t, out);
      });
      if (s.ok()) seen[t] = r.get();
    });
  }
  for (auto& th : threads) th.join();
  BOOST_TEST(creations == 1);
  for (Counter* c : seen) BOOST_TEST(c == seen[0]);
}

BOOST_AUTO_TEST_CASE(debug_string_lists_resources) {
  ResourceMgr rm;
  BOOST_REQUIRE(rm.Create("c", "v", new Var(DT_FLOAT)).ok());
  BOOST_TEST(rm.DebugString() == "c/v (Var): float <uninitialized>\n");
}

BOOST_AUTO_TEST_CASE(devices_of_one_process_keep_their_managers) {
  ResourceMgr* a = ResourceMgrForDevice("/job:test_rm/replica:0/task:0/device:CPU:0");
  ResourceMgr* b = ResourceMgrForDevice("/job:test_rm/replica:0/task:0/device:CPU:0");
  ResourceMgr* other = ResourceMgrForDevice("/job:test_rm/replica:0/task:0/device:CPU:1");
  BOOST_TEST(a == b);
  BOOST_TEST(a != other);
  BOOST_REQUIRE(a->Create("shared_c", "x", new Counter(1)).ok());
  BOOST_REQUIRE(other->Create("shared_c", "x", new Counter(2)).ok());
  CleanupContainerOnAllDevices("shared_c");
  ResourceRef<Counter> r;
  BOOST_TEST(b->Lookup<Counter>("shared_c", "x", &r).code() == Code::NOT_FOUND);
  BOOST_TEST(other->Lookup<Counter>("shared_c", "x", &r).code() == Code::NOT_FOUND);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
