#include "core/rendezvous_key.h"

#include <boost/test/unit_test.hpp>

#include "pass_test_util.h"

namespace af {
namespace {

using pass_testing::Contains;

BOOST_AUTO_TEST_SUITE(rendezvous_key)

BOOST_AUTO_TEST_CASE(rendezvous_keys_have_tensorflows_layout) {
  const std::string key = RendezvousKey("/job:a/replica:0/task:0/device:CPU:0", 0xabcdef12345ull,
                                        "/job:a/replica:0/task:0/device:GPU:0", "edge_7_x", 3, 42);
  BOOST_TEST(key ==
             "/job:a/replica:0/task:0/device:CPU:0;00000abcdef12345;"
             "/job:a/replica:0/task:0/device:GPU:0;edge_7_x;3:42");
  ParsedRendezvousKey parsed;
  Status s = ParseRendezvousKey(key, &parsed);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  BOOST_TEST(parsed.src_device == "/job:a/replica:0/task:0/device:CPU:0");
  BOOST_TEST(parsed.src_incarnation == 0xabcdef12345ull);
  BOOST_TEST(parsed.dst_device == "/job:a/replica:0/task:0/device:GPU:0");
  BOOST_TEST(parsed.tensor_name == "edge_7_x");
  BOOST_TEST(parsed.frame_id == 3u);
  BOOST_TEST(parsed.iter_id == 42);
  BOOST_TEST(RendezvousKey("s", ~0ull, "d", "t", 0, 0) == "s;ffffffffffffffff;d;t;0:0");
  for (const std::string bad :
       {"", "a;b;c", "s;xyz;d;t;0:0", "s;0;d;t;00", "s;0;;t;0:0", "s;0;d;t;0:x"}) {
    s = ParseRendezvousKey(bad, &parsed);
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, bad);
    BOOST_TEST(Contains(s.message(), "'" + bad + "'"), s.message());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
