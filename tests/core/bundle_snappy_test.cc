// The Snappy decoder of tensor-bundle index blocks: every tag kind, copies
// that overlap their own output, and malformed streams (each DATA_LOSS,
// never a crash or an out-of-bounds read).
#include <boost/test/unit_test.hpp>

#include <random>
#include <string>

#include "core/bundle/snappy.h"

namespace af::bundle {
namespace {

std::string Bytes(std::initializer_list<int> b) {
  std::string s;
  for (int x : b) s.push_back(static_cast<char>(x));
  return s;
}

std::string Decode(const std::string& in) {
  std::string out;
  Status s = SnappyUncompress(in, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return out;
}

bool IsDataLoss(const std::string& in) {
  std::string out;
  return SnappyUncompress(in, &out).code() == Code::DATA_LOSS;
}

BOOST_AUTO_TEST_SUITE(bundle_snappy)

BOOST_AUTO_TEST_CASE(literals_and_every_copy_kind) {
  BOOST_TEST(Decode(Bytes({0})) == "");
  // Literal "abc" (tag (3-1)<<2), then copy-1 of 9 bytes from 3 back.
  BOOST_TEST(Decode(Bytes({12, 0x08, 'a', 'b', 'c', 0x15, 3})) == "abcabcabcabc");
  // Copy-2: 5 bytes from offset 2 (overlapping: a repeating pattern).
  BOOST_TEST(Decode(Bytes({7, 0x04, 'x', 'y', 2 | (4 << 2), 2, 0})) == "xyxyxyx");
  // Copy-4: 3 bytes from offset 1.
  BOOST_TEST(Decode(Bytes({4, 0x00, 'z', 3 | (2 << 2), 1, 0, 0, 0})) == "zzzz");
  // A literal longer than 60 bytes: tag 60, then length-1 in one byte.
  std::string long_literal(100, 'q');
  std::string in = Bytes({100, 60 << 2, 99}) + long_literal;
  BOOST_TEST(Decode(in) == long_literal);
  // Two length bytes (tag 61).
  std::string longer(300, 'r');
  in = Bytes({0xac, 0x02, 61 << 2, 43, 1}) + longer;  // 300 = varint ac 02; 299 = 0x12b
  BOOST_TEST(Decode(in) == longer);
}

BOOST_AUTO_TEST_CASE(malformed_streams_are_data_loss) {
  BOOST_TEST(IsDataLoss(""));                                 // no preamble
  BOOST_TEST(IsDataLoss(Bytes({0x80})));                      // truncated preamble
  BOOST_TEST(IsDataLoss(Bytes({5, 0x08, 'a', 'b', 'c'})));    // shorter than declared
  BOOST_TEST(IsDataLoss(Bytes({2, 0x08, 'a', 'b', 'c'})));    // literal past declared
  BOOST_TEST(IsDataLoss(Bytes({3, 0x08, 'a', 'b'})));         // literal past input
  BOOST_TEST(IsDataLoss(Bytes({8, 0x00, 'a', 0x0d, 0})));     // copy offset 0
  BOOST_TEST(IsDataLoss(Bytes({8, 0x00, 'a', 0x0d, 2})));     // copy from before the start
  BOOST_TEST(IsDataLoss(Bytes({3, 0x00, 'a', 0x11, 1})));     // copy past declared
  BOOST_TEST(IsDataLoss(Bytes({8, 0x00, 'a', 0x01})));        // truncated copy-1
  BOOST_TEST(IsDataLoss(Bytes({8, 0x00, 'a', 0x02, 1})));     // truncated copy-2
  BOOST_TEST(IsDataLoss(Bytes({8, 0x00, 'a', 0x03, 1, 0})));  // truncated copy-4
  BOOST_TEST(IsDataLoss(Bytes({8, 61 << 2, 1})));             // truncated literal length
  // A tiny stream declaring 4 GiB is refused before anything is allocated.
  BOOST_TEST(IsDataLoss(Bytes({0xff, 0xff, 0xff, 0xff, 0x0f, 0x00, 'a'})));
}

BOOST_AUTO_TEST_CASE(random_garbage_never_crashes) {
  std::mt19937 rng(27);
  for (int i = 0; i < 2000; ++i) {
    std::string in(rng() % 64, '\0');
    for (char& c : in) c = static_cast<char>(rng());
    std::string out;
    Status s = SnappyUncompress(in, &out);
    if (s.ok()) BOOST_TEST(out.size() <= in.size() * kSnappyMaxRatio + 64);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::bundle
