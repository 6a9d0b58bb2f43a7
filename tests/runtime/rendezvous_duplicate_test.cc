// A tensor that arrives twice from another process (a duplicated network
// message, or injected with dup=P: core/fault_injection/) is refused and
// changes nothing, before or after its Recv took the first copy.
#include <boost/test/unit_test.hpp>

#include "core/tensor.h"
#include "runtime/rendezvous.h"

namespace af {
namespace {

const std::string kKey =
    "/job:worker/replica:0/task:1/device:CPU:0;0000000000000001;"
    "/job:localhost/replica:0/task:0/device:CPU:0;m;0:0";

BOOST_AUTO_TEST_CASE(a_copy_after_the_recv_took_the_first_is_refused) {
  LocalRendezvous rendezvous;
  BOOST_TEST(rendezvous.DeliverFromPeer(kKey, Tensor::Scalar<float>(1), false).ok());
  int calls = 0;
  float got = 0;
  rendezvous.RecvAsync(kKey, [&](const Status& s, const Tensor& value, bool) {
    BOOST_TEST(s.ok());
    got = value.scalar<float>();
    ++calls;
  });
  BOOST_TEST(calls == 1);
  BOOST_TEST(got == 1.0f);
  const Status again = rendezvous.DeliverFromPeer(kKey, Tensor::Scalar<float>(2), false);
  BOOST_TEST(again.code() == Code::ALREADY_EXISTS, again);
  BOOST_TEST(again.message().find("arrived twice") != std::string::npos, again);
  // Nothing is left behind for a Recv that will never come.
  BOOST_TEST(rendezvous.NumPending() == 0u);
}

BOOST_AUTO_TEST_CASE(a_copy_before_the_recv_is_refused_and_the_first_kept) {
  LocalRendezvous rendezvous;
  BOOST_TEST(rendezvous.DeliverFromPeer(kKey, Tensor::Scalar<float>(1), false).ok());
  BOOST_TEST(rendezvous.DeliverFromPeer(kKey, Tensor::Scalar<float>(2), false).code() ==
             Code::ALREADY_EXISTS);
  float got = 0;
  rendezvous.RecvAsync(kKey, [&](const Status&, const Tensor& value, bool) {
    got = value.scalar<float>();
  });
  BOOST_TEST(got == 1.0f);
  BOOST_TEST(rendezvous.NumPending() == 0u);
}

BOOST_AUTO_TEST_CASE(a_waiting_recv_is_called_once) {
  LocalRendezvous rendezvous;
  int calls = 0;
  rendezvous.RecvAsync(kKey, [&](const Status& s, const Tensor&, bool) {
    BOOST_TEST(s.ok());
    ++calls;
  });
  BOOST_TEST(rendezvous.DeliverFromPeer(kKey, Tensor::Scalar<float>(1), false).ok());
  BOOST_TEST(!rendezvous.DeliverFromPeer(kKey, Tensor::Scalar<float>(1), false).ok());
  BOOST_TEST(calls == 1);
  BOOST_TEST(rendezvous.NumPending() == 0u);
}

BOOST_AUTO_TEST_CASE(other_keys_still_arrive) {
  LocalRendezvous rendezvous;
  BOOST_TEST(rendezvous.DeliverFromPeer(kKey, Tensor::Scalar<float>(1), false).ok());
  BOOST_TEST(rendezvous.DeliverFromPeer(kKey + "x", Tensor::Scalar<float>(1), false).ok());
  BOOST_TEST(rendezvous.NumPending() == 2u);
}

}  // namespace
}  // namespace af
