// IncomingTensors (actors/transport/incoming_tensors.h): chunks of one
// tensor share one destination buffer; a chunk that disagrees with the
// first is refused; and buffers nobody completes are released by age, so a
// peer naming steps that never run cannot pin memory for the process's life.
#include <chrono>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "actors/transport/incoming_tensors.h"

namespace af::actors {
namespace {

BOOST_AUTO_TEST_SUITE(incoming_tensors)

BOOST_AUTO_TEST_CASE(chunks_share_one_buffer_and_a_disagreeing_chunk_is_refused) {
  IncomingTensors table;
  Tensor first, second;
  BOOST_TEST_REQUIRE(table.Acquire(7, "edge", DT_FLOAT, TensorShape{4}, &first).ok());
  BOOST_TEST_REQUIRE(table.Acquire(7, "edge", DT_FLOAT, TensorShape{4}, &second).ok());
  BOOST_TEST(first.raw_data() == second.raw_data());
  Tensor other;
  const Status s = table.Acquire(7, "edge", DT_INT32, TensorShape{4}, &other);
  BOOST_TEST(errors::IsInvalidArgument(s), s);
  BOOST_TEST(s.message().find("earlier chunks said float [4]") != std::string::npos, s);
  table.Release(7, "edge");
  BOOST_TEST(table.size() == 0u);
}

BOOST_AUTO_TEST_CASE(buffers_older_than_the_lifetime_are_released_and_newer_ones_kept) {
  IncomingTensors table;
  Tensor t;
  BOOST_TEST_REQUIRE(table.Acquire(1, "old", DT_FLOAT, TensorShape{1024}, &t).ok());
  BOOST_TEST_REQUIRE(table.Acquire(2, "old_too", DT_FLOAT, TensorShape{8}, &t).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  BOOST_TEST_REQUIRE(table.Acquire(3, "new", DT_FLOAT, TensorShape{8}, &t).ok());
  BOOST_TEST(table.ReleaseOlderThan(std::chrono::milliseconds(30)) == 2u);
  BOOST_TEST(table.size() == 1u);
  // The one kept is still the same buffer for its later chunks.
  Tensor again;
  BOOST_TEST_REQUIRE(table.Acquire(3, "new", DT_FLOAT, TensorShape{8}, &again).ok());
  BOOST_TEST(again.raw_data() == t.raw_data());
  BOOST_TEST(table.ReleaseOlderThan(std::chrono::hours(1)) == 0u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::actors
