// FixedLengthRecordReader, TextLineReader, WholeFileReader and
// IdentityReader on small files the tests write.
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "tests/kernels/reader_test_util.h"

namespace af::test {
namespace {

std::vector<std::string> Values(const std::vector<Record>& records) {
  std::vector<std::string> v;
  for (const auto& r : records) v.push_back(r.value);
  return v;
}

std::vector<std::string> Keys(const std::vector<Record>& records) {
  std::vector<std::string> v;
  for (const auto& r : records) v.push_back(r.key);
  return v;
}

using Strings = std::vector<std::string>;

BOOST_AUTO_TEST_SUITE(reader_formats)

BOOST_AUTO_TEST_CASE(fixed_length_header_footer_and_keys) {
  ReaderScratchDir dir;
  const std::string a = dir.File("a.bin"), b = dir.File("b.bin");
  WriteFile(a, "HH" "abc" "def" "ghi" "F");   // 3 records
  WriteFile(b, "HH" "jkl" "mn" "F");          // 1 record, then 2 leftover bytes (skipped, as TF)
  QueueFixture queue({a, b});
  ReaderFixture reader("FixedLengthRecordReaderV2");
  reader.Attr("header_bytes", int64_t{2}).Attr("record_bytes", int64_t{3}).Attr("footer_bytes",
                                                                                 int64_t{1});
  AF_REQUIRE_OK(reader.Make());
  Status end;
  auto records = ReadAll(reader.handle(), queue.Handle(), &end);
  BOOST_CHECK(errors::IsOutOfRange(end));
  BOOST_CHECK(Values(records) == (Strings{"abc", "def", "ghi", "jkl"}));
  BOOST_CHECK(Keys(records) == (Strings{a + ":0", a + ":1", a + ":2", b + ":0"}));
  BOOST_CHECK_EQUAL(ReaderCounter("ReaderNumRecordsProducedV2", reader.handle()).value(), 4);
  BOOST_CHECK_EQUAL(ReaderCounter("ReaderNumWorkUnitsCompletedV2", reader.handle()).value(), 2);
}

BOOST_AUTO_TEST_CASE(fixed_length_hop_overlapping_and_gapped) {
  ReaderScratchDir dir;
  const std::string f = dir.File("digits");
  WriteFile(f, "0123456");
  {
    // TensorFlow's example: record_bytes 3, hop 2 -> 012, 234, 456.
    QueueFixture queue({f});
    ReaderFixture reader("FixedLengthRecordReaderV2");
    reader.Attr("record_bytes", int64_t{3}).Attr("hop_bytes", int64_t{2});
    AF_REQUIRE_OK(reader.Make());
    Status end;
    BOOST_CHECK(Values(ReadAll(reader.handle(), queue.Handle(), &end)) ==
                (Strings{"012", "234", "456"}));
    BOOST_CHECK(errors::IsOutOfRange(end));
  }
  {
    // A hop longer than the record skips bytes: 01, 34, (6 lacks a byte).
    QueueFixture queue({f});
    ReaderFixture reader("FixedLengthRecordReaderV2", "reader_gapped");
    reader.Attr("record_bytes", int64_t{2}).Attr("hop_bytes", int64_t{3});
    AF_REQUIRE_OK(reader.Make());
    Status end;
    BOOST_CHECK(Values(ReadAll(reader.handle(), queue.Handle(), &end)) == (Strings{"01", "34"}));
  }
  {
    // The footer must fit after the last record: with footer 2, "456" is out.
    QueueFixture queue({f});
    ReaderFixture reader("FixedLengthRecordReaderV2", "reader_footer");
    reader.Attr("record_bytes", int64_t{3}).Attr("hop_bytes", int64_t{2}).Attr("footer_bytes",
                                                                               int64_t{2});
    AF_REQUIRE_OK(reader.Make());
    Status end;
    BOOST_CHECK(Values(ReadAll(reader.handle(), queue.Handle(), &end)) ==
                (Strings{"012", "234"}));
  }
}

BOOST_AUTO_TEST_CASE(fixed_length_compressed_encodings) {
  ReaderScratchDir dir;
  // Records long enough to cross the reader's internal chunks.
  std::string body = "hdr";
  std::vector<std::string> expected;
  for (int i = 0; i < 5000; ++i) {
    std::string rec = std::to_string(1000000 + i * 7) + "xyz";  // 10 bytes
    expected.push_back(rec);
    body += rec;
  }
  body += "footer";
  for (const char* encoding : {"GZIP", "ZLIB"}) {
    const std::string f = dir.File(std::string("records.") + encoding);
    WriteFile(f, Compress(body, std::string(encoding) == "GZIP"));
    QueueFixture queue({f});
    ReaderFixture reader("FixedLengthRecordReaderV2", std::string("reader_") + encoding);
    reader.Attr("header_bytes", int64_t{3}).Attr("record_bytes", int64_t{10})
        .Attr("footer_bytes", int64_t{6}).Attr("encoding", std::string(encoding));
    AF_REQUIRE_OK(reader.Make());
    Status end;
    auto records = ReadAll(reader.handle(), queue.Handle(), &end);
    BOOST_CHECK_MESSAGE(errors::IsOutOfRange(end), end.ToString());
    BOOST_CHECK(Values(records) == expected);
  }
}

BOOST_AUTO_TEST_CASE(fixed_length_bad_attrs) {
  ReaderFixture zero("FixedLengthRecordReaderV2");
  zero.Attr("record_bytes", int64_t{0});
  Status s = zero.Make();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_NE(s.message().find("record_bytes"), std::string::npos);
  ReaderFixture encoding("FixedLengthRecordReaderV2");
  encoding.Attr("record_bytes", int64_t{4}).Attr("encoding", std::string("LZ4"));
  BOOST_CHECK(errors::IsInvalidArgument(encoding.Make()));
}

BOOST_AUTO_TEST_CASE(text_lines_skip_header_crlf_and_no_trailing_newline) {
  ReaderScratchDir dir;
  const std::string a = dir.File("a.csv"), b = dir.File("b.csv"), c = dir.File("c.csv");
  WriteFile(a, "name,value\r\nx,1\r\n\r\ny,2");  // CRLF, an empty line, no final newline
  WriteFile(b, "header only\n");
  WriteFile(c, "h\nz,3\n");
  QueueFixture queue({a, b, c});
  ReaderFixture reader("TextLineReaderV2");
  reader.Attr("skip_header_lines", int64_t{1});
  AF_REQUIRE_OK(reader.Make());
  Status end;
  auto records = ReadAll(reader.handle(), queue.Handle(), &end);
  BOOST_CHECK(errors::IsOutOfRange(end));
  BOOST_CHECK(Values(records) == (Strings{"x,1", "", "y,2", "z,3"}));
  // Line numbers count from 1 and include the skipped header.
  BOOST_CHECK(Keys(records) == (Strings{a + ":2", a + ":3", a + ":4", c + ":2"}));
  BOOST_CHECK_EQUAL(ReaderCounter("ReaderNumWorkUnitsCompletedV2", reader.handle()).value(), 3);
}

BOOST_AUTO_TEST_CASE(text_lines_longer_than_the_read_buffer) {
  ReaderScratchDir dir;
  const std::string f = dir.File("long.txt");
  const std::string long_line(200000, 'q');
  WriteFile(f, "short\n" + long_line + "\nend\n");
  QueueFixture queue({f});
  ReaderFixture reader("TextLineReaderV2");
  AF_REQUIRE_OK(reader.Make());
  Status end;
  BOOST_CHECK(Values(ReadAll(reader.handle(), queue.Handle(), &end)) ==
              (Strings{"short", long_line, "end"}));
}

BOOST_AUTO_TEST_CASE(whole_file_and_identity_readers) {
  ReaderScratchDir dir;
  const std::string a = dir.File("a"), b = dir.File("b");
  WriteFile(a, std::string("bin\0ary", 7));
  WriteFile(b, "");
  {
    QueueFixture queue({a, b});
    ReaderFixture reader("WholeFileReaderV2");
    AF_REQUIRE_OK(reader.Make());
    Status end;
    auto records = ReadAll(reader.handle(), queue.Handle(), &end);
    BOOST_CHECK(errors::IsOutOfRange(end));
    BOOST_CHECK(Values(records) == (Strings{std::string("bin\0ary", 7), ""}));
    BOOST_CHECK(Keys(records) == (Strings{a, b}));
  }
  {
    QueueFixture queue({"work-1", "work-2"});
    ReaderFixture reader("IdentityReaderV2");
    AF_REQUIRE_OK(reader.Make());
    Status end;
    auto records = ReadAll(reader.handle(), queue.Handle(), &end);
    BOOST_CHECK(Values(records) == (Strings{"work-1", "work-2"}));
    BOOST_CHECK(Keys(records) == (Strings{"work-1", "work-2"}));
  }
}

BOOST_AUTO_TEST_CASE(read_file_op) {
  ReaderScratchDir dir;
  const std::string f = dir.File("contents");
  WriteFile(f, "all of it");
  auto out = RunKernel("ReadFile", {Tensor::Scalar<std::string>(f)});
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK_EQUAL(out.value()[0].scalar<std::string>(), "all of it");
  auto missing = RunKernel("ReadFile", {Tensor::Scalar<std::string>(dir.File("nope"))});
  BOOST_CHECK(errors::IsNotFound(missing.status()));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
