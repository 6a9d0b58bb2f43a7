// Reader checkpoints that cannot be restored: a state of another reader type
// or options, a damaged or cut state string, a file that is gone, cut or
// changed, a restore while a read is in flight. Each names the node and the
// reason, and leaves the reader as it was: it goes on reading where it was.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/io/record_writer.h"
#include "proto/reader_state.pb.h"
#include "tests/kernels/reader_state_test_util.h"

namespace af::test {
namespace {

std::string Framed(const std::vector<std::string>& payloads) {
  std::string out;
  for (const auto& p : payloads) AppendRecord(p, &out);
  return out;
}

// The state of a reader of `op` that has read one record of `file`.
std::string SaveAfterOneRecord(const std::string& op, const std::string& file,
                         const std::string& compression = "") {
  QueueFixture queue({file}, true, "reader_state_saver");
  ReaderFixture reader(op, "saver");
  if (op == "TFRecordReaderV2") reader.Attr("compression_type", compression);
  AF_REQUIRE_OK(reader.Make());
  AF_REQUIRE_OK(ReadRecord(reader.handle(), queue.Handle()).status());
  auto state = SerializeReader(reader.handle());
  AF_REQUIRE_OK(state.status());
  return state.value();
}

// A reader part way through a file of its own (TextLine, or TFRecord when
// `op` says so): the target of bad restores.
class Victim {
 public:
  Victim(const ReaderScratchDir& dir, const std::string& name,
         const std::string& op = "TextLineReaderV2")
      : file_(dir.File(name)), queue_({file_}, true, "reader_state_" + name) {
    const bool lines = op == "TextLineReaderV2";
    WriteFile(file_, lines ? "v0\nv1\nv2\n" : Framed({"v0", "v1", "v2"}));
    second_key_ = file_ + (lines ? ":2" : ":18");  // after "v0\n" or a 16 + 2 byte record
    reader_ = std::make_unique<ReaderFixture>(op, "victim");
    AF_REQUIRE_OK(reader_->Make());
    BOOST_REQUIRE_EQUAL(ReadRecord(handle(), queue_.Handle()).value().value, "v0");
  }
  const Tensor& handle() const { return reader_->handle(); }

  // The restore fails with `code`, naming the restoring node and `reason`,
  // and changes no counter.
  void CheckRefused(const std::string& state, Code code, const std::string& reason) const {
    Status s = RestoreReader(handle(), state);
    BOOST_CHECK_MESSAGE(s.code() == code, s.ToString());
    BOOST_CHECK_MESSAGE(Mentions(s, "node 'restore'"), s.ToString());
    BOOST_CHECK_MESSAGE(Mentions(s, reason), s.ToString());
    BOOST_CHECK_EQUAL(ReaderCounter("ReaderNumRecordsProducedV2", handle()).value(), 1);
  }
  // The next read gives the record after the one read before.
  void CheckUnchanged() const {
    auto next = ReadRecord(handle(), queue_.Handle());
    AF_REQUIRE_OK(next.status());
    BOOST_CHECK_EQUAL(next.value().value, "v1");
    BOOST_CHECK_EQUAL(next.value().key, second_key_);
  }

 private:
  std::string file_, second_key_;
  QueueFixture queue_;
  std::unique_ptr<ReaderFixture> reader_;
};

BOOST_AUTO_TEST_SUITE(reader_state_errors)

BOOST_AUTO_TEST_CASE(state_of_another_reader_type_or_options) {
  ReaderScratchDir dir;
  const std::string records = dir.File("r.tfrecord");
  WriteFile(records, Compress(Framed({"a", "b"}), true));
  const std::string gzip = SaveAfterOneRecord("TFRecordReaderV2", records, "GZIP");
  Victim lines(dir, "lines");
  lines.CheckRefused(gzip, Code::INVALID_ARGUMENT, "saved by a TFRecordReader");
  lines.CheckRefused(gzip, Code::INVALID_ARGUMENT, "not a TextLineReader");
  lines.CheckUnchanged();
  // The same type with another compression would misread every offset.
  Victim plain(dir, "plain", "TFRecordReaderV2");
  plain.CheckRefused(gzip, Code::INVALID_ARGUMENT, "compression_type=GZIP");
  plain.CheckUnchanged();
}

BOOST_AUTO_TEST_CASE(damaged_and_cut_state_strings) {
  ReaderScratchDir dir;
  const std::string text = dir.File("t.txt");
  WriteFile(text, "t0\nt1\n");
  const std::string saved = SaveAfterOneRecord("TextLineReaderV2", text);
  Victim victim(dir, "victim");
  victim.CheckRefused("", Code::INVALID_ARGUMENT, "not a serialized reader state");
  victim.CheckRefused("hello, reader", Code::INVALID_ARGUMENT, "reader state");
  // Every prefix, and every byte flipped in turn.
  for (size_t n = 0; n < saved.size(); ++n) {
    BOOST_TEST_CONTEXT("cut to " << n << " of " << saved.size() << " bytes") {
      victim.CheckRefused(saved.substr(0, n), Code::INVALID_ARGUMENT, "reader state");
    }
  }
  for (size_t i = 0; i < saved.size(); ++i) {
    BOOST_TEST_CONTEXT("byte " << i << " flipped") {
      std::string flipped = saved;
      flipped[i] = static_cast<char>(flipped[i] ^ 0x10);
      victim.CheckRefused(flipped, Code::INVALID_ARGUMENT, "reader state");
    }
  }
  // A version from elsewhere.
  tensorflow::ActorflowReaderState newer;
  BOOST_REQUIRE(newer.ParseFromString(saved));
  newer.set_version(2);
  victim.CheckRefused(newer.SerializeAsString(), Code::INVALID_ARGUMENT,
                      "version 2 is not supported");
  victim.CheckUnchanged();
  // The intact state restores.
  AF_EXPECT_OK(RestoreReader(victim.handle(), saved));

  // A state that is not a string scalar.
  KernelRunner restore("ReaderRestoreStateV2", "restore");
  restore.Input(victim.handle()).Input(Tensor::FromVector<std::string>({saved}));
  Status s = restore.Run().status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK(Mentions(s, "scalar"));
}

BOOST_AUTO_TEST_CASE(file_gone_cut_or_changed) {
  ReaderScratchDir dir;
  const std::string records = dir.File("r.tfrecord"), text = dir.File("t.txt");
  const std::string framed = Framed({"first", "second", "third"});
  WriteFile(records, framed);
  WriteFile(text, "line 0\nline 1\nline 2\n");
  const std::string tfrecord = SaveAfterOneRecord("TFRecordReaderV2", records);
  const std::string lines = SaveAfterOneRecord("TextLineReaderV2", text);
  {
    // Damaged after the saved offset: the restore cannot tell, the next read
    // does, naming the record's offset in the file.
    std::string damaged = framed;
    damaged[21 + 12 + 2] = static_cast<char>(damaged[21 + 12 + 2] ^ 0x01);  // in "second"
    WriteFile(records, damaged);
    ReaderFixture resumed("TFRecordReaderV2", "resumed");
    AF_REQUIRE_OK(resumed.Make());
    AF_REQUIRE_OK(RestoreReader(resumed.handle(), tfrecord));
    QueueFixture no_files(std::vector<std::string>{}, true, "reader_state_no_files");
    Status s = ReadRecord(resumed.handle(), no_files.Handle()).status();
    BOOST_CHECK_MESSAGE(errors::IsDataLoss(s), s.ToString());
    BOOST_CHECK_MESSAGE(Mentions(s, "offset 21"), s.ToString());
  }
  {
    // Cut before the saved offset (the first record is 16 + 5 bytes).
    WriteFile(records, framed.substr(0, 20));
    Victim victim(dir, "cut", "TFRecordReaderV2");
    victim.CheckRefused(tfrecord, Code::DATA_LOSS, records);
    victim.CheckRefused(tfrecord, Code::DATA_LOSS, "before the saved position 21");
    victim.CheckUnchanged();
  }
  {
    // Gone.
    std::filesystem::remove(records);
    Victim victim(dir, "gone", "TFRecordReaderV2");
    victim.CheckRefused(tfrecord, Code::INVALID_ARGUMENT, records);
    victim.CheckUnchanged();
  }
  {
    // Changed: the saved offset no longer follows a line end.
    WriteFile(text, "a longer first line\nline 1\n");
    Victim victim(dir, "changed");
    victim.CheckRefused(lines, Code::INVALID_ARGUMENT, "does not start a line");
    victim.CheckUnchanged();
  }
}

BOOST_AUTO_TEST_CASE(fixed_length_and_idx_files_cut_or_changed) {
  ReaderScratchDir dir;
  const std::string fixed = dir.File("fixed"), idx = dir.File("labels-idx1-ubyte");
  WriteFile(fixed, "aaaabbbbcccc");
  const std::string labels = std::string("\0\0\x08\x01\0\0\0\x04", 8) + "wxyz";
  WriteFile(idx, labels);
  QueueFixture queue({fixed}, true, "reader_state_fixed");
  ReaderFixture reader("FixedLengthRecordReaderV2", "fixed_reader");
  reader.Attr("record_bytes", int64_t{4});
  AF_REQUIRE_OK(reader.Make());
  for (int i = 0; i < 2; ++i) AF_REQUIRE_OK(ReadRecord(reader.handle(), queue.Handle()).status());
  auto fixed_state = SerializeReader(reader.handle());
  AF_REQUIRE_OK(fixed_state.status());
  const std::string idx_saved = SaveAfterOneRecord("IdxRecordReaderV2", idx);

  // The two records read must still be there.
  WriteFile(fixed, "aaaabbb");
  Status s = RestoreReader(reader.handle(), fixed_state.value());
  BOOST_CHECK_MESSAGE(errors::IsDataLoss(s), s.ToString());
  BOOST_CHECK(Mentions(s, fixed));
  BOOST_CHECK(Mentions(s, "FixedLengthRecordReader 'fixed_reader'"));
  WriteFile(fixed, "aaaabbbb");  // exactly the records read: nothing follows
  AF_EXPECT_OK(RestoreReader(reader.handle(), fixed_state.value()));
  BOOST_CHECK(errors::IsOutOfRange(ReadRecord(reader.handle(), queue.Handle()).status()));

  ReaderFixture idx_reader("IdxRecordReaderV2", "idx_reader");
  AF_REQUIRE_OK(idx_reader.Make());
  // Now announcing no items at all.
  WriteFile(idx, std::string("\0\0\x08\x01\0\0\0\0", 8));
  s = RestoreReader(idx_reader.handle(), idx_saved);
  BOOST_CHECK_MESSAGE(errors::IsInvalidArgument(s), s.ToString());
  BOOST_CHECK(Mentions(s, "holds 0 IDX items"));
  // Announcing them, but cut before the saved item.
  WriteFile(idx, labels.substr(0, 8));
  s = RestoreReader(idx_reader.handle(), idx_saved);
  BOOST_CHECK_MESSAGE(errors::IsDataLoss(s), s.ToString());
}

BOOST_AUTO_TEST_CASE(restore_while_a_read_is_in_flight_is_refused) {
  ReaderScratchDir dir;
  const std::string a = dir.File("a");
  WriteFile(a, "w0\nw1\n");
  const std::string saved = SaveAfterOneRecord("TextLineReaderV2", a);
  QueueFixture queue({}, /*close=*/false, "reader_state_waiting");
  ReaderFixture reader("TextLineReaderV2", "waiting_reader");
  AF_REQUIRE_OK(reader.Make());
  StatusOr<Record> result = errors::Unknown("not run");
  std::thread reading([&] { result = ReadRecord(reader.handle(), queue.Handle()); });
  WaitForWaitingRead(queue);
  // The parked read would take the next filename after the restored unit.
  Status s = RestoreReader(reader.handle(), saved);
  BOOST_CHECK_MESSAGE(errors::IsFailedPrecondition(s), s.ToString());
  BOOST_CHECK(Mentions(s, "read is in progress"));
  queue.queue()->Add(a);
  reading.join();
  AF_REQUIRE_OK(result.status());
  BOOST_CHECK_EQUAL(result.value().value, "w0");
  // Idle again: the restore goes through and the reader resumes the state.
  AF_REQUIRE_OK(RestoreReader(reader.handle(), saved));
  auto next = ReadRecord(reader.handle(), queue.Handle());
  AF_REQUIRE_OK(next.status());
  BOOST_CHECK_EQUAL(next.value().key, a + ":2");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
