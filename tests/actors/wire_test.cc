// The wire format of tensors and step messages: round trips for every kind
// of element, and corrupt bytes rejected without crashing or allocating
// what the bytes merely claim.
#include <boost/test/unit_test.hpp>

#include "actors/transport/wire_codec.h"

namespace af {
namespace {

BOOST_AUTO_TEST_CASE(float_tensor_round_trip) {
  Tensor t = Tensor::FromVector<float>({1.5f, -2, 3, 4, 5, 6}, TensorShape{2, 3});
  Tensor back;
  Status s = wire::DecodeTensor(wire::EncodeTensor(t), &back);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(back.dtype() == DT_FLOAT);
  BOOST_TEST(back.shape() == t.shape());
  for (int i = 0; i < 6; ++i) BOOST_TEST(back.data<float>()[i] == t.data<float>()[i]);
  BOOST_TEST(!back.SharesBufferWith(t));
}

BOOST_AUTO_TEST_CASE(other_element_types_round_trip) {
  Tensor i64 = Tensor::FromVector<int64_t>({-1, 1LL << 40, 7});
  Tensor b = Tensor::FromVector<bool>({true, false});
  Tensor d = Tensor::Scalar<double>(3.25);
  Tensor empty(DT_INT32, TensorShape{0, 4});
  for (const Tensor& t : {i64, b, d, empty}) {
    Tensor back;
    Status s = wire::DecodeTensor(wire::EncodeTensor(t), &back);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(back.dtype() == t.dtype());
    BOOST_TEST(back.shape() == t.shape());
    BOOST_TEST(back.tensor_data() == t.tensor_data());
  }
}

BOOST_AUTO_TEST_CASE(string_tensor_round_trip) {
  Tensor t = Tensor::FromVector<std::string>({"", "abc", std::string(1000, 'x'), "z\0y"});
  Tensor back;
  Status s = wire::DecodeTensor(wire::EncodeTensor(t), &back);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(back.dtype() == DT_STRING);
  for (int i = 0; i < 4; ++i) BOOST_TEST(back.data<std::string>()[i] == t.data<std::string>()[i]);
}

BOOST_AUTO_TEST_CASE(uninitialized_tensor_round_trip) {
  Tensor back = Tensor::Scalar<float>(1);
  Status s = wire::DecodeTensor(wire::EncodeTensor(Tensor()), &back);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(!back.IsInitialized());
}

BOOST_AUTO_TEST_CASE(push_and_request_round_trip) {
  wire::TensorPush push{42, "a;0000000000000001;b;edge_1;0:0", Tensor::Scalar<int32_t>(7), true};
  wire::TensorPush push_back;
  BOOST_TEST_REQUIRE(wire::DecodeTensorPush(wire::EncodeTensorPush(push), &push_back).ok());
  BOOST_TEST(push_back.step_id == 42);
  BOOST_TEST(push_back.key == push.key);
  BOOST_TEST(push_back.is_dead);
  BOOST_TEST(push_back.value.scalar<int32_t>() == 7);

  wire::RunGraphRequest req;
  req.session_id = 5;
  req.step_id = 9;
  req.partitions.push_back({3, {Tensor::Scalar<float>(1), Tensor::Scalar<float>(2)}});
  req.partitions.push_back({4, {}});
  wire::RunGraphRequest req_back;
  BOOST_TEST_REQUIRE(wire::DecodeRunGraphRequest(wire::EncodeRunGraphRequest(req), &req_back).ok());
  BOOST_TEST(req_back.session_id == 5);
  BOOST_TEST(req_back.step_id == 9);
  BOOST_TEST_REQUIRE(req_back.partitions.size() == 2u);
  BOOST_TEST(req_back.partitions[0].handle == 3);
  BOOST_TEST(req_back.partitions[0].args[1].scalar<float>() == 2.0f);
  BOOST_TEST(req_back.partitions[1].args.empty());
}

BOOST_AUTO_TEST_CASE(corrupt_bytes_are_data_loss) {
  const std::string good = wire::EncodeTensor(Tensor::FromVector<float>({1, 2, 3, 4}));
  Tensor out;
  // Every truncation fails cleanly.
  for (size_t n = 0; n < good.size(); ++n) {
    BOOST_TEST(wire::DecodeTensor(good.substr(0, n), &out).code() == Code::DATA_LOSS);
  }
  // Trailing garbage.
  BOOST_TEST(wire::DecodeTensor(good + "x", &out).code() == Code::DATA_LOSS);
  // A bad dtype (the first field) and a huge claimed shape.
  std::string bad_dtype = good;
  bad_dtype[0] = 0x7f;
  BOOST_TEST(wire::DecodeTensor(bad_dtype, &out).code() == Code::DATA_LOSS);
  Tensor huge_shape_tensor = Tensor::FromVector<float>({1});
  std::string huge = wire::EncodeTensor(huge_shape_tensor);
  // Flip every byte in turn: never a crash, never a wrong success of size.
  for (size_t i = 0; i < huge.size(); ++i) {
    std::string mutated = huge;
    mutated[i] = static_cast<char>(mutated[i] ^ 0xff);
    Tensor t;
    Status s = wire::DecodeTensor(mutated, &t);
    if (s.ok()) BOOST_TEST(t.TotalBytes() <= huge.size());
  }
}

BOOST_AUTO_TEST_CASE(status_round_trip) {
  Status s = errors::NotFound("node 'x' not found");
  Status back = wire::FromWire(wire::ToWire(s));
  BOOST_TEST(back.code() == Code::NOT_FOUND);
  BOOST_TEST(back.message() == s.message());
  BOOST_TEST(wire::FromWire(wire::ToWire(Status::OK())).ok());
  BOOST_TEST(wire::FromWire(wire::WireStatus{999, "?"}).code() == Code::UNKNOWN);
}

}  // namespace
}  // namespace af
