// Reader checkpoints (ReaderSerializeState / ReaderRestoreState): for every
// format with state (TFRecord, TextLine, FixedLength, Idx; plain and
// compressed), a state taken after each possible number of records resumes
// the epoch exactly - same keys, values and counters - in a fresh reader and
// in the same reader after a reset. Errors: tests/kernels/
// reader_state_errors_test.cc.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "tests/record_file_test_util.h"
#include "tests/kernels/reader_state_test_util.h"

namespace af::test {
namespace {

struct Format {
  std::string label;  // for messages
  std::string op;     // the reader-making op
  std::function<void(ReaderFixture*)> attrs;
  std::vector<std::string> files;  // the epoch, in queue order
};

void NoAttrs(ReaderFixture*) {}

void CheckSameRecords(const std::vector<Record>& got, const std::vector<Record>& expected) {
  BOOST_REQUIRE_EQUAL(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    BOOST_CHECK_EQUAL(got[i].key, expected[i].key);
    BOOST_CHECK(got[i].value == expected[i].value);
  }
}

// Every record of the epoch, read straight through.
std::vector<Record> ReadEpoch(const Format& format) {
  QueueFixture queue(format.files);
  ReaderFixture reader(format.op, "straight");
  format.attrs(&reader);
  AF_REQUIRE_OK(reader.Make());
  Status end;
  std::vector<Record> records = ReadAll(reader.handle(), queue.Handle(), &end);
  BOOST_REQUIRE_MESSAGE(errors::IsOutOfRange(end), end.ToString());
  return records;
}

// The files still in the queue once the reader has read `last_key`.
std::vector<std::string> FilesAfter(const Format& format, const std::string& last_key) {
  const std::string current = FileOfKey(last_key);
  std::vector<std::string> rest;
  bool after = false;
  for (const auto& f : format.files) {
    if (after) rest.push_back(f);
    if (f == current) after = true;
  }
  return rest;
}

// Restores `state` into `reader`, then reads what is left of the epoch.
void CheckResumes(const Tensor& reader, const std::string& state, const QueueFixture& queue,
                  int64_t records_before, int64_t units_before,
                  const std::vector<Record>& expected_rest) {
  AF_REQUIRE_OK(RestoreReader(reader, state));
  BOOST_CHECK_EQUAL(ReaderCounter("ReaderNumRecordsProducedV2", reader).value(), records_before);
  BOOST_CHECK_EQUAL(ReaderCounter("ReaderNumWorkUnitsCompletedV2", reader).value(),
                    units_before);
  Status end;
  CheckSameRecords(ReadAll(reader, queue.Handle(), &end), expected_rest);
  BOOST_CHECK_MESSAGE(errors::IsOutOfRange(end), end.ToString());
  BOOST_CHECK_EQUAL(ReaderCounter("ReaderNumRecordsProducedV2", reader).value(),
                    records_before + static_cast<int64_t>(expected_rest.size()));
}

void CheckStateAfterEveryRecord(const Format& format) {
  const std::vector<Record> epoch = ReadEpoch(format);
  BOOST_REQUIRE_GE(epoch.size(), 2u);
  // Up to the last record: the unit is still in progress, its end not seen.
  for (size_t k = 1; k <= epoch.size(); ++k) {
    BOOST_TEST_CONTEXT(format.label << ", state after " << k << " of " << epoch.size()
                                    << " records") {
      QueueFixture queue(format.files);
      ReaderFixture first(format.op, "first");
      format.attrs(&first);
      AF_REQUIRE_OK(first.Make());
      for (size_t i = 0; i < k; ++i) {
        auto r = ReadRecord(first.handle(), queue.Handle());
        AF_REQUIRE_OK(r.status());
        BOOST_REQUIRE_EQUAL(r.value().key, epoch[i].key);
      }
      auto state = SerializeReader(first.handle());
      AF_REQUIRE_OK(state.status());
      const int64_t units =
          ReaderCounter("ReaderNumWorkUnitsCompletedV2", first.handle()).value();
      // Taking the state changes nothing: the first reader finishes the epoch.
      const std::vector<Record> rest(epoch.begin() + static_cast<std::ptrdiff_t>(k), epoch.end());
      Status end;
      CheckSameRecords(ReadAll(first.handle(), queue.Handle(), &end), rest);

      const std::vector<std::string> remaining = FilesAfter(format, epoch[k - 1].key);
      {
        QueueFixture resumed_queue(remaining, true, "reader_state_fresh");
        ReaderFixture fresh(format.op, "fresh");
        format.attrs(&fresh);
        AF_REQUIRE_OK(fresh.Make());
        CheckResumes(fresh.handle(), state.value(), resumed_queue, static_cast<int64_t>(k),
                     units, rest);
      }
      {
        AF_REQUIRE_OK(ResetReader(first.handle()));
        QueueFixture resumed_queue(remaining, true, "reader_state_reset");
        CheckResumes(first.handle(), state.value(), resumed_queue, static_cast<int64_t>(k), units,
                     rest);
      }
    }
  }
}

using testing::PutBigEndian32;
using testing::TFRecords;

// An IDX file of `n` items of `item_dims` unsigned bytes each (idx1 when
// item_dims is empty); byte j of item i is i*13 + j.
std::string Idx(uint32_t n, const std::vector<uint32_t>& item_dims) {
  std::string out;
  PutBigEndian32(0x00000800u | static_cast<uint32_t>(1 + item_dims.size()), &out);
  PutBigEndian32(n, &out);
  uint32_t item_bytes = 1;
  for (uint32_t d : item_dims) {
    PutBigEndian32(d, &out);
    item_bytes *= d;
  }
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < item_bytes; ++j) out.push_back(static_cast<char>((i * 13 + j) & 0xff));
  return out;
}

BOOST_AUTO_TEST_SUITE(reader_state)

BOOST_AUTO_TEST_CASE(tfrecord_plain_zlib_and_gzip) {
  ReaderScratchDir dir;
  // A record longer than the inflater's chunks, and an empty one.
  const std::string one = TFRecords({"a0", "", std::string(70000, 'y'), "a3"});
  const std::string two = TFRecords({"b0", "b1"});
  for (const std::string compression : {"", "ZLIB", "GZIP"}) {
    Format format{"TFRecordReaderV2 '" + compression + "'", "TFRecordReaderV2",
                  [compression](ReaderFixture* r) { r->Attr("compression_type", compression); },
                  {dir.File("one" + compression), dir.File("two" + compression)}};
    const bool compress = !compression.empty();
    WriteFile(format.files[0], compress ? Compress(one, compression == "GZIP") : one);
    WriteFile(format.files[1], compress ? Compress(two, compression == "GZIP") : two);
    CheckStateAfterEveryRecord(format);
  }
}

BOOST_AUTO_TEST_CASE(text_lines_with_header_crlf_long_line_and_no_final_newline) {
  ReaderScratchDir dir;
  Format format{"TextLineReaderV2", "TextLineReaderV2",
                [](ReaderFixture* r) { r->Attr("skip_header_lines", int64_t{1}); },
                {dir.File("one.txt"), dir.File("only_header.txt"), dir.File("two.txt")}};
  // The long line ends past the reader's 64 KiB buffer.
  WriteFile(format.files[0],
            "header\nl0\r\n\nl2 " + std::string(70000, 'z') + "\nl3\nlast without newline");
  WriteFile(format.files[1], "header only\n");
  WriteFile(format.files[2], "header\nb0\nb1\n");
  CheckStateAfterEveryRecord(format);
}

BOOST_AUTO_TEST_CASE(fixed_length_header_footer_hops_and_encodings) {
  ReaderScratchDir dir;
  // Header 3, records of 4, footer 2; the second file has 3 stray bytes.
  const std::string one = "HDRaaaabbbbccccddddeeeeFT";
  const std::string two = "HDRffffgggghhhh123FT";
  for (const std::string encoding : {"", "ZLIB", "GZIP"}) {
    Format format{"FixedLengthRecordReaderV2 '" + encoding + "'", "FixedLengthRecordReaderV2",
                  [encoding](ReaderFixture* r) {
                    r->Attr("header_bytes", int64_t{3})
                        .Attr("record_bytes", int64_t{4})
                        .Attr("footer_bytes", int64_t{2})
                        .Attr("encoding", encoding);
                  },
                  {dir.File("one" + encoding), dir.File("two" + encoding)}};
    const bool compress = !encoding.empty();
    WriteFile(format.files[0], compress ? Compress(one, encoding == "GZIP") : one);
    WriteFile(format.files[1], compress ? Compress(two, encoding == "GZIP") : two);
    CheckStateAfterEveryRecord(format);
  }
  // Overlapping records (3 bytes every 2) and gapped ones (2 bytes every 3,
  // the last hop landing past the end of the second file).
  WriteFile(dir.File("digits"), "0123456");
  WriteFile(dir.File("digits_again"), "0123456");
  WriteFile(dir.File("short_digits"), "01234");
  CheckStateAfterEveryRecord({"overlapping", "FixedLengthRecordReaderV2",
                              [](ReaderFixture* r) {
                                r->Attr("record_bytes", int64_t{3}).Attr("hop_bytes", int64_t{2});
                              },
                              {dir.File("digits"), dir.File("digits_again")}});
  CheckStateAfterEveryRecord({"gapped", "FixedLengthRecordReaderV2",
                              [](ReaderFixture* r) {
                                r->Attr("record_bytes", int64_t{2}).Attr("hop_bytes", int64_t{3});
                              },
                              {dir.File("digits"), dir.File("short_digits")}});
}

BOOST_AUTO_TEST_CASE(idx_plain_and_gzipped) {
  ReaderScratchDir dir;
  Format format{"IdxRecordReaderV2", "IdxRecordReaderV2", NoAttrs,
                {dir.File("labels-idx1-ubyte"), dir.File("images-idx3-ubyte.gz")}};
  WriteFile(format.files[0], Idx(5, {}));
  WriteFile(format.files[1], Compress(Idx(4, {2, 3}), true));
  CheckStateAfterEveryRecord(format);
}

BOOST_AUTO_TEST_CASE(whole_file_and_identity_readers) {
  ReaderScratchDir dir;
  Format whole{"WholeFileReaderV2", "WholeFileReaderV2", NoAttrs,
               {dir.File("a"), dir.File("b"), dir.File("c")}};
  WriteFile(whole.files[0], "aaa");
  WriteFile(whole.files[1], "");
  WriteFile(whole.files[2], "ccc");
  CheckStateAfterEveryRecord(whole);
  CheckStateAfterEveryRecord({"IdentityReaderV2", "IdentityReaderV2", NoAttrs, {"x", "y", "z"}});
}

// A state with no unit in progress: the restored reader drops its unit and
// takes the next filename.
BOOST_AUTO_TEST_CASE(state_between_units_drops_the_current_unit) {
  ReaderScratchDir dir;
  const std::string a = dir.File("a"), b = dir.File("b");
  WriteFile(a, "a0\na1\na2\n");
  WriteFile(b, "b0\n");
  ReaderFixture idle("TextLineReaderV2", "idle");
  AF_REQUIRE_OK(idle.Make());
  auto state = SerializeReader(idle.handle());
  AF_REQUIRE_OK(state.status());

  QueueFixture queue({a, b});
  ReaderFixture reader("TextLineReaderV2", "busy");
  AF_REQUIRE_OK(reader.Make());
  BOOST_CHECK_EQUAL(ReadRecord(reader.handle(), queue.Handle()).value().value, "a0");
  AF_REQUIRE_OK(RestoreReader(reader.handle(), state.value()));
  BOOST_CHECK_EQUAL(ReaderCounter("ReaderNumRecordsProducedV2", reader.handle()).value(), 0);
  auto next = ReadRecord(reader.handle(), queue.Handle());
  AF_REQUIRE_OK(next.status());
  BOOST_CHECK_EQUAL(next.value().key, b + ":1");
}

// The TF1 ops pass Ref(string) handles; the state is the same.
BOOST_AUTO_TEST_CASE(tf1_ops_with_ref_handles) {
  ReaderScratchDir dir;
  const std::string f = dir.File("tf1.tfrecord");
  WriteFile(f, TFRecords({"r0", "r1", "r2"}));
  QueueFixture queue({f});
  ReaderFixture reader("TFRecordReader", "tf1");
  AF_REQUIRE_OK(reader.Make());
  Tensor reader_handle = reader.handle();
  Tensor queue_handle = queue.RefHandle();
  std::mutex reader_mu, queue_mu;
  auto read = [&]() -> StatusOr<std::string> {
    KernelRunner r("ReaderRead", "read");
    r.RefInput(&reader_handle, &reader_mu).RefInput(&queue_handle, &queue_mu);
    auto out = r.Run();
    if (!out.ok()) return out.status();
    return out.value()[1].scalar<std::string>();
  };
  BOOST_CHECK_EQUAL(read().value(), "r0");
  KernelRunner serialize("ReaderSerializeState", "serialize");
  serialize.RefInput(&reader_handle, &reader_mu);
  auto out = serialize.Run();
  AF_REQUIRE_OK(out.status());
  const std::string state = out.value()[0].scalar<std::string>();
  BOOST_CHECK_EQUAL(read().value(), "r1");
  KernelRunner restore("ReaderRestoreState", "restore");
  restore.RefInput(&reader_handle, &reader_mu).Input(Tensor::Scalar<std::string>(state));
  AF_REQUIRE_OK(restore.Run().status());
  BOOST_CHECK_EQUAL(read().value(), "r1");
  BOOST_CHECK_EQUAL(read().value(), "r2");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
