// Writing files atomically, and a directory's list of checkpoints.
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>

#include <memory>
#include <string>
#include <vector>

#include "core/atomic_file_writer.h"
#include "core/checkpoint_format.h"
#include "core/checkpoint_reader.h"
#include "core/checkpoint_state.h"
#include "core/checkpoint_writer.h"
#include "tests/core/checkpoint_test_util.h"

namespace af {
namespace {

using test::ReadBytes;
using test::ScratchDir;
using test::WriteBytes;

Status SaveScalar(const std::string& file, float value) {
  std::unique_ptr<CheckpointWriter> writer;
  AF_RETURN_IF_ERROR(CheckpointWriter::Create(file, &writer));
  AF_RETURN_IF_ERROR(writer->Add("v", Tensor::Scalar<float>(value)));
  return writer->Finish();
}

float LoadScalar(const std::string& file) {
  std::unique_ptr<CheckpointReader> reader;
  BOOST_REQUIRE(CheckpointReader::Open(file, &reader).ok());
  Tensor t;
  BOOST_REQUIRE(reader->Read("v", &t).ok());
  return t.scalar<float>();
}

BOOST_AUTO_TEST_SUITE(checkpoint_files)

BOOST_AUTO_TEST_CASE(atomic_writer_publishes_only_on_commit) {
  ScratchDir dir;
  const std::string path = dir / "out";
  std::unique_ptr<AtomicFileWriter> w;
  BOOST_REQUIRE(AtomicFileWriter::Create(path, &w).ok());
  BOOST_REQUIRE(w->Append("hello ", 6).ok());
  std::string big(1 << 20, 'x');  // bypasses the buffer
  BOOST_REQUIRE(w->Append(big.data(), big.size()).ok());
  BOOST_TEST(w->size() == 6u + big.size());
  BOOST_TEST(dir.List() == std::vector<std::string>{w->temp_path().substr(dir.path().size() + 1)});
  BOOST_REQUIRE(w->Commit().ok());
  BOOST_TEST(dir.List() == std::vector<std::string>{"out"});
  BOOST_TEST(ReadBytes(path) == "hello " + big);
  struct stat st;
  BOOST_REQUIRE(::stat(path.c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0644u);
}

BOOST_AUTO_TEST_CASE(abandoned_writes_leave_no_file_and_keep_the_old_one) {
  ScratchDir dir;
  const std::string path = dir / "model.afckpt";
  BOOST_REQUIRE(SaveScalar(path, 1.0f).ok());
  {
    std::unique_ptr<CheckpointWriter> writer;
    BOOST_REQUIRE(CheckpointWriter::Create(path, &writer).ok());
    BOOST_REQUIRE(writer->Add("v", Tensor::Scalar<float>(2.0f)).ok());
    BOOST_TEST(dir.List().size() == 2u);  // the old file and the temporary
    // Dropped without Finish, as when a later tensor fails.
  }
  BOOST_TEST(dir.List() == std::vector<std::string>{"model.afckpt"});
  BOOST_TEST(LoadScalar(path) == 1.0f);
  BOOST_REQUIRE(SaveScalar(path, 3.0f).ok());
  BOOST_TEST(LoadScalar(path) == 3.0f);
  BOOST_TEST(dir.List() == std::vector<std::string>{"model.afckpt"});
}

BOOST_AUTO_TEST_CASE(a_failed_commit_leaves_nothing_behind) {
  ScratchDir dir;
  // The destination is a non-empty directory: the rename fails.
  const std::string path = dir / "blocked";
  BOOST_REQUIRE(::mkdir(path.c_str(), 0755) == 0);
  WriteBytes(path + "/keep", "x");
  Status s = SaveScalar(path, 1.0f);
  BOOST_TEST(!s.ok());
  BOOST_TEST(s.message().find("blocked") != std::string::npos);
  BOOST_TEST(dir.List() == std::vector<std::string>{"blocked"});
}

BOOST_AUTO_TEST_CASE(missing_directories_are_reported_or_created) {
  ScratchDir dir;
  std::unique_ptr<AtomicFileWriter> w;
  Status s = AtomicFileWriter::Create(dir / "no/such/dir/file", &w);
  BOOST_TEST(s.code() == Code::NOT_FOUND);
  BOOST_TEST(s.message().find("no/such/dir/file") != std::string::npos);
  BOOST_REQUIRE(CreateParentDirectories(dir / "no/such/dir/file").ok());
  BOOST_TEST(AtomicFileWriter::Create(dir / "no/such/dir/file", &w).ok());
  WriteBytes(dir / "plain", "x");
  BOOST_TEST(!CreateParentDirectories(dir / "plain/file").ok());
}

BOOST_AUTO_TEST_CASE(state_file_uses_tensorflows_syntax) {
  ScratchDir dir;
  CheckpointState state;
  state.latest = "model.ckpt-2";
  state.all = {"model.ckpt-1", "model.ckpt-2", "odd \"name\"\\x"};
  BOOST_REQUIRE(WriteCheckpointState(dir.path(), state).ok());
  BOOST_TEST(ReadBytes(dir / "checkpoint") ==
             "model_checkpoint_path: \"model.ckpt-2\"\n"
             "all_model_checkpoint_paths: \"model.ckpt-1\"\n"
             "all_model_checkpoint_paths: \"model.ckpt-2\"\n"
             "all_model_checkpoint_paths: \"odd \\\"name\\\"\\\\x\"\n");
  CheckpointState back;
  BOOST_REQUIRE(ReadCheckpointState(dir.path(), &back).ok());
  BOOST_TEST(back.latest == state.latest);
  BOOST_TEST(back.all == state.all);

  // A file TensorFlow wrote (with timestamps) reads too.
  WriteBytes(dir / "checkpoint",
             "model_checkpoint_path: \"/abs/model.ckpt-9\"\n"
             "all_model_checkpoint_paths: \"/abs/model.ckpt-9\"\n"
             "all_model_checkpoint_timestamps: 1700000000.5\n"
             "last_preserved_timestamp: 1699999999.25\n");
  Status s = ReadCheckpointState(dir.path(), &back);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  BOOST_TEST(back.latest == "/abs/model.ckpt-9");
  std::string latest;
  BOOST_REQUIRE(LatestCheckpoint(dir.path(), &latest).ok());
  BOOST_TEST(latest == "/abs/model.ckpt-9");  // absolute paths stay as they are

  WriteBytes(dir / "checkpoint", "model_checkpoint_path: unquoted\n");
  s = ReadCheckpointState(dir.path(), &back);
  BOOST_TEST(s.code() == Code::DATA_LOSS);
  BOOST_TEST(s.message().find(":1:") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(record_checkpoint_keeps_the_last_k) {
  ScratchDir dir;
  std::string latest;
  BOOST_TEST(LatestCheckpoint(dir.path(), &latest).code() == Code::NOT_FOUND);
  std::vector<std::string> deleted;
  for (int step = 1; step <= 5; ++step) {
    const std::string prefix = dir / ("model.ckpt-" + std::to_string(step));
    BOOST_REQUIRE(SaveScalar(checkpoint::DataFilePath(prefix), static_cast<float>(step)).ok());
    BOOST_REQUIRE(RecordCheckpoint(dir.path(), prefix, 3, &deleted).ok());
    BOOST_REQUIRE(LatestCheckpoint(dir.path(), &latest).ok());
    BOOST_TEST(latest == prefix);
  }
  BOOST_TEST(deleted == (std::vector<std::string>{dir / "model.ckpt-1", dir / "model.ckpt-2"}));
  BOOST_TEST(dir.List() == (std::vector<std::string>{"checkpoint", "model.ckpt-3.afckpt",
                                                     "model.ckpt-4.afckpt",
                                                     "model.ckpt-5.afckpt"}));
  CheckpointState state;
  BOOST_REQUIRE(ReadCheckpointState(dir.path(), &state).ok());
  // Paths inside the directory are stored relative to it.
  BOOST_TEST(state.latest == "model.ckpt-5");
  BOOST_TEST(state.all == (std::vector<std::string>{"model.ckpt-3", "model.ckpt-4",
                                                    "model.ckpt-5"}));

  // Saving under an existing prefix moves it to the end instead of
  // duplicating it.
  BOOST_REQUIRE(RecordCheckpoint(dir.path(), dir / "model.ckpt-4", 3).ok());
  BOOST_REQUIRE(ReadCheckpointState(dir.path(), &state).ok());
  BOOST_TEST(state.all == (std::vector<std::string>{"model.ckpt-3", "model.ckpt-5",
                                                    "model.ckpt-4"}));

  std::string file;
  BOOST_REQUIRE(ResolveCheckpointPath(dir.path(), &file).ok());
  BOOST_TEST(file == dir / "model.ckpt-4.afckpt");
  BOOST_TEST(LoadScalar(file) == 4.0f);
}

BOOST_AUTO_TEST_CASE(keep_zero_keeps_everything) {
  ScratchDir dir;
  for (int step = 1; step <= 4; ++step) {
    const std::string prefix = dir / ("m-" + std::to_string(step));
    BOOST_REQUIRE(SaveScalar(checkpoint::DataFilePath(prefix), 0.0f).ok());
    BOOST_REQUIRE(RecordCheckpoint(dir.path(), prefix, 0).ok());
  }
  BOOST_TEST(dir.List().size() == 5u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
