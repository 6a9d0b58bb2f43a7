// Seeded mutations of real (TensorFlow's) and written .index files through
// the bundle reader and every tensor read: each must end in OK or a
// Status, never a crash, a hang or an absurd allocation.
#include <boost/test/unit_test.hpp>

#include <memory>
#include <random>
#include <string>

#include "core/bundle/bundle_reader.h"
#include "core/bundle/bundle_writer.h"
#include "core/bundle/table.h"
#include "core/checkpoint_reader.h"
#include "tests/core/checkpoint_test_util.h"

namespace af::bundle {
namespace {

using test::ReadBytes;
using test::ScratchDir;
using test::WriteBytes;

std::string Mutate(const std::string& in, std::mt19937& rng) {
  std::string out = in;
  switch (rng() % 5) {
    case 0:  // flip bits
      for (int i = 0, n = 1 + static_cast<int>(rng() % 4); i < n && !out.empty(); ++i)
        out[rng() % out.size()] ^= static_cast<char>(1u << (rng() % 8));
      break;
    case 1:  // truncate
      out.resize(rng() % (out.size() + 1));
      break;
    case 2:  // random byte values
      for (int i = 0, n = 1 + static_cast<int>(rng() % 8); i < n && !out.empty(); ++i)
        out[rng() % out.size()] = static_cast<char>(rng());
      break;
    case 3: {  // duplicate a span
      if (out.empty()) break;
      const size_t at = rng() % out.size();
      out.insert(at, out.substr(at, rng() % 32));
      break;
    }
    default:  // delete a span
      if (!out.empty()) out.erase(rng() % out.size(), rng() % 16);
  }
  return out;
}

void FuzzIndex(const std::string& source_prefix, int rounds, unsigned seed) {
  ScratchDir dir;
  const std::string prefix = dir / "f";
  const std::string index = ReadBytes(source_prefix + ".index");
  WriteBytes(prefix + ".data-00000-of-00001", ReadBytes(source_prefix + ".data-00000-of-00001"));
  std::mt19937 rng(seed);
  int opened = 0;
  for (int i = 0; i < rounds; ++i) {
    WriteBytes(prefix + ".index", Mutate(index, rng));
    std::unique_ptr<CheckpointReader> reader;
    Status s = CheckpointReader::Open(prefix + ".index", &reader);
    if (!s.ok()) {
      BOOST_TEST(s.code() != Code::OK);
      continue;
    }
    ++opened;
    for (const auto& e : reader->entries()) {
      Tensor t;
      (void)reader->Read(e, nullptr, &t);
    }
  }
  BOOST_TEST_MESSAGE(source_prefix << ": " << opened << " of " << rounds << " mutants opened");
}

// Mutates the records, not the bytes: the table is rebuilt with valid
// checksums, so the mutants reach proto parsing, entry validation and the
// tensor reads (bad offsets, sizes, shards, shapes, slices).
void FuzzRecords(const std::string& source_prefix, int rounds, unsigned seed) {
  ScratchDir dir;
  const std::string prefix = dir / "r";
  std::vector<KeyValue> records;
  BOOST_TEST_REQUIRE(ReadTable(ReadBytes(source_prefix + ".index"), &records).ok());
  WriteBytes(prefix + ".data-00000-of-00001", ReadBytes(source_prefix + ".data-00000-of-00001"));
  std::mt19937 rng(seed);
  int read_ok = 0;
  for (int i = 0; i < rounds; ++i) {
    std::vector<KeyValue> mutant = records;
    const size_t victim = rng() % mutant.size();
    if (rng() % 8 == 0) {
      mutant.erase(mutant.begin() + static_cast<std::ptrdiff_t>(victim));
    } else {
      mutant[victim].second = Mutate(mutant[victim].second, rng);
    }
    TableBuilder builder;
    for (const auto& [k, v] : mutant) builder.Add(k, v);
    WriteBytes(prefix + ".index", builder.Finish());
    std::unique_ptr<CheckpointReader> reader;
    if (!CheckpointReader::Open(prefix + ".index", &reader).ok()) continue;
    for (const auto& e : reader->entries()) {
      Tensor t;
      read_ok += reader->Read(e, nullptr, &t).ok();
    }
  }
  BOOST_TEST_MESSAGE(source_prefix << ": " << read_ok << " tensors read from record mutants");
}

BOOST_AUTO_TEST_SUITE(bundle_fuzz)

BOOST_AUTO_TEST_CASE(mutated_records_with_valid_checksums) {
  const std::string base = std::string(AF_TEST_DATA_DIR) + "/saved_models/";
  FuzzRecords(base + "saved_model_half_plus_two_cpu/00000123/variables/variables", 150, 5);
  FuzzRecords(base + "saved_model_half_plus_two_tf2_cpu/00000123/variables/variables", 150, 6);
}

BOOST_AUTO_TEST_CASE(mutated_tensorflow_indexes) {
  const std::string base = std::string(AF_TEST_DATA_DIR) + "/saved_models/";
  FuzzIndex(base + "saved_model_counter/00000123/variables/variables", 150, 1);
  FuzzIndex(base + "saved_model_half_plus_two_cpu/00000123/variables/variables", 150,
            2);  // snappy blocks
  FuzzIndex(base + "saved_model_half_plus_two_tf2_cpu/00000123/variables/variables", 150, 3);
}

BOOST_AUTO_TEST_CASE(mutated_written_indexes) {
  ScratchDir dir;
  std::unique_ptr<BundleWriter> writer;
  BOOST_TEST_REQUIRE(BundleWriter::Create(dir / "w", &writer).ok());
  BOOST_TEST_REQUIRE(writer->Add("f", Tensor::FromVector<float>({1, 2, 3})).ok());
  BOOST_TEST_REQUIRE(writer->Add("s", Tensor::FromVector<std::string>({"x", "yz"})).ok());
  TensorSliceSpec slice;
  BOOST_TEST_REQUIRE(ParseTensorSliceSpec("4 1,2", &slice).ok());
  BOOST_TEST_REQUIRE(writer->AddSlice("p", slice, Tensor::FromVector<int32_t>({7, 8})).ok());
  BOOST_TEST_REQUIRE(writer->Finish().ok());
  FuzzIndex(dir / "w", 200, 4);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::bundle
