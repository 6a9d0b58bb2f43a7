// Tensor-bundle checkpoints written by TensorFlow (the SavedModels in tests/data/saved_models):
// every value, through the bundle reader and through CheckpointReader, and
// the string layout TensorFlow 2 uses for its object graph.
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>

#include "core/bundle/bundle_reader.h"
#include "core/bundle/bundle_writer.h"
#include "core/checkpoint_reader.h"
#include "core/checkpoint_shards.h"
#include "tests/core/checkpoint_test_util.h"

namespace af::bundle {
namespace {

std::string Prefix(const std::string& model) {
  return std::string(AF_TEST_DATA_DIR) + "/saved_models/saved_model_" + model +
         "/00000123/variables/variables";
}

float ReadFloat(const CheckpointReader& reader, const std::string& name) {
  Tensor t;
  Status s = reader.Read(name, &t);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST_REQUIRE(t.dtype() == DT_FLOAT);
  BOOST_TEST_REQUIRE(t.dims() == 0);
  return t.scalar<float>();
}

std::unique_ptr<CheckpointReader> Open(const std::string& model) {
  std::string file;
  Status s = ResolveCheckpointFile(Prefix(model), &file);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(file == Prefix(model) + ".index");
  std::unique_ptr<CheckpointReader> reader;
  s = CheckpointReader::Open(file, &reader);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST_REQUIRE(reader->bundle() != nullptr);
  s = reader->VerifyAll();
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return reader;
}

BOOST_AUTO_TEST_SUITE(bundle_real_files)

BOOST_AUTO_TEST_CASE(counter_model) {
  auto reader = Open("counter");
  BOOST_TEST(reader->entries().size() == 1u);
  BOOST_TEST(ReadFloat(*reader, "counter") == 0.0f);
  BOOST_TEST(reader->bundle()->num_shards() == 1);
}

BOOST_AUTO_TEST_CASE(half_plus_two_tf1_with_snappy_index) {
  auto reader = Open("half_plus_two_cpu");
  BOOST_TEST(reader->entries().size() == 5u);
  BOOST_TEST(ReadFloat(*reader, "a") == 0.5f);
  BOOST_TEST(ReadFloat(*reader, "b") == 2.0f);
  BOOST_TEST(ReadFloat(*reader, "c") == 3.0f);
  BOOST_TEST(ReadFloat(*reader, "a2") == 0.5f);
  BOOST_TEST(ReadFloat(*reader, "c2") == 3.0f);
}

BOOST_AUTO_TEST_CASE(half_plus_two_tf2_object_graph_string) {
  auto reader = Open("half_plus_two_tf2_cpu");
  BOOST_TEST(ReadFloat(*reader, "a/.ATTRIBUTES/VARIABLE_VALUE") == 0.5f);
  BOOST_TEST(ReadFloat(*reader, "b/.ATTRIBUTES/VARIABLE_VALUE") == 2.0f);
  BOOST_TEST(ReadFloat(*reader, "c/.ATTRIBUTES/VARIABLE_VALUE") == 3.0f);
  Tensor graph;
  Status s = reader->Read("_CHECKPOINTABLE_OBJECT_GRAPH", &graph);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(graph.dtype() == DT_STRING);
  BOOST_TEST(graph.dims() == 0);
  const std::string& bytes = graph.scalar<std::string>();
  BOOST_TEST(bytes.size() == 613u);
  BOOST_TEST(bytes.find("VARIABLE_VALUE") != std::string::npos);  // a serialized proto

  // Written back here, the string tensor has TensorFlow's exact bytes and
  // checksum: the layout and CRC rules are the ones TensorFlow uses.
  test::ScratchDir dir;
  std::unique_ptr<BundleWriter> writer;
  BOOST_TEST_REQUIRE(BundleWriter::Create(dir / "copy", &writer).ok());
  BOOST_TEST_REQUIRE(writer->Add("_CHECKPOINTABLE_OBJECT_GRAPH", graph).ok());
  BOOST_TEST_REQUIRE(writer->Finish().ok());
  const std::string tf_data =
      test::ReadBytes(Prefix("half_plus_two_tf2_cpu") + ".data-00000-of-00001");
  const std::string ours = test::ReadBytes(dir / "copy.data-00000-of-00001");
  BOOST_TEST((ours == tf_data.substr(12)));  // TensorFlow put the 3 floats first
  std::unique_ptr<BundleReader> copy;
  BOOST_TEST_REQUIRE(BundleReader::Open(dir / "copy", &copy).ok());
  const checkpoint::TensorEntry* theirs = nullptr;
  for (const auto& e : reader->entries())
    if (e.name == "_CHECKPOINTABLE_OBJECT_GRAPH") theirs = &e;
  BOOST_TEST_REQUIRE(theirs != nullptr);
  BOOST_TEST(copy->entries().at(0).crc32c == theirs->crc32c);
}

// A TensorFlow 1 checkpoint rewritten here from what was read is the same
// index, byte for byte (the counter's index is uncompressed).
BOOST_AUTO_TEST_CASE(rewritten_counter_checkpoint_is_identical) {
  auto reader = Open("counter");
  test::ScratchDir dir;
  std::unique_ptr<BundleWriter> writer;
  BOOST_TEST_REQUIRE(BundleWriter::Create(dir / "variables", &writer).ok());
  Tensor t;
  BOOST_TEST_REQUIRE(reader->Read("counter", &t).ok());
  BOOST_TEST_REQUIRE(writer->Add("counter", t).ok());
  BOOST_TEST_REQUIRE(writer->Finish().ok());
  BOOST_TEST(
      (test::ReadBytes(dir / "variables.index") == test::ReadBytes(Prefix("counter") + ".index")));
  BOOST_TEST((test::ReadBytes(dir / "variables.data-00000-of-00001") ==
              test::ReadBytes(Prefix("counter") + ".data-00000-of-00001")));
}

BOOST_AUTO_TEST_CASE(checkpoint_set_reads_a_bundle) {
  std::unique_ptr<CheckpointSet> set;
  Status s = CheckpointSet::Open(Prefix("half_plus_two_cpu"), &set);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  const CheckpointReader* reader = nullptr;
  BOOST_TEST(set->Find("b", &reader) != nullptr);
  std::vector<std::string> files;
  BOOST_TEST_REQUIRE(CheckpointFiles(Prefix("half_plus_two_cpu"), &files).ok());
  BOOST_TEST(files.size() == 2u);
  BOOST_TEST(files.back() == Prefix("half_plus_two_cpu") + ".index");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::bundle
