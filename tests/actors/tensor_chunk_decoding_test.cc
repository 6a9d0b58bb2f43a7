// A TensorChunk from the wire (actors/transport/wire.h) decodes into its own
// bytes only: however large the tensor it claims to be part of, the
// deserializer allocates no more than the chunk the message carries, and the
// destination is left to the worker's handler, after admission (issue 21).
#include <cstring>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

#include "actors/interfaces.h"
#include "actors/transport/incoming_tensors.h"

namespace af::actors {
namespace {

// The bytes a sender would put on the wire for one chunk, with a header
// that may lie about the tensor.
std::vector<char> EncodeChunk(int32_t dtype, std::vector<int64_t> dims, uint64_t offset,
                              const std::string& bytes) {
  std::vector<char> buffer;
  caf::binary_serializer sink{nullptr, buffer};
  int64_t step_id = 42;
  std::string key = "a;b;edge";
  uint64_t length = bytes.size();
  BOOST_TEST_REQUIRE(!sink(step_id, key, dtype, dims, offset, length));
  size_t n = bytes.size();
  BOOST_TEST_REQUIRE(!sink.begin_sequence(n));
  std::vector<char> raw(bytes.begin(), bytes.end());
  if (n > 0) BOOST_TEST_REQUIRE(!sink.apply_raw(n, raw.data()));
  BOOST_TEST_REQUIRE(!sink.end_sequence());
  return buffer;
}

caf::error Decode(const std::vector<char>& buffer, wire::TensorChunk* chunk) {
  caf::binary_deserializer source{nullptr, buffer};
  return wire::inspect(source, *chunk);
}

BOOST_AUTO_TEST_SUITE(tensor_chunk_decoding)

BOOST_AUTO_TEST_CASE(a_chunk_of_a_huge_tensor_allocates_only_its_own_bytes) {
  const size_t held_before = IncomingTensors::Global().size();
  // Four bytes claimed to start a 64 GiB float tensor.
  const std::vector<char> wire_bytes =
      EncodeChunk(DT_FLOAT, {int64_t{1} << 34}, 0, std::string("\x01\x02\x03\x04", 4));
  wire::TensorChunk chunk;
  BOOST_TEST_REQUIRE(!Decode(wire_bytes, &chunk));
  BOOST_TEST(chunk.from_wire);
  BOOST_TEST(chunk.dtype == DT_FLOAT);
  BOOST_TEST(chunk.shape.num_elements() == int64_t{1} << 34);
  BOOST_TEST(chunk.tensor.TotalBytes() == 4u);
  BOOST_TEST(std::memcmp(chunk.tensor.raw_data(), "\x01\x02\x03\x04", 4) == 0);
  BOOST_TEST(IncomingTensors::Global().size() == held_before);  // no destination yet
}

BOOST_AUTO_TEST_CASE(chunks_that_do_not_fit_or_exceed_the_chunk_size_are_refused) {
  wire::TensorChunk chunk;
  BOOST_TEST(static_cast<bool>(Decode(EncodeChunk(DT_FLOAT, {2}, 4, "12345678"), &chunk)));
  BOOST_TEST(static_cast<bool>(Decode(EncodeChunk(DT_STRING, {2}, 0, "12"), &chunk)));
  const std::string too_long(wire::kChunkBytes + 4, 'x');
  BOOST_TEST(static_cast<bool>(
      Decode(EncodeChunk(DT_UINT8, {int64_t{1} << 24}, 0, too_long), &chunk)));
  BOOST_TEST(!Decode(EncodeChunk(DT_FLOAT, {2}, 4, "1234"), &chunk));
  BOOST_TEST(chunk.offset == 4u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::actors
