// Lane message prefixes (core/net/lane_message.h): every kind round-trips
// and garbage is named (DATA_LOSS) before a body is allocated.
#include <boost/test/unit_test.hpp>

#include "tests/core/lane_test_util.h"

namespace af {
namespace {

using namespace lane_testing;

BOOST_AUTO_TEST_SUITE(lane_message)

BOOST_AUTO_TEST_CASE(a_lane_prefix_round_trips_and_garbage_is_named) {
  for (net::LaneKind kind :
       {net::LaneKind::kRunGraph, net::LaneKind::kRunGraphReply, net::LaneKind::kAbortStep}) {
    net::LanePrefix in;
    in.kind = kind;
    in.body_bytes = 12345;
    in.correlation = 0xfedcba9876543210ull;
    in.step_id = -987654321012345ll;
    const std::array<char, net::kLanePrefixBytes> bytes = net::EncodeLanePrefix(in);
    BOOST_TEST(net::FrameMagicOf(bytes.data()) == net::kLaneMagic);
    BOOST_TEST(net::FrameMagicOf(bytes.data()) != net::kFrameMagic);
    net::LanePrefix out;
    const Status s = net::ParseLanePrefix(bytes.data(), &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST(static_cast<int>(out.kind) == static_cast<int>(kind));
    BOOST_TEST(out.body_bytes == 12345u);
    BOOST_TEST(out.correlation == 0xfedcba9876543210ull);
    BOOST_TEST(out.step_id == -987654321012345ll);
  }
  // The largest body allowed is fine.
  {
    net::LanePrefix in;
    in.body_bytes = net::kMaxLaneBodyBytes;
    const auto bytes = net::EncodeLanePrefix(in);
    net::LanePrefix out;
    BOOST_TEST(net::ParseLanePrefix(bytes.data(), &out).ok());
    BOOST_TEST(out.body_bytes == net::kMaxLaneBodyBytes);
  }

  net::LanePrefix good;
  good.kind = net::LaneKind::kRunGraph;
  good.body_bytes = 10;
  good.correlation = 5;
  good.step_id = 6;
  const auto header = net::EncodeLanePrefix(good);
  auto with = [&](size_t offset, auto field) {
    std::array<char, net::kLanePrefixBytes> copy = header;
    std::memcpy(copy.data() + offset, &field, sizeof field);
    return copy;
  };
  auto parse = [](const std::array<char, net::kLanePrefixBytes>& bytes) {
    net::LanePrefix p;
    return net::ParseLanePrefix(bytes.data(), &p);
  };
  auto names = [](const Status& s, const std::string& what) {
    return s.code() == Code::DATA_LOSS && s.message().find(what) != std::string::npos;
  };

  const Status magic = parse(with(0, uint32_t{7}));
  BOOST_TEST(names(magic, "magic"), magic);
  // A tensor frame's magic is not a lane message's.
  const Status frame_magic = parse(with(0, net::kFrameMagic));
  BOOST_TEST(names(frame_magic, "magic"), frame_magic);
  BOOST_TEST(net::FrameMagicOf(with(0, net::kFrameMagic).data()) == net::kFrameMagic);

  const Status version = parse(with(4, uint16_t{2}));
  BOOST_TEST(names(version, "version"), version);
  const Status version0 = parse(with(4, uint16_t{0}));
  BOOST_TEST(names(version0, "version"), version0);

  const Status kind9 = parse(with(6, uint16_t{9}));
  BOOST_TEST(names(kind9, "kind"), kind9);
  BOOST_TEST(names(kind9, "9"), kind9);
  const Status kind0 = parse(with(6, uint16_t{0}));
  BOOST_TEST(names(kind0, "kind"), kind0);

  const Status big = parse(with(8, uint32_t{net::kMaxLaneBodyBytes + 1}));
  BOOST_TEST(names(big, "limit"), big);
  BOOST_TEST(names(big, std::to_string(net::kMaxLaneBodyBytes + 1)), big);
  const Status huge = parse(with(8, uint32_t{0xffffffffu}));
  BOOST_TEST(huge.code() == Code::DATA_LOSS, huge);

  const Status reserved = parse(with(12, uint32_t{1}));
  BOOST_TEST(names(reserved, "reserved"), reserved);
  const Status reserved_high = parse(with(12, uint32_t{0x80000000u}));
  BOOST_TEST(names(reserved_high, "reserved"), reserved_high);

  // The correlation and step id may hold anything.
  net::LanePrefix any;
  BOOST_TEST(net::ParseLanePrefix(with(16, ~uint64_t{0}).data(), &any).ok());
  BOOST_TEST(any.correlation == ~uint64_t{0});
  BOOST_TEST(net::ParseLanePrefix(with(24, int64_t{-1}).data(), &any).ok());
  BOOST_TEST(any.step_id == -1);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
