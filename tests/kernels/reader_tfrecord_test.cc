// TFRecordReader: plain, ZLIB and GZIP files, keys "<file>:<offset>", and
// corruption (a flipped payload byte, a bad length CRC, truncation) as
// DATA_LOSS naming the file and the record's offset.
#include <boost/test/unit_test.hpp>
#include <mutex>
#include <string>
#include <vector>

#include "core/io/record_writer.h"
#include "tests/kernels/reader_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

const std::vector<std::string> kPayloads = {"first", "", std::string(70000, 'x'), "last"};

std::string Framed(const std::vector<std::string>& payloads) {
  std::string out;
  for (const auto& p : payloads) AppendRecord(p, &out);
  return out;
}

// Offset of record i: 16 bytes of framing per record before it.
uint64_t OffsetOf(size_t i) {
  uint64_t offset = 0;
  for (size_t j = 0; j < i; ++j) offset += 16 + kPayloads[j].size();
  return offset;
}

using testing::Mentions;

BOOST_AUTO_TEST_SUITE(reader_tfrecord)

BOOST_AUTO_TEST_CASE(plain_zlib_and_gzip_files) {
  ReaderScratchDir dir;
  const std::string data = Framed(kPayloads);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", data}, {"ZLIB", Compress(data, false)}, {"GZIP", Compress(data, true)}};
  for (const auto& [compression, contents] : cases) {
    BOOST_TEST_CONTEXT("compression_type '" << compression << "'") {
      const std::string f = dir.File("data" + compression + ".tfrecord");
      WriteFile(f, contents);
      QueueFixture queue({f, f});  // the same file twice: keys restart
      ReaderFixture reader("TFRecordReaderV2", "tfrecord" + compression);
      reader.Attr("compression_type", compression);
      AF_REQUIRE_OK(reader.Make());
      Status end;
      auto records = ReadAll(reader.handle(), queue.Handle(), &end);
      BOOST_CHECK_MESSAGE(errors::IsOutOfRange(end), end.ToString());
      BOOST_REQUIRE_EQUAL(records.size(), 2 * kPayloads.size());
      for (size_t i = 0; i < records.size(); ++i) {
        const size_t k = i % kPayloads.size();
        BOOST_CHECK(records[i].value == kPayloads[k]);
        BOOST_CHECK_EQUAL(records[i].key, f + ":" + std::to_string(OffsetOf(k)));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(flipped_payload_byte_is_data_loss_naming_file_and_offset) {
  ReaderScratchDir dir;
  std::string data = Framed(kPayloads);
  const uint64_t third = OffsetOf(2);
  data[third + 12 + 500] ^= 0x01;  // inside the third payload
  const std::string f = dir.File("flipped.tfrecord");
  WriteFile(f, data);
  QueueFixture queue({f});
  ReaderFixture reader("TFRecordReaderV2");
  AF_REQUIRE_OK(reader.Make());
  Status end;
  auto records = ReadAll(reader.handle(), queue.Handle(), &end);
  BOOST_CHECK_EQUAL(records.size(), 2u);  // the intact records before it
  BOOST_CHECK_MESSAGE(errors::IsDataLoss(end), end.ToString());
  BOOST_CHECK(Mentions(end, f));
  BOOST_CHECK(Mentions(end, "offset " + std::to_string(third)));
  // Reading again does not skip past the damage.
  auto again = ReadRecord(reader.handle(), queue.Handle());
  BOOST_CHECK(errors::IsDataLoss(again.status()));
}

BOOST_AUTO_TEST_CASE(bad_length_crc_is_data_loss) {
  ReaderScratchDir dir;
  std::string data = Framed(kPayloads);
  data[OffsetOf(1) + 9] ^= 0x40;  // the length's CRC of the second record
  const std::string f = dir.File("length.tfrecord");
  WriteFile(f, data);
  QueueFixture queue({f});
  ReaderFixture reader("TFRecordReaderV2");
  AF_REQUIRE_OK(reader.Make());
  Status end;
  auto records = ReadAll(reader.handle(), queue.Handle(), &end);
  BOOST_CHECK_EQUAL(records.size(), 1u);
  BOOST_CHECK(errors::IsDataLoss(end));
  BOOST_CHECK(Mentions(end, f));
  BOOST_CHECK(Mentions(end, "offset " + std::to_string(OffsetOf(1))));
}

BOOST_AUTO_TEST_CASE(truncated_files_are_data_loss) {
  ReaderScratchDir dir;
  const std::string data = Framed(kPayloads);
  // Cut inside the last payload, and inside the last header.
  for (size_t cut : {data.size() - 6, static_cast<size_t>(OffsetOf(3) + 5)}) {
    BOOST_TEST_CONTEXT("cut at " << cut) {
      const std::string f = dir.File("cut" + std::to_string(cut) + ".tfrecord");
      WriteFile(f, data.substr(0, cut));
      QueueFixture queue({f});
      ReaderFixture reader("TFRecordReaderV2", "cut" + std::to_string(cut));
      AF_REQUIRE_OK(reader.Make());
      Status end;
      auto records = ReadAll(reader.handle(), queue.Handle(), &end);
      BOOST_CHECK_EQUAL(records.size(), 3u);
      BOOST_CHECK_MESSAGE(errors::IsDataLoss(end), end.ToString());
      BOOST_CHECK(Mentions(end, f));
      BOOST_CHECK(Mentions(end, "offset " + std::to_string(OffsetOf(3))));
    }
  }
  // A truncated gzip stream.
  const std::string gz = Compress(data, true);
  const std::string f = dir.File("cut.tfrecord.gz");
  WriteFile(f, gz.substr(0, gz.size() / 2));
  QueueFixture queue({f});
  ReaderFixture reader("TFRecordReaderV2", "cut_gzip");
  reader.Attr("compression_type", std::string("GZIP"));
  AF_REQUIRE_OK(reader.Make());
  Status end;
  ReadAll(reader.handle(), queue.Handle(), &end);
  BOOST_CHECK_MESSAGE(errors::IsDataLoss(end), end.ToString());
  BOOST_CHECK(Mentions(end, f));
}

BOOST_AUTO_TEST_CASE(missing_file_fails_one_read_then_the_next_file_is_read) {
  ReaderScratchDir dir;
  const std::string good = dir.File("good.tfrecord");
  WriteFile(good, Framed({"only"}));
  QueueFixture queue({dir.File("missing.tfrecord"), good});
  ReaderFixture reader("TFRecordReaderV2");
  AF_REQUIRE_OK(reader.Make());
  auto first = ReadRecord(reader.handle(), queue.Handle());
  BOOST_CHECK(errors::IsNotFound(first.status()));
  BOOST_CHECK(Mentions(first.status(), "missing.tfrecord"));
  auto second = ReadRecord(reader.handle(), queue.Handle());
  AF_REQUIRE_OK(second.status());
  BOOST_CHECK_EQUAL(second.value().value, "only");
}

BOOST_AUTO_TEST_CASE(unknown_compression_type_is_invalid) {
  ReaderFixture reader("TFRecordReaderV2");
  reader.Attr("compression_type", std::string("SNAPPY"));
  Status s = reader.Make();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK(Mentions(s, "SNAPPY"));
}

// The TF1 ops pass Ref(string) [container, name] handles.
BOOST_AUTO_TEST_CASE(tf1_reader_with_ref_handles) {
  ReaderScratchDir dir;
  const std::string f = dir.File("tf1.tfrecord");
  WriteFile(f, Framed({"a", "b"}));
  QueueFixture queue({f});
  ReaderFixture reader("TFRecordReader");
  AF_REQUIRE_OK(reader.Make());
  BOOST_CHECK_EQUAL(reader.handle().NumElements(), 2);
  Tensor reader_handle = reader.handle();
  Tensor queue_handle = queue.RefHandle();
  std::mutex reader_mu, queue_mu;
  std::vector<std::string> values;
  for (int i = 0; i < 3; ++i) {
    KernelRunner read("ReaderRead", "read");
    read.RefInput(&reader_handle, &reader_mu).RefInput(&queue_handle, &queue_mu);
    auto out = read.Run();
    if (!out.ok()) {
      BOOST_CHECK(errors::IsOutOfRange(out.status()));
      break;
    }
    values.push_back(out.value()[1].scalar<std::string>());
  }
  BOOST_CHECK(values == (std::vector<std::string>{"a", "b"}));
  KernelRunner count("ReaderNumRecordsProduced", "count");
  count.RefInput(&reader_handle, &reader_mu);
  BOOST_CHECK_EQUAL(count.Run().value()[0].scalar<int64_t>(), 2);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
