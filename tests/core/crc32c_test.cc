// CRC-32C against published check values and a bit-by-bit reference.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/crc32c.h"

namespace af {
namespace {

// The definition, one bit at a time.
uint32_t ReferenceCrc32c(const std::string& data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char c : data) {
    crc ^= c;
    for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ ((crc & 1u) ? 0x82F63B78u : 0u);
  }
  return ~crc;
}

BOOST_AUTO_TEST_SUITE(crc32c_checksum)

BOOST_AUTO_TEST_CASE(matches_published_check_values) {
  BOOST_TEST(crc32c::Value("123456789") == 0xE3069283u);
  BOOST_TEST(crc32c::Value(std::string(32, '\0')) == 0x8A9136AAu);
  BOOST_TEST(crc32c::Value(std::string(32, '\xff')) == 0x62A8AB43u);
  std::string ascending;
  for (int i = 0; i < 32; ++i) ascending += static_cast<char>(i);
  BOOST_TEST(crc32c::Value(ascending) == 0x46DD794Eu);
  BOOST_TEST(crc32c::Value("") == 0u);
}

BOOST_AUTO_TEST_CASE(matches_the_bitwise_definition_at_every_length_and_alignment) {
  std::mt19937 rng(7);
  std::string data(300, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  for (size_t start = 0; start < 9; ++start) {
    for (size_t len = 0; start + len <= data.size(); len += 7) {
      const std::string part = data.substr(start, len);
      BOOST_TEST_CONTEXT("start " << start << " len " << len) {
        BOOST_TEST(crc32c::Value(part) == ReferenceCrc32c(part));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(extend_equals_the_crc_of_the_concatenation) {
  const std::string a = "hello, ", b = "checkpoint world";
  BOOST_TEST(crc32c::Extend(crc32c::Value(a), b.data(), b.size()) == crc32c::Value(a + b));
}

BOOST_AUTO_TEST_CASE(mask_round_trips_and_changes_the_value) {
  for (uint32_t crc : {0u, 1u, 0xE3069283u, 0xFFFFFFFFu}) {
    BOOST_TEST(crc32c::Unmask(crc32c::Mask(crc)) == crc);
    BOOST_TEST(crc32c::Mask(crc) != crc);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
