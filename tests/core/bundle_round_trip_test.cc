// Tensor bundles written and read here: every dtype bit for bit (strings
// and empty tensors included), slices, a sharded save merged as
// TensorFlow's MergeV2Checkpoints does, and damage reported as DATA_LOSS
// naming the tensor and the file.
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/bundle/bundle_format.h"
#include "core/bundle/bundle_merge.h"
#include "core/bundle/bundle_reader.h"
#include "core/bundle/bundle_writer.h"
#include "core/checkpoint_reader.h"
#include "core/checkpoint_shards.h"
#include "core/checkpoint_slices.h"
#include "tests/core/checkpoint_test_util.h"

namespace af::bundle {
namespace {

using test::ReadBytes;
using test::ScratchDir;
using test::WriteBytes;

const DataType kFixedTypes[] = {DT_FLOAT,  DT_DOUBLE,     DT_INT32, DT_UINT8,  DT_INT16,
                                DT_INT8,   DT_COMPLEX64,  DT_INT64, DT_BOOL,   DT_BFLOAT16,
                                DT_UINT16, DT_COMPLEX128, DT_HALF,  DT_UINT32, DT_UINT64};

Tensor Patterned(DataType dtype, const TensorShape& shape, int seed) {
  Tensor t(dtype, shape);
  auto* bytes = static_cast<unsigned char*>(t.raw_data());
  for (size_t i = 0; i < t.TotalBytes(); ++i)
    bytes[i] = dtype == DT_BOOL ? static_cast<unsigned char>((i + seed) % 2)
                                : static_cast<unsigned char>(i * 31 + seed * 7);
  return t;
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.TotalBytes() == b.TotalBytes() &&
         (a.TotalBytes() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0);
}

std::unique_ptr<CheckpointReader> OpenIndex(const std::string& prefix) {
  std::unique_ptr<CheckpointReader> reader;
  Status s = CheckpointReader::Open(MetaFilename(prefix), &reader);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return reader;
}

BOOST_AUTO_TEST_SUITE(bundle_round_trip)

BOOST_AUTO_TEST_CASE(every_dtype_bit_exact) {
  ScratchDir dir;
  const std::string prefix = dir / "all";
  std::unique_ptr<BundleWriter> writer;
  BOOST_TEST_REQUIRE(BundleWriter::Create(prefix, &writer).ok());
  std::vector<std::pair<std::string, Tensor>> saved;
  int seed = 0;
  for (DataType dtype : kFixedTypes) {
    const std::string name = DataTypeString(dtype);
    saved.emplace_back(name, Patterned(dtype, TensorShape{3, 5}, ++seed));
    saved.emplace_back(name + "/empty", Tensor(dtype, TensorShape{0, 4}));
    saved.emplace_back(name + "/scalar", Patterned(dtype, TensorShape{}, ++seed));
  }
  Tensor strings(DT_STRING, TensorShape{2, 3});
  const std::string values[] = {
      "", "a", std::string(200, 'x'), std::string("\0\xff\n", 3), std::string(70000, 'y'), "z"};
  for (int i = 0; i < 6; ++i) strings.data<std::string>()[i] = values[i];
  saved.emplace_back("strings", strings);
  saved.emplace_back("strings/empty", Tensor(DT_STRING, TensorShape{0}));
  saved.emplace_back("strings/scalar", Tensor::Scalar<std::string>("only"));
  for (const auto& [name, t] : saved) {
    Status s = writer->Add(name, t);
    BOOST_TEST_REQUIRE(s.ok(), name << ": " << s.ToString());
  }
  BOOST_TEST(writer->Add("strings", strings).code() == Code::INVALID_ARGUMENT);  // twice
  BOOST_TEST_REQUIRE(writer->Finish().ok());
  BOOST_TEST(std::filesystem::exists(prefix + ".data-00000-of-00001"));

  auto reader = OpenIndex(prefix);
  BOOST_TEST(reader->entries().size() == saved.size());
  for (const auto& [name, want] : saved) {
    Tensor got;
    Status s = reader->Read(name, &got);
    BOOST_TEST_REQUIRE(s.ok(), name << ": " << s.ToString());
    if (want.dtype() == DT_STRING) {
      BOOST_TEST_REQUIRE(got.shape() == want.shape());
      for (int64_t i = 0; i < want.NumElements(); ++i)
        BOOST_TEST(got.data<std::string>()[i] == want.data<std::string>()[i]);
    } else {
      BOOST_TEST(SameBytes(got, want), name);
    }
  }
}

BOOST_AUTO_TEST_CASE(flipped_data_byte_is_data_loss_naming_the_tensor) {
  ScratchDir dir;
  const std::string prefix = dir / "m";
  std::unique_ptr<BundleWriter> writer;
  BOOST_TEST_REQUIRE(BundleWriter::Create(prefix, &writer).ok());
  BOOST_TEST_REQUIRE(writer->Add("first", Patterned(DT_FLOAT, TensorShape{4}, 1)).ok());
  BOOST_TEST_REQUIRE(writer->Add("words", Tensor::FromVector<std::string>({"ab", "cde"})).ok());
  BOOST_TEST_REQUIRE(writer->Finish().ok());
  const std::string data_file = prefix + ".data-00000-of-00001";
  const std::string data = ReadBytes(data_file);
  for (size_t i = 0; i < data.size(); ++i) {
    std::string bad = data;
    bad[i] = static_cast<char>(bad[i] ^ 0x04);
    WriteBytes(data_file, bad);
    auto reader = OpenIndex(prefix);
    const std::string victim = i < 16 ? "first" : "words";
    Tensor t;
    Status s = reader->Read(victim, &t);
    BOOST_TEST(s.code() == Code::DATA_LOSS, "byte " << i);
    BOOST_TEST(s.message().find("'" + victim + "'") != std::string::npos, s.ToString());
    BOOST_TEST(s.message().find(data_file) != std::string::npos, s.ToString());
  }
  // A data file cut short: the tensors past the end are DATA_LOSS.
  WriteBytes(data_file, data.substr(0, 10));
  Tensor t;
  Status s = OpenIndex(prefix)->Read("words", &t);
  BOOST_TEST(s.code() == Code::DATA_LOSS);
  BOOST_TEST(s.message().find("truncated") != std::string::npos, s.ToString());
}

BOOST_AUTO_TEST_CASE(truncated_or_missing_index) {
  ScratchDir dir;
  const std::string prefix = dir / "m";
  std::unique_ptr<BundleWriter> writer;
  BOOST_TEST_REQUIRE(BundleWriter::Create(prefix, &writer).ok());
  BOOST_TEST_REQUIRE(writer->Add("v", Patterned(DT_INT32, TensorShape{8}, 3)).ok());
  BOOST_TEST_REQUIRE(writer->Finish().ok());
  const std::string index = ReadBytes(prefix + ".index");
  for (size_t cut : {size_t{0}, size_t{10}, index.size() / 2, index.size() - 1}) {
    WriteBytes(prefix + ".index", index.substr(0, cut));
    std::unique_ptr<BundleReader> reader;
    Status s = BundleReader::Open(prefix, &reader);
    BOOST_TEST(s.code() == Code::DATA_LOSS, "cut at " << cut);
    BOOST_TEST(s.message().find(prefix + ".index") != std::string::npos, s.ToString());
  }
  std::unique_ptr<BundleReader> reader;
  BOOST_TEST(BundleReader::Open(dir / "nothing", &reader).code() == Code::NOT_FOUND);
  // A writer dropped before Finish leaves nothing.
  BOOST_TEST_REQUIRE(BundleWriter::Create(dir / "dropped", &writer).ok());
  BOOST_TEST_REQUIRE(writer->Add("v", Patterned(DT_INT32, TensorShape{8}, 3)).ok());
  writer.reset();
  BOOST_TEST(!std::filesystem::exists(dir / "dropped.index"));
  BOOST_TEST(!std::filesystem::exists(dir / "dropped.data-00000-of-00001"));
}

BOOST_AUTO_TEST_CASE(slices_round_trip_with_tensorflows_keys) {
  ScratchDir dir;
  const std::string prefix = dir / "p";
  std::unique_ptr<BundleWriter> writer;
  BOOST_TEST_REQUIRE(BundleWriter::Create(prefix, &writer).ok());
  // Rows 0..1 and 2..4 of a [5, 2] float tensor.
  TensorSliceSpec top, bottom;
  BOOST_TEST_REQUIRE(ParseTensorSliceSpec("5 2 0,2:-", &top).ok());
  BOOST_TEST_REQUIRE(ParseTensorSliceSpec("5 2 2,3:-", &bottom).ok());
  Tensor a = Tensor::FromVector<float>({0, 1, 2, 3}, TensorShape{2, 2});
  Tensor b = Tensor::FromVector<float>({4, 5, 6, 7, 8, 9}, TensorShape{3, 2});
  BOOST_TEST_REQUIRE(writer->AddSlice("emb", top, a).ok());
  BOOST_TEST_REQUIRE(writer->AddSlice("emb", bottom, b).ok());
  BOOST_TEST(writer->AddSlice("emb", top, a).code() == Code::INVALID_ARGUMENT);
  BOOST_TEST_REQUIRE(writer->Finish().ok());

  // The slice key is TensorFlow's EncodeTensorNameSlice: OrderedCode 0,
  // "emb" escaped and terminated, rank 2, then signed starts and lengths.
  tensorflow::BundleHeaderProto header;
  std::vector<IndexEntry> raw;
  BOOST_TEST_REQUIRE(ReadIndex(prefix, &header, &raw).ok());
  BOOST_TEST_REQUIRE(raw.size() == 3u);
  const std::string key_top = std::string("\x00"
                                          "emb"
                                          "\x00\x01"
                                          "\x01\x02"
                                          "\x80\x82\x80\x82",
                                          12);
  BOOST_TEST((raw[0].first == key_top));
  BOOST_TEST(raw[2].first == "emb");
  BOOST_TEST(raw[2].second.slices_size() == 2);
  BOOST_TEST(raw[2].second.size() == 0);

  std::unique_ptr<CheckpointSet> set;
  BOOST_TEST_REQUIRE(CheckpointSet::Open(prefix, &set).ok());
  SliceRestorePlan plan;
  Status s = PlanSliceRestore(*set, "emb", "", DT_FLOAT, &plan);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  Tensor whole;
  BOOST_TEST_REQUIRE(ExecuteSliceRestore(plan, nullptr, &whole).ok());
  BOOST_TEST(whole.shape() == (TensorShape{5, 2}));
  for (int i = 0; i < 10; ++i) BOOST_TEST(whole.data<float>()[i] == static_cast<float>(i));
  // Any region of the whole, across the two slices.
  BOOST_TEST_REQUIRE(PlanSliceRestore(*set, "emb", "5 2 1,2:1,1", DT_FLOAT, &plan).ok());
  Tensor part;
  BOOST_TEST_REQUIRE(ExecuteSliceRestore(plan, nullptr, &part).ok());
  BOOST_TEST(part.data<float>()[0] == 3.0f);
  BOOST_TEST(part.data<float>()[1] == 5.0f);
}

BOOST_AUTO_TEST_CASE(sharded_save_merged_like_merge_v2_checkpoints) {
  ScratchDir dir;
  const std::string dest = dir / "model.ckpt-7";
  std::vector<std::string> parts;
  for (int i = 0; i < 3; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "model.ckpt-7_temp/part-%05d-of-00003", i);
    parts.push_back(dir / name);
    std::filesystem::create_directories(dir / "model.ckpt-7_temp");
    std::unique_ptr<BundleWriter> writer;
    BOOST_TEST_REQUIRE(BundleWriter::Create(parts.back(), &writer).ok());
    BOOST_TEST_REQUIRE(
        writer->Add("var" + std::to_string(i), Patterned(DT_INT64, TensorShape{i + 1}, i)).ok());
    TensorSliceSpec slice;
    BOOST_TEST_REQUIRE(ParseTensorSliceSpec("3 " + std::to_string(i) + ",1", &slice).ok());
    BOOST_TEST_REQUIRE(writer->AddSlice("part", slice, Tensor::FromVector<float>({1.0f * i})).ok());
    BOOST_TEST_REQUIRE(writer->Finish().ok());
  }
  std::vector<std::string> with_missing = parts;
  with_missing.push_back(dir / "absent");
  BOOST_TEST(MergeBundles(with_missing, dest, true, false).code() == Code::NOT_FOUND);
  Status s = MergeBundles(with_missing, dest, true, /*allow_missing_files=*/true);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(!std::filesystem::exists(dir / "model.ckpt-7_temp"));
  for (int i = 0; i < 3; ++i) BOOST_TEST(std::filesystem::exists(DataFilename(dest, i, 3)));
  auto reader = OpenIndex(dest);
  BOOST_TEST(reader->bundle()->num_shards() == 3);
  for (int i = 0; i < 3; ++i) {
    Tensor t;
    BOOST_TEST_REQUIRE(reader->Read("var" + std::to_string(i), &t).ok());
    BOOST_TEST(SameBytes(t, Patterned(DT_INT64, TensorShape{i + 1}, i)));
  }
  std::unique_ptr<CheckpointSet> set;
  BOOST_TEST_REQUIRE(CheckpointSet::Open(dest, &set).ok());
  SliceRestorePlan plan;
  BOOST_TEST_REQUIRE(PlanSliceRestore(*set, "part", "", DT_FLOAT, &plan).ok());
  Tensor whole;
  BOOST_TEST_REQUIRE(ExecuteSliceRestore(plan, nullptr, &whole).ok());
  BOOST_TEST(whole.data<float>()[2] == 2.0f);
  std::vector<std::string> files;
  BOOST_TEST_REQUIRE(CheckpointFiles(dest, &files).ok());
  BOOST_TEST(files.size() == 4u);

  // Two inputs saving one tensor is an error.
  std::unique_ptr<BundleWriter> writer;
  for (const char* p : {"x1", "x2"}) {
    BOOST_TEST_REQUIRE(BundleWriter::Create(dir / p, &writer).ok());
    BOOST_TEST_REQUIRE(writer->Add("same", Patterned(DT_INT8, TensorShape{1}, 0)).ok());
    BOOST_TEST_REQUIRE(writer->Finish().ok());
  }
  s = MergeBundles({dir / "x1", dir / "x2"}, dir / "x", false, false);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("same") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::bundle
