// The checkpoint file: every dtype round-trips bit for bit, and truncated or
// corrupted files are DATA_LOSS, never a wrong tensor.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <complex>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/checkpoint_format.h"
#include "core/checkpoint_reader.h"
#include "core/checkpoint_writer.h"
#include "core/tensor.h"
#include "tests/core/checkpoint_test_util.h"

namespace af {
namespace {

using test::ReadBytes;
using test::ScratchDir;
using test::WriteBytes;

// A tensor whose bytes follow a pattern seeded by `seed`.
Tensor Patterned(DataType dtype, const TensorShape& shape, int seed) {
  Tensor t(dtype, shape);
  if (dtype == DT_STRING) {
    std::string* s = t.data<std::string>();
    for (int64_t i = 0; i < t.NumElements(); ++i)
      s[i] = std::string(static_cast<size_t>((i * 7 + seed) % 13), static_cast<char>('a' + i % 26)) +
             std::string(1, '\0') + std::to_string(i);
    return t;
  }
  auto* bytes = static_cast<unsigned char*>(t.raw_data());
  for (size_t i = 0; i < t.TotalBytes(); ++i) bytes[i] = static_cast<unsigned char>(i * 31 + seed);
  if (dtype == DT_BOOL)
    for (size_t i = 0; i < t.TotalBytes(); ++i) bytes[i] &= 1;
  return t;
}

bool SameTensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.dtype() == DT_STRING) {
    for (int64_t i = 0; i < a.NumElements(); ++i)
      if (a.data<std::string>()[i] != b.data<std::string>()[i]) return false;
    return true;
  }
  return a.TotalBytes() == b.TotalBytes() &&
         (a.TotalBytes() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0);
}

const std::vector<DataType> kAllDtypes = {
    DT_FLOAT,  DT_DOUBLE, DT_INT32,  DT_UINT8,  DT_INT16,  DT_INT8,   DT_STRING,
    DT_COMPLEX64, DT_INT64, DT_BOOL, DT_QINT8,  DT_QUINT8, DT_QINT32, DT_BFLOAT16,
    DT_QINT16, DT_QUINT16, DT_UINT16, DT_COMPLEX128, DT_HALF, DT_UINT32, DT_UINT64};

Status WriteCheckpoint(const std::string& file, const std::vector<std::pair<std::string, Tensor>>& tensors) {
  std::unique_ptr<CheckpointWriter> writer;
  AF_RETURN_IF_ERROR(CheckpointWriter::Create(file, &writer));
  for (const auto& [name, t] : tensors) AF_RETURN_IF_ERROR(writer->Add(name, t));
  return writer->Finish();
}

// Opens and reads every tensor: the first failure.
Status ReadAll(const std::string& file) {
  std::unique_ptr<CheckpointReader> reader;
  AF_RETURN_IF_ERROR(CheckpointReader::Open(file, &reader));
  return reader->VerifyAll();
}

BOOST_AUTO_TEST_SUITE(checkpoint_format)

BOOST_AUTO_TEST_CASE(every_dtype_round_trips_exactly) {
  ScratchDir dir;
  std::vector<std::pair<std::string, Tensor>> saved;
  int seed = 0;
  for (DataType dt : kAllDtypes) {
    for (const TensorShape& shape :
         {TensorShape{}, TensorShape{5}, TensorShape{3, 4, 2}, TensorShape{0, 3}}) {
      saved.emplace_back(DataTypeString(dt) + "/" + shape.DebugString(),
                         Patterned(dt, shape, ++seed));
    }
  }
  const std::string file = dir / "all.afckpt";
  BOOST_REQUIRE(WriteCheckpoint(file, saved).ok());

  std::unique_ptr<CheckpointReader> reader;
  Status s = CheckpointReader::Open(file, &reader);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  BOOST_TEST(reader->entries().size() == saved.size());
  BOOST_TEST(std::is_sorted(reader->entries().begin(), reader->entries().end(),
                            [](const auto& a, const auto& b) { return a.name < b.name; }));
  for (const auto& [name, want] : saved) {
    BOOST_TEST_CONTEXT(name) {
      const checkpoint::TensorEntry* e = reader->Find(name);
      BOOST_REQUIRE(e != nullptr);
      BOOST_TEST(e->dtype == want.dtype());
      BOOST_TEST(e->offset % checkpoint::kDataAlignment == 0u);
      Tensor got;
      s = reader->Read(*e, nullptr, &got);
      BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
      BOOST_TEST(SameTensor(got, want));
    }
  }
  Tensor t;
  s = reader->Read("no/such/tensor", &t);
  BOOST_TEST(s.code() == Code::NOT_FOUND);
  BOOST_TEST(s.message().find("no/such/tensor") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(special_float_values_keep_their_bits) {
  ScratchDir dir;
  Tensor f = Tensor::FromVector<float>({0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                                        -std::numeric_limits<float>::infinity(),
                                        std::numeric_limits<float>::quiet_NaN(),
                                        std::numeric_limits<float>::denorm_min()});
  const std::string file = dir / "f.afckpt";
  BOOST_REQUIRE(WriteCheckpoint(file, {{"f", f}}).ok());
  std::unique_ptr<CheckpointReader> reader;
  BOOST_REQUIRE(CheckpointReader::Open(file, &reader).ok());
  Tensor got;
  BOOST_REQUIRE(reader->Read("f", &got).ok());
  BOOST_TEST(SameTensor(got, f));
}

BOOST_AUTO_TEST_CASE(an_empty_checkpoint_is_valid) {
  ScratchDir dir;
  const std::string file = dir / "empty.afckpt";
  BOOST_REQUIRE(WriteCheckpoint(file, {}).ok());
  std::unique_ptr<CheckpointReader> reader;
  BOOST_REQUIRE(CheckpointReader::Open(file, &reader).ok());
  BOOST_TEST(reader->entries().empty());
}

BOOST_AUTO_TEST_CASE(writer_rejects_bad_tensors) {
  ScratchDir dir;
  std::unique_ptr<CheckpointWriter> writer;
  BOOST_REQUIRE(CheckpointWriter::Create(dir / "x.afckpt", &writer).ok());
  BOOST_REQUIRE(writer->Add("a", Tensor::Scalar<float>(1)).ok());
  BOOST_TEST(writer->Add("a", Tensor::Scalar<float>(2)).code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(writer->Add("", Tensor::Scalar<float>(2)).code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(writer->Add("r", Tensor(DT_RESOURCE, TensorShape{}, BufferRef())).code() ==
             Code::INVALID_ARGUMENT);
  BOOST_TEST(writer->Add("u", Tensor(DT_FLOAT, TensorShape{2}, BufferRef())).code() ==
             Code::INVALID_ARGUMENT);
  BOOST_TEST(writer->Finish().ok());  // what was added is fine
}

// Writes a checkpoint with a few tensors and returns its bytes.
std::string SampleCheckpoint(const ScratchDir& dir, const std::string& file) {
  BOOST_REQUIRE(WriteCheckpoint(file, {{"w", Patterned(DT_FLOAT, {8, 8}, 1)},
                                       {"names", Patterned(DT_STRING, {5}, 2)},
                                       {"step", Tensor::Scalar<int64_t>(1234)}})
                    .ok());
  return ReadBytes(file);
}

BOOST_AUTO_TEST_CASE(every_truncation_is_data_loss) {
  ScratchDir dir;
  const std::string file = dir / "t.afckpt";
  const std::string bytes = SampleCheckpoint(dir, file);
  for (size_t len = 0; len < bytes.size(); ++len) {
    WriteBytes(file, bytes.substr(0, len));
    Status s = ReadAll(file);
    BOOST_TEST_CONTEXT("truncated to " << len << " of " << bytes.size() << " bytes: " << s) {
      BOOST_TEST(s.code() == Code::DATA_LOSS);
      BOOST_TEST(s.message().find(file) != std::string::npos);
    }
  }
  // Appended garbage moves the footer: also detected.
  WriteBytes(file, bytes + "junk");
  BOOST_TEST(ReadAll(file).code() == Code::DATA_LOSS);
}

BOOST_AUTO_TEST_CASE(every_flipped_byte_outside_padding_is_data_loss) {
  ScratchDir dir;
  const std::string file = dir / "c.afckpt";
  const std::string bytes = SampleCheckpoint(dir, file);
  // Padding between tensors carries no information; every other byte does.
  std::unique_ptr<CheckpointReader> reader;
  BOOST_REQUIRE(CheckpointReader::Open(file, &reader).ok());
  std::vector<bool> meaningful(bytes.size(), false);
  for (size_t i = 0; i < checkpoint::kHeaderSize; ++i) meaningful[i] = true;
  uint64_t data_end = 0;
  for (const auto& e : reader->entries()) {
    for (uint64_t i = e.offset; i < e.offset + e.size; ++i) meaningful[i] = true;
    data_end = std::max(data_end, e.offset + e.size);
  }
  for (size_t i = data_end; i < bytes.size(); ++i) meaningful[i] = true;
  reader.reset();

  int flipped = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (!meaningful[i]) continue;
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    WriteBytes(file, bad);
    Status s = ReadAll(file);
    BOOST_TEST_CONTEXT("byte " << i << ": " << s) { BOOST_TEST(s.code() == Code::DATA_LOSS); }
    ++flipped;
  }
  BOOST_TEST(flipped > 300);
}

BOOST_AUTO_TEST_CASE(corrupt_tensor_fails_only_when_read_and_names_it) {
  ScratchDir dir;
  const std::string file = dir / "one.afckpt";
  std::string bytes = SampleCheckpoint(dir, file);
  std::unique_ptr<CheckpointReader> reader;
  BOOST_REQUIRE(CheckpointReader::Open(file, &reader).ok());
  const checkpoint::TensorEntry w = *reader->Find("w");
  reader.reset();
  bytes[w.offset + 5] ^= 0x01;
  WriteBytes(file, bytes);
  BOOST_REQUIRE(CheckpointReader::Open(file, &reader).ok());  // the index is fine
  Tensor t;
  BOOST_TEST(reader->Read("step", &t).ok());
  Status s = reader->Read("w", &t);
  BOOST_TEST(s.code() == Code::DATA_LOSS);
  BOOST_TEST(s.message().find("'w'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(foreign_files_are_not_checkpoints) {
  ScratchDir dir;
  const std::string file = dir / "text";
  WriteBytes(file, "model_checkpoint_path: \"model.ckpt-1\"\n and some more text to pass the minimum size");
  Status s = ReadAll(file);
  BOOST_TEST(s.code() == Code::DATA_LOSS);
  BOOST_TEST(s.message().find("not an actorflow checkpoint") != std::string::npos);
  BOOST_TEST(ReadAll(dir / "missing").code() == Code::NOT_FOUND);
}

BOOST_AUTO_TEST_CASE(prefixes_resolve_to_their_file) {
  ScratchDir dir;
  BOOST_REQUIRE(WriteCheckpoint(checkpoint::DataFilePath(dir / "model"), {}).ok());
  BOOST_REQUIRE(WriteCheckpoint(dir / "v1_file", {}).ok());
  std::string file;
  BOOST_REQUIRE(ResolveCheckpointFile(dir / "model", &file).ok());
  BOOST_TEST(file == dir / "model.afckpt");
  BOOST_REQUIRE(ResolveCheckpointFile(dir / "v1_file", &file).ok());
  BOOST_TEST(file == dir / "v1_file");
  Status s = ResolveCheckpointFile(dir / "nothing", &file);
  BOOST_TEST(s.code() == Code::NOT_FOUND);
  BOOST_TEST(s.message().find("nothing.afckpt") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
