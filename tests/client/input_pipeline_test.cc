// Input pipelines end to end (whitepaper §4.5): StringInputProducer's
// filename queue (a real queue actor), a QueueRunner filling it, readers
// reading through a ClientSession, and DecodeRaw / Cast / Reshape.
#include <zlib.h>

#include <boost/test/unit_test.hpp>

#include "tests/compression_test_util.h"
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/coordinator.h"
#include "client/input_producer.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "tests/record_file_test_util.h"

namespace af {
namespace {

#define AF_CHECK_OK(expr)                          \
  do {                                             \
    const ::af::Status s_ = (expr);                \
    BOOST_REQUIRE_MESSAGE(s_.ok(), s_.ToString()); \
  } while (0)

class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "af_pipeline_XXXXXX").string();
    BOOST_REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string Write(const std::string& name, const std::string& contents) const {
    const std::string path = path_ + "/" + name;
    std::ofstream(path, std::ios::binary).write(contents.data(), contents.size());
    return path;
  }

 private:
  std::string path_;
};

std::string Gzip(const std::string& data) { return testing::Deflate(data, /*gzip=*/true); }

using testing::PutBigEndian32;
using testing::TFRecords;

// Runs `fetches` until the input ends; returns the status that ended it.
Status RunUntilEnd(const ClientSession& session, const std::vector<Output>& fetches,
                   std::vector<std::vector<Tensor>>* results) {
  for (int guard = 0; guard < 100000; ++guard) {
    std::vector<Tensor> out;
    Status s = session.Run(fetches, &out);
    if (!s.ok()) return s;
    results->push_back(std::move(out));
  }
  return errors::Internal("the input never ended");
}

using Options = StringInputProducerOptions;

BOOST_AUTO_TEST_SUITE(input_pipeline)

BOOST_AUTO_TEST_CASE(num_epochs_two_reads_every_record_twice_then_out_of_range) {
  ScratchDir dir;
  const std::string a = dir.Write("a.tfrecord", TFRecords({"a0", "a1", "a2"}));
  const std::string b = dir.Write("b.tfrecord.gz", Gzip(TFRecords({"b0", "b1"})));
  Scope root = Scope::NewRootScope();
  // One reader per compression type, each fed by its own producer.
  auto plain_files = StringInputProducer(root, {a}, Options().NumEpochs(2).Shuffle(false));
  auto gzip_files = StringInputProducer(root, {b}, Options().NumEpochs(2).Shuffle(false));
  auto plain_reader = ops::TFRecordReaderV2(root);
  auto gzip_reader = ops::TFRecordReaderV2(root, ops::TFRecordReaderV2::CompressionType("GZIP"));
  auto plain = ops::ReaderReadV2(root, plain_reader, plain_files.queue);
  auto gzip = ops::ReaderReadV2(root, gzip_reader, gzip_files.queue);
  AF_CHECK_OK(root.status());

  ClientSession session(root);
  AF_CHECK_OK(session.Run({}, {}, {LocalVariablesInitializer(root)}, nullptr));
  Coordinator coord;
  AF_CHECK_OK(plain_files.runner->Start(session, &coord));
  AF_CHECK_OK(gzip_files.runner->Start(session, &coord));

  for (auto [read, want] :
       {std::pair{plain, std::vector<std::string>{"a0", "a1", "a2", "a0", "a1", "a2"}},
        std::pair{gzip, std::vector<std::string>{"b0", "b1", "b0", "b1"}}}) {
    std::vector<std::vector<Tensor>> results;
    Status end = RunUntilEnd(session, {read.key, read.value}, &results);
    BOOST_CHECK_MESSAGE(end.code() == Code::OUT_OF_RANGE, end.ToString());
    std::vector<std::string> values;
    for (const auto& r : results) values.push_back(r[1].scalar<std::string>());
    BOOST_CHECK(values == want);
    // Still the end on the next try.
    std::vector<Tensor> out;
    BOOST_CHECK(session.Run({read.value}, &out).code() == Code::OUT_OF_RANGE);
  }
  // The runners ended on their own (CountUpTo reached the limit).
  AF_CHECK_OK(coord.Join(std::chrono::seconds(60)));
}

BOOST_AUTO_TEST_CASE(shuffled_epochs_cover_every_file_each_epoch) {
  ScratchDir dir;
  std::vector<std::string> files;
  for (int i = 0; i < 5; ++i)
    files.push_back(dir.Write("f" + std::to_string(i), "line of " + std::to_string(i) + "\n"));
  Scope root = Scope::NewRootScope();
  auto producer = StringInputProducer(root, files, Options().NumEpochs(3).Shuffle(true).Seed(7));
  auto reader = ops::TextLineReaderV2(root);
  auto read = ops::ReaderReadUpToV2(root, reader, producer.queue, int64_t{4});
  AF_CHECK_OK(root.status());
  ClientSession session(root);
  AF_CHECK_OK(session.Run({}, {}, {LocalVariablesInitializer(root)}, nullptr));
  Coordinator coord;
  AF_CHECK_OK(producer.runner->Start(session, &coord));
  std::vector<std::vector<Tensor>> results;
  Status end = RunUntilEnd(session, {read.values}, &results);
  BOOST_CHECK_MESSAGE(end.code() == Code::OUT_OF_RANGE, end.ToString());
  std::vector<std::string> lines;
  for (const auto& r : results)
    for (int64_t i = 0; i < r[0].NumElements(); ++i) lines.push_back(r[0].data<std::string>()[i]);
  BOOST_REQUIRE_EQUAL(lines.size(), 15u);
  for (int epoch = 0; epoch < 3; ++epoch) {  // the queue keeps epochs in order
    std::map<std::string, int> seen;
    for (int i = 0; i < 5; ++i) ++seen[lines[epoch * 5 + i]];
    BOOST_CHECK_EQUAL(seen.size(), 5u);
  }
  AF_CHECK_OK(coord.Join(std::chrono::seconds(60)));
}

BOOST_AUTO_TEST_CASE(corrupt_tfrecord_is_data_loss_through_a_session) {
  ScratchDir dir;
  std::string data = TFRecords({"fine", "damaged"});
  data[data.size() - 6] ^= 0x20;  // a payload byte of the second record
  const std::string f = dir.Write("bad.tfrecord", data);
  Scope root = Scope::NewRootScope();
  auto producer = StringInputProducer(root, {f}, Options().NumEpochs(1).Shuffle(false));
  auto reader = ops::TFRecordReaderV2(root);
  auto read = ops::ReaderReadV2(root, reader, producer.queue);
  ClientSession session(root);
  AF_CHECK_OK(session.Run({}, {}, {LocalVariablesInitializer(root)}, nullptr));
  Coordinator coord;
  AF_CHECK_OK(producer.runner->Start(session, &coord));
  std::vector<Tensor> out;
  AF_CHECK_OK(session.Run({read.value}, &out));
  BOOST_CHECK_EQUAL(out[0].scalar<std::string>(), "fine");
  Status s = session.Run({read.value}, &out);
  BOOST_CHECK_MESSAGE(s.code() == Code::DATA_LOSS, s.ToString());
  BOOST_CHECK_NE(s.message().find(f), std::string::npos);
  AF_CHECK_OK(coord.Join(std::chrono::seconds(60)));
}

// The Fashion-MNIST pipeline of docs/input-pipelines.md on a small gzipped IDX pair.
BOOST_AUTO_TEST_CASE(idx_images_and_labels_decoded_to_float_batches) {
  ScratchDir dir;
  const uint32_t n = 6;
  std::string images, labels;
  PutBigEndian32(0x00000803, &images);
  PutBigEndian32(n, &images);
  PutBigEndian32(28, &images);
  PutBigEndian32(28, &images);
  PutBigEndian32(0x00000801, &labels);
  PutBigEndian32(n, &labels);
  for (uint32_t i = 0; i < n; ++i) {
    for (int p = 0; p < 28 * 28; ++p) images.push_back(static_cast<char>((i * 40 + p) % 256));
    labels.push_back(static_cast<char>(i % 10));
  }
  const std::string image_file = dir.Write("images-idx3-ubyte.gz", Gzip(images));
  const std::string label_file = dir.Write("labels-idx1-ubyte.gz", Gzip(labels));

  Scope root = Scope::NewRootScope();
  auto image_files = StringInputProducer(root, {image_file}, Options().NumEpochs(1).Shuffle(false));
  auto label_files = StringInputProducer(root, {label_file}, Options().NumEpochs(1).Shuffle(false));
  auto image_reader = ops::IdxRecordReaderV2(root);
  auto label_reader = ops::IdxRecordReaderV2(root);
  auto image_records = ops::ReaderReadUpToV2(root, image_reader, image_files.queue, int64_t{4});
  auto label_records = ops::ReaderReadUpToV2(root, label_reader, label_files.queue, int64_t{4});
  auto pixels = ops::DecodeRaw(root, image_records.values, DT_UINT8);
  auto x = ops::Reshape(root, ops::Cast(root, pixels, DT_FLOAT), {-1, 28, 28});
  auto y = ops::Reshape(
      root, ops::Cast(root, ops::DecodeRaw(root, label_records.values, DT_UINT8), DT_INT32), {-1});
  AF_CHECK_OK(root.status());
  ClientSession session(root);
  AF_CHECK_OK(session.Run({}, {}, {LocalVariablesInitializer(root)}, nullptr));
  Coordinator coord;
  AF_CHECK_OK(image_files.runner->Start(session, &coord));
  AF_CHECK_OK(label_files.runner->Start(session, &coord));
  std::vector<std::vector<Tensor>> batches;
  Status end = RunUntilEnd(session, {x, y}, &batches);
  BOOST_CHECK_MESSAGE(end.code() == Code::OUT_OF_RANGE, end.ToString());
  BOOST_REQUIRE_EQUAL(batches.size(), 2u);  // 4 + 2 items
  uint32_t item = 0;
  for (const auto& batch : batches) {
    const Tensor& xs = batch[0];
    const Tensor& ys = batch[1];
    BOOST_REQUIRE_EQUAL(xs.dims(), 3);
    BOOST_REQUIRE_EQUAL(xs.dim_size(0), ys.NumElements());
    for (int64_t b = 0; b < xs.dim_size(0); ++b, ++item) {
      BOOST_CHECK_EQUAL(ys.data<int32_t>()[b], static_cast<int32_t>(item % 10));
      for (int p = 0; p < 28 * 28; p += 97)
        BOOST_CHECK_EQUAL(xs.data<float>()[b * 784 + p], static_cast<float>((item * 40 + p) % 256));
    }
  }
  BOOST_CHECK_EQUAL(item, n);
  AF_CHECK_OK(coord.Join(std::chrono::seconds(60)));
}

BOOST_AUTO_TEST_CASE(bad_options_go_to_the_scope) {
  Scope root = Scope::NewRootScope();
  StringInputProducer(root, std::vector<std::string>{});
  BOOST_CHECK(root.status().code() == Code::INVALID_ARGUMENT);
  Scope other = Scope::NewRootScope();
  StringInputProducer(other, {"x"}, Options().NumEpochs(-1));
  BOOST_CHECK(other.status().code() == Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
