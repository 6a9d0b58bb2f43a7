// IdxRecordReader (Actorflow extension): MNIST-style IDX files, gzipped or
// not, written by the test; damaged files as DATA_LOSS naming the file; and
// the real Fashion-MNIST labels when the Debian dataset package is there.
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/kernels/reader_test_util.h"
#include "tests/record_file_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using testing::PutBigEndian32;

// An idx3-ubyte file of `n` rows x cols images; pixel (i, r, c) = i*31 + r*7 + c.
std::string Images(uint32_t n, uint32_t rows, uint32_t cols) {
  std::string out;
  PutBigEndian32(0x00000803, &out);
  PutBigEndian32(n, &out);
  PutBigEndian32(rows, &out);
  PutBigEndian32(cols, &out);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < cols; ++c)
        out.push_back(static_cast<char>((i * 31 + r * 7 + c) & 0xff));
  return out;
}

std::string Labels(const std::vector<uint8_t>& labels) {
  std::string out;
  PutBigEndian32(0x00000801, &out);
  PutBigEndian32(static_cast<uint32_t>(labels.size()), &out);
  for (uint8_t l : labels) out.push_back(static_cast<char>(l));
  return out;
}

using testing::Mentions;

BOOST_AUTO_TEST_SUITE(reader_idx)

BOOST_AUTO_TEST_CASE(gzipped_image_and_label_pair) {
  ReaderScratchDir dir;
  const uint32_t n = 5, rows = 28, cols = 28;
  const std::string images = dir.File("train-images-idx3-ubyte.gz");
  const std::string labels = dir.File("train-labels-idx1-ubyte.gz");
  WriteFile(images, Compress(Images(n, rows, cols), true));
  WriteFile(labels, Compress(Labels({9, 0, 3, 7, 1}), true));

  QueueFixture image_queue({images});
  ReaderFixture image_reader("IdxRecordReaderV2", "images");
  AF_REQUIRE_OK(image_reader.Make());
  Status end;
  auto image_records = ReadAll(image_reader.handle(), image_queue.Handle(), &end);
  BOOST_CHECK_MESSAGE(errors::IsOutOfRange(end), end.ToString());
  BOOST_REQUIRE_EQUAL(image_records.size(), n);
  for (uint32_t i = 0; i < n; ++i) {
    BOOST_CHECK_EQUAL(image_records[i].key, images + ":" + std::to_string(i));
    const std::string& v = image_records[i].value;
    BOOST_REQUIRE_EQUAL(v.size(), rows * cols);
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < cols; ++c)
        BOOST_CHECK_EQUAL(static_cast<uint8_t>(v[r * cols + c]), (i * 31 + r * 7 + c) & 0xff);
  }

  QueueFixture label_queue({labels}, true, "idx_label_queue");
  ReaderFixture label_reader("IdxRecordReaderV2", "labels");
  AF_REQUIRE_OK(label_reader.Make());
  auto label_records = ReadAll(label_reader.handle(), label_queue.Handle(), &end);
  std::vector<int> got;
  for (const auto& r : label_records) {
    BOOST_REQUIRE_EQUAL(r.value.size(), 1u);
    got.push_back(static_cast<uint8_t>(r.value[0]));
  }
  BOOST_CHECK(got == (std::vector<int>{9, 0, 3, 7, 1}));

  // DecodeRaw turns an image record into its 784 pixels.
  KernelRunner decode("DecodeRaw");
  decode.Attr("out_type", DT_UINT8).Input(Tensor::Scalar<std::string>(image_records[1].value));
  auto decoded = decode.Run();
  AF_REQUIRE_OK(decoded.status());
  BOOST_CHECK_EQUAL(decoded.value()[0].NumElements(), rows * cols);
  BOOST_CHECK_EQUAL(decoded.value()[0].data<uint8_t>()[7 * cols + 3], (31 + 7 * 7 + 3) & 0xff);
}

BOOST_AUTO_TEST_CASE(plain_and_gzip_detected_by_magic) {
  ReaderScratchDir dir;
  const std::string plain = dir.File("labels-idx1-ubyte");
  const std::string gzip_no_suffix = dir.File("labels-compressed");
  WriteFile(plain, Labels({4, 2}));
  WriteFile(gzip_no_suffix, Compress(Labels({8}), true));
  QueueFixture queue({plain, gzip_no_suffix});
  ReaderFixture reader("IdxRecordReaderV2");
  AF_REQUIRE_OK(reader.Make());
  Status end;
  auto records = ReadAll(reader.handle(), queue.Handle(), &end);
  BOOST_CHECK(errors::IsOutOfRange(end));
  BOOST_REQUIRE_EQUAL(records.size(), 3u);
  BOOST_CHECK_EQUAL(records[2].value, std::string(1, '\x08'));
  BOOST_CHECK_EQUAL(records[2].key, gzip_no_suffix + ":0");
}

BOOST_AUTO_TEST_CASE(damaged_files_are_data_loss_naming_the_file) {
  ReaderScratchDir dir;
  const std::string good_images = Images(3, 4, 4);
  struct Case {
    std::string name, contents;
    size_t records_before;  // records read before the error
  };
  std::string bad_magic = Labels({1, 2});
  bad_magic[2] = 0x07;  // no such element type
  std::string trailing = Labels({1, 2}) + "x";
  const std::vector<Case> cases = {
      {"bad-magic", bad_magic, 0},
      {"json-not-idx", "{\"a\": 1}", 0},
      {"short-header", good_images.substr(0, 10), 0},
      {"truncated-data", good_images.substr(0, good_images.size() - 5), 2},
      {"trailing-bytes", trailing, 2},
      {"truncated.gz", Compress(good_images, true).substr(0, 20), 0},
      {"not-gzip.gz", good_images, 0},  // named .gz but not gzip data
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      const std::string f = dir.File(c.name);
      WriteFile(f, c.contents);
      QueueFixture queue({f});
      ReaderFixture reader("IdxRecordReaderV2", "idx_" + std::to_string(&c - cases.data()));
      AF_REQUIRE_OK(reader.Make());
      Status end;
      auto records = ReadAll(reader.handle(), queue.Handle(), &end);
      BOOST_CHECK_EQUAL(records.size(), c.records_before);
      BOOST_CHECK_MESSAGE(errors::IsDataLoss(end), end.ToString());
      BOOST_CHECK_MESSAGE(Mentions(end, f), end.ToString());
    }
  }
}

// The Debian package dataset-fashion-mnist; skipped when absent.
BOOST_AUTO_TEST_CASE(fashion_mnist_labels_if_installed) {
  const std::string labels = "/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz";
  const std::string images = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz";
  if (!std::filesystem::exists(labels) || !std::filesystem::exists(images)) {
    BOOST_TEST_MESSAGE("Fashion-MNIST not installed; skipping");
    return;
  }
  QueueFixture queue({labels});
  ReaderFixture reader("IdxRecordReaderV2", "fashion_labels");
  AF_REQUIRE_OK(reader.Make());
  KernelRunner read("ReaderReadUpToV2", "read_labels");
  read.Input(reader.handle()).Input(queue.Handle()).Input(Tensor::Scalar<int64_t>(10));
  auto out = read.Run();
  AF_REQUIRE_OK(out.status());
  const Tensor& values = out.value()[1];
  BOOST_REQUIRE_EQUAL(values.NumElements(), 10);
  // The first training labels of Fashion-MNIST: ankle boot, T-shirt, T-shirt,
  // dress, T-shirt, pullover, sneaker, pullover, sandal, sandal.
  const std::vector<int> first = {9, 0, 0, 3, 0, 2, 7, 2, 5, 5};
  for (int i = 0; i < 10; ++i) {
    BOOST_REQUIRE_EQUAL(values.data<std::string>()[i].size(), 1u);
    BOOST_CHECK_EQUAL(static_cast<uint8_t>(values.data<std::string>()[i][0]), first[i]);
  }
  BOOST_CHECK_EQUAL(out.value()[0].data<std::string>()[3], labels + ":3");

  QueueFixture image_queue({images}, true, "fashion_image_queue");
  ReaderFixture image_reader("IdxRecordReaderV2", "fashion_images");
  AF_REQUIRE_OK(image_reader.Make());
  auto image = ReadRecord(image_reader.handle(), image_queue.Handle());
  AF_REQUIRE_OK(image.status());
  BOOST_CHECK_EQUAL(image.value().value.size(), 28u * 28u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
