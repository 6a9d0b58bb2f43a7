// Buffer forwarding through the executor: a value with two consumers is
// overwritten, if at all, only by the last one to run, so every consumer
// sees the producer's values; a fetched value is never overwritten; and a
// chain of element-wise ops on a fresh tensor computes what it should.
#include <boost/test/unit_test.hpp>

#include "client/client_session.h"
#include "client/standard_ops.h"

namespace af {
namespace {

BOOST_AUTO_TEST_SUITE(input_forwarding_session)

BOOST_AUTO_TEST_CASE(two_consumers_of_a_fresh_tensor_both_see_its_values) {
  Scope root = Scope::NewRootScope();
  // Fill allocates a fresh buffer each step, which only the executor holds.
  auto x = ops::Fill(root, ops::Const(root, {64, 1024}), 3.0f);
  auto doubled = ops::Mul(root, x, 2.0f);
  auto plus_one = ops::Add(root, x, 1.0f);
  auto chain = ops::Neg(root, ops::Sub(root, ops::Mul(root, doubled, doubled), 1.0f));
  ClientSession session(root);
  for (int step = 0; step < 3; ++step) {
    std::vector<Tensor> out;
    BOOST_TEST_REQUIRE(session.Run({plus_one, chain}, &out).ok());
    for (int64_t i = 0; i < out[0].NumElements(); ++i) {
      BOOST_TEST_REQUIRE(out[0].data<float>()[i] == 4.0f);
      BOOST_TEST_REQUIRE(out[1].data<float>()[i] == -35.0f);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_fetched_tensor_keeps_its_values_when_a_consumer_could_reuse_it) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Fill(root, ops::Const(root, {1000}), 5.0f);
  auto y = ops::Mul(root, x, 10.0f);
  auto z = ops::Add(root, y, 1.0f);
  ClientSession session(root);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({x, y, z}, &out).ok());
  for (int64_t i = 0; i < 1000; ++i) {
    BOOST_TEST_REQUIRE(out[0].data<float>()[i] == 5.0f);
    BOOST_TEST_REQUIRE(out[1].data<float>()[i] == 50.0f);
    BOOST_TEST_REQUIRE(out[2].data<float>()[i] == 51.0f);
  }
}

BOOST_AUTO_TEST_CASE(a_fed_tensor_is_never_written_into) {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root, DT_FLOAT);
  auto y = ops::Mul(root, p, 2.0f);
  ClientSession session(root);
  Tensor fed = Tensor::FromVector<float>({1, 2, 3});
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({{p, fed}}, {y}, &out).ok());
  BOOST_TEST(fed.data<float>()[2] == 3.0f);
  BOOST_TEST(out[0].data<float>()[2] == 6.0f);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
