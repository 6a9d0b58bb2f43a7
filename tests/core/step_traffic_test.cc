// StepTraffic: the per-task-pair byte counts a step reports.
#include <boost/test/unit_test.hpp>

#include "core/step_traffic.h"

namespace af {
namespace {

BOOST_AUTO_TEST_CASE(task_of_device_drops_the_device_part) {
  BOOST_TEST(TaskOfDevice("/job:ps/replica:0/task:3/device:CPU:0") == "/job:ps/replica:0/task:3");
  BOOST_TEST(TaskOfDevice("/job:ps/replica:0/task:3") == "/job:ps/replica:0/task:3");
  BOOST_TEST(TaskOfDevice("") == "");
}

BOOST_AUTO_TEST_CASE(payload_bytes_count_elements_and_string_characters) {
  BOOST_TEST(PayloadBytes(Tensor(DT_FLOAT, TensorShape{3, 5})) == 60u);
  BOOST_TEST(PayloadBytes(Tensor(DT_INT64, TensorShape{0})) == 0u);
  BOOST_TEST(PayloadBytes(Tensor()) == 0u);  // no buffer behind it
  Tensor words(DT_STRING, TensorShape{3});
  words.data<std::string>()[0] = "ab";
  words.data<std::string>()[1] = "";
  words.data<std::string>()[2] = "cdefg";
  BOOST_TEST(PayloadBytes(words) == 7u);
}

BOOST_AUTO_TEST_CASE(entries_add_per_pair_and_sum_per_task) {
  StepTraffic traffic;
  AddTraffic(&traffic, "/job:worker/replica:0/task:0", "/job:ps/replica:0/task:0", 100, 1);
  AddTraffic(&traffic, "/job:worker/replica:0/task:0", "/job:ps/replica:0/task:0", 20, 2);
  AddTraffic(&traffic, "/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0", 7, 1);
  AddTraffic(&traffic, "/job:worker/replica:0/task:1", "/job:ps/replica:0/task:0", 5, 1);
  BOOST_TEST_REQUIRE(traffic.size() == 3u);
  BOOST_TEST(traffic[0].bytes == 120u);
  BOOST_TEST(traffic[0].tensors == 3u);
  BOOST_TEST(BytesTo(traffic, "/job:ps/replica:0/task:0") == 125u);
  BOOST_TEST(BytesFrom(traffic, "/job:ps/replica:0/task:0") == 7u);
  BOOST_TEST(BytesTo(traffic, "/job:ps/replica:0/task:9") == 0u);

  StepTraffic more = {{"/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0", 3, 1},
                      {"a", "b", 1, 1}};
  MergeTraffic(&traffic, more);
  BOOST_TEST(traffic.size() == 4u);
  BOOST_TEST(BytesFrom(traffic, "/job:ps/replica:0/task:0") == 10u);
  BOOST_TEST(TrafficDebugString(more) ==
             "/job:ps/replica:0/task:0 -> /job:worker/replica:0/task:0: 1 tensor, 3 bytes\n"
             "a -> b: 1 tensor, 1 bytes\n");
}

}  // namespace
}  // namespace af
