// What every reader shares (kernels/io/reader_base.h): ReadUpTo batching,
// counters, reset, the queue running dry, waiting on the queue without a
// result, concurrent reads and shared readers.
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/kernels/reader_test_util.h"

namespace af::test {
namespace {

using Strings = std::vector<std::string>;

// Lines "<tag>0" .. "<tag>{n-1}".
std::string Lines(const std::string& tag, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += tag + std::to_string(i) + "\n";
  return out;
}

StatusOr<std::vector<Tensor>> ReadUpTo(const Tensor& reader, const Tensor& queue, int64_t n) {
  KernelRunner r("ReaderReadUpToV2", "read_up_to");
  r.Input(reader).Input(queue).Input(Tensor::Scalar<int64_t>(n));
  return r.Run();
}

Strings AsStrings(const Tensor& t) {
  return Strings(t.data<std::string>(), t.data<std::string>() + t.NumElements());
}

// Until a read is parked on the queue (a guard, not a timing assertion:
// gives up after a minute so a broken reader fails instead of hanging).
void WaitForWaitingRead(const QueueFixture& queue) {
  for (int i = 0; i < 60000 && queue.queue()->waiting() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  BOOST_REQUIRE_EQUAL(queue.queue()->waiting(), 1u);
}

BOOST_AUTO_TEST_SUITE(reader_base)

BOOST_AUTO_TEST_CASE(read_up_to_batches_within_one_file) {
  ReaderScratchDir dir;
  const std::string a = dir.File("a"), b = dir.File("b"), empty = dir.File("empty");
  WriteFile(a, Lines("a", 5));
  WriteFile(empty, "");
  WriteFile(b, Lines("b", 2));
  QueueFixture queue({a, empty, b});
  ReaderFixture reader("TextLineReaderV2");
  AF_REQUIRE_OK(reader.Make());
  std::vector<Strings> batches;
  Status end;
  for (;;) {
    auto out = ReadUpTo(reader.handle(), queue.Handle(), 3);
    if (!out.ok()) {
      end = out.status();
      break;
    }
    BOOST_CHECK_EQUAL(out.value()[0].dims(), 1);
    BOOST_CHECK_EQUAL(out.value()[0].NumElements(), out.value()[1].NumElements());
    batches.push_back(AsStrings(out.value()[1]));
  }
  // A batch never mixes files; the end of a file gives a short batch; the
  // empty file gives none.
  BOOST_CHECK(batches == (std::vector<Strings>{{"a0", "a1", "a2"}, {"a3", "a4"}, {"b0", "b1"}}));
  BOOST_CHECK(errors::IsOutOfRange(end));
  BOOST_CHECK_EQUAL(ReaderCounter("ReaderNumRecordsProducedV2", reader.handle()).value(), 7);
  BOOST_CHECK_EQUAL(ReaderCounter("ReaderNumWorkUnitsCompletedV2", reader.handle()).value(), 3);
}

BOOST_AUTO_TEST_CASE(read_up_to_zero_and_negative) {
  QueueFixture queue(std::vector<std::string>{});
  ReaderFixture reader("IdentityReaderV2");
  AF_REQUIRE_OK(reader.Make());
  auto zero = ReadUpTo(reader.handle(), queue.Handle(), 0);
  AF_REQUIRE_OK(zero.status());
  BOOST_CHECK_EQUAL(zero.value()[0].NumElements(), 0);
  BOOST_CHECK(errors::IsInvalidArgument(ReadUpTo(reader.handle(), queue.Handle(), -1).status()));
}

BOOST_AUTO_TEST_CASE(reset_starts_over) {
  ReaderScratchDir dir;
  const std::string a = dir.File("a");
  WriteFile(a, Lines("x", 3));
  QueueFixture queue({a, a}, /*close=*/true);
  ReaderFixture reader("TextLineReaderV2");
  AF_REQUIRE_OK(reader.Make());
  BOOST_CHECK_EQUAL(ReadRecord(reader.handle(), queue.Handle()).value().value, "x0");
  KernelRunner reset("ReaderResetV2", "reset");
  reset.Input(reader.handle());
  AF_REQUIRE_OK(reset.Run().status());
  BOOST_CHECK_EQUAL(ReaderCounter("ReaderNumRecordsProducedV2", reader.handle()).value(), 0);
  // The rest of the first file is dropped: the next read takes the next
  // filename.
  auto next = ReadRecord(reader.handle(), queue.Handle());
  AF_REQUIRE_OK(next.status());
  BOOST_CHECK_EQUAL(next.value().value, "x0");
  BOOST_CHECK_EQUAL(ReaderCounter("ReaderNumRecordsProducedV2", reader.handle()).value(), 1);
}

BOOST_AUTO_TEST_CASE(closed_empty_queue_is_out_of_range_every_time) {
  QueueFixture queue(std::vector<std::string>{});
  ReaderFixture reader("TFRecordReaderV2");
  AF_REQUIRE_OK(reader.Make());
  for (int i = 0; i < 2; ++i) {
    auto r = ReadRecord(reader.handle(), queue.Handle());
    BOOST_CHECK(errors::IsOutOfRange(r.status()));
    BOOST_CHECK_NE(r.status().message().find("read"), std::string::npos);  // names the node
  }
}

BOOST_AUTO_TEST_CASE(a_read_waits_for_the_queue_without_failing) {
  ReaderScratchDir dir;
  const std::string a = dir.File("a");
  WriteFile(a, Lines("w", 1));
  QueueFixture queue({}, /*close=*/false);
  ReaderFixture reader("TextLineReaderV2");
  AF_REQUIRE_OK(reader.Make());
  StatusOr<Record> result = errors::Unknown("not run");
  std::thread reading([&] { result = ReadRecord(reader.handle(), queue.Handle()); });
  // The read asks the queue and waits for an answer.
  WaitForWaitingRead(queue);
  queue.queue()->Add(a);
  reading.join();
  AF_REQUIRE_OK(result.status());
  BOOST_CHECK_EQUAL(result.value().value, "w0");
  // Closing wakes a waiting read with OUT_OF_RANGE.
  std::thread waiting([&] { result = ReadRecord(reader.handle(), queue.Handle()); });
  WaitForWaitingRead(queue);
  queue.queue()->CloseNow();
  waiting.join();
  BOOST_CHECK(errors::IsOutOfRange(result.status()));
}

BOOST_AUTO_TEST_CASE(concurrent_reads_get_each_record_once) {
  ReaderScratchDir dir;
  std::vector<std::string> files;
  std::set<std::string> expected;
  for (int f = 0; f < 6; ++f) {
    files.push_back(dir.File("f" + std::to_string(f)));
    WriteFile(files.back(), Lines("f" + std::to_string(f) + "_", 50));
    for (int i = 0; i < 50; ++i) expected.insert("f" + std::to_string(f) + "_" + std::to_string(i));
  }
  QueueFixture queue(files);
  ReaderFixture reader("TextLineReaderV2");
  AF_REQUIRE_OK(reader.Make());
  std::mutex mu;
  std::multiset<std::string> got;
  std::atomic<int> out_of_range{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (;;) {
        auto out = ReadUpTo(reader.handle(), queue.Handle(), 1 + t);
        if (!out.ok()) {
          if (errors::IsOutOfRange(out.status())) ++out_of_range;
          return;
        }
        std::lock_guard<std::mutex> lock(mu);
        for (const auto& v : AsStrings(out.value()[1])) got.insert(v);
      }
    });
  }
  for (auto& t : threads) t.join();
  BOOST_CHECK_EQUAL(out_of_range.load(), 4);
  BOOST_CHECK_EQUAL(got.size(), expected.size());
  BOOST_CHECK(std::set<std::string>(got.begin(), got.end()) == expected);
}

BOOST_AUTO_TEST_CASE(shared_readers) {
  ReaderScratchDir dir;
  const std::string a = dir.File("a");
  WriteFile(a, Lines("s", 2));
  QueueFixture queue({a});
  ReaderFixture one("TextLineReaderV2", "one");
  one.Attr("shared_name", std::string("shared_lines"))
      .Attr("container", std::string("reader_test"));
  ReaderFixture two("TextLineReaderV2", "two");
  two.Attr("shared_name", std::string("shared_lines"))
      .Attr("container", std::string("reader_test"));
  AF_REQUIRE_OK(one.Make());
  AF_REQUIRE_OK(two.Make());
  // Two nodes, one reader: the records are split between them.
  BOOST_CHECK_EQUAL(ReadRecord(one.handle(), queue.Handle()).value().value, "s0");
  BOOST_CHECK_EQUAL(ReadRecord(two.handle(), queue.Handle()).value().value, "s1");
  // A shared name cannot change format.
  ReaderFixture other("TFRecordReaderV2", "other");
  other.Attr("shared_name", std::string("shared_lines"))
      .Attr("container", std::string("reader_test"));
  Status s = other.Make();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_NE(s.message().find("TextLineReader"), std::string::npos);
  // Without a shared name, two nodes of the same name get two readers.
  QueueFixture queue2({a, a}, true, "reader_test_queues2");
  ReaderFixture p1("TextLineReaderV2", "same"), p2("TextLineReaderV2", "same");
  AF_REQUIRE_OK(p1.Make());
  AF_REQUIRE_OK(p2.Make());
  BOOST_CHECK_EQUAL(ReadRecord(p1.handle(), queue2.Handle()).value().value, "s0");
  BOOST_CHECK_EQUAL(ReadRecord(p2.handle(), queue2.Handle()).value().value, "s0");
  ReaderTestResourceMgr()->Cleanup("reader_test").ok();
}

BOOST_AUTO_TEST_CASE(bad_handles) {
  QueueFixture queue(std::vector<std::string>{});
  ReaderFixture reader("TextLineReaderV2");
  AF_REQUIRE_OK(reader.Make());
  // A queue that does not exist.
  ResourceHandle missing;
  missing.name = "no_such_queue";
  auto r = ReadRecord(reader.handle(), MakeResourceHandleTensor(missing));
  BOOST_CHECK(errors::IsNotFound(r.status()));
  // A reader handle that is not a resource.
  auto s = ReadRecord(Tensor::Scalar<float>(1.0f), queue.Handle());
  BOOST_CHECK(!s.ok());
  // The state ops resolve their handle as the others do
  // (tests/kernels/reader_state_test.cc has the rest).
  ResourceHandle no_reader;
  no_reader.name = "no_such_reader";
  KernelRunner serialize("ReaderSerializeStateV2", "serialize");
  serialize.Input(MakeResourceHandleTensor(no_reader));
  BOOST_CHECK(errors::IsNotFound(serialize.Run().status()));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
