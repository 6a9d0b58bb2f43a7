// Saver: save and restore round trips (bitwise), keep-last-K bookkeeping,
// LatestCheckpoint, and restores that must fail without touching a single
// variable (truncated file, flipped byte, wrong shape or dtype, missing key
// or file). Variables live in the process's default container, so tests
// that rebuild a graph under the same names Reset it first.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/saver.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/checkpoint_format.h"
#include "core/checkpoint_reader.h"
#include "core/checkpoint_state.h"
#include "tests/temp_dir_test_util.h"

namespace af {
namespace {

namespace fs = std::filesystem;

using testing::TempDir;

float FloatFromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

struct Model {
  std::vector<Output> vars;  // w (float), b (double), step (int64)
  Operation modify;          // assigns other values to every variable
};

// `w_shape`/`w_type` let a test build a graph that no longer matches a
// checkpoint; the names stay the same.
Model BuildModel(const Scope& root, TensorShape w_shape = TensorShape{2, 3},
                 DataType w_type = DT_FLOAT) {
  Scope s = root.NewSubScope("model");
  Model m;
  Tensor w_init(w_type, w_shape);
  // Values whose bits matter: a NaN with a payload, -0, a denormal, inf.
  const float special[] = {1.5f, -0.0f, FloatFromBits(0x7fc01234u),
                           std::numeric_limits<float>::infinity(), 1e-40f, 3.0f};
  for (int64_t i = 0; i < w_init.NumElements(); ++i) {
    const float v = special[i % 6];
    if (w_type == DT_FLOAT) w_init.data<float>()[i] = v;
    else w_init.data<double>()[i] = v;
  }
  Variable w(s.WithOpName("w"), w_init);
  Variable b(s.WithOpName("b"), Tensor::FromVector<double>({0.1, -2.5e300, 7.0}));
  Variable step(s.WithOpName("step"), Input::Initializer(Tensor::Scalar<int64_t>(42)),
                /*trainable=*/false);
  m.vars = {w.var, b.var, step.var};
  Tensor w_other(w_type, w_shape);
  for (int64_t i = 0; i < w_other.NumElements(); ++i) {
    if (w_type == DT_FLOAT) w_other.data<float>()[i] = 9.0f;
    else w_other.data<double>()[i] = 9.0;
  }
  auto a1 = ops::Assign(s, w.var, w_other);
  auto a2 = ops::Assign(s, b.var, Tensor::FromVector<double>({-1, -1, -1}));
  auto a3 = ops::Assign(s, step.var, Tensor::Scalar<int64_t>(0));
  m.modify = ops::NoOp(s.WithControlDependencies({a1.operation, a2.operation, a3.operation}))
                 .operation;
  return m;
}

std::vector<Tensor> Fetch(const ClientSession& session, const Model& m) {
  std::vector<Tensor> out;
  Status s = session.Run(m.vars, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return out;
}

bool BitwiseEqual(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].dtype() != b[i].dtype() || a[i].shape() != b[i].shape()) return false;
    if (a[i].tensor_data() != b[i].tensor_data()) return false;
  }
  return true;
}

// A session with the model initialized, then modified, and the values in
// between saved under `prefix`.
struct Saved {
  Scope root = Scope::NewRootScope();
  Model model;
  std::unique_ptr<Saver> saver;
  std::unique_ptr<ClientSession> session;
  std::vector<Tensor> saved_values, modified_values;
  std::string path;

  explicit Saved(const std::string& prefix) {
    model = BuildModel(root);
    saver = std::make_unique<Saver>(root);
    BOOST_TEST_REQUIRE(saver->status().ok(), saver->status().ToString());
    session = std::make_unique<ClientSession>(root);
    BOOST_TEST_REQUIRE(session->Reset({}).ok());
    Status s = session->Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    saved_values = Fetch(*session, model);
    s = saver->Save(*session, prefix, 1, &path);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    s = session->Run({}, {}, {model.modify}, nullptr);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    modified_values = Fetch(*session, model);
    BOOST_TEST_REQUIRE(!BitwiseEqual(saved_values, modified_values));
  }
  // TensorFlow's tensor bundle, the default format.
  std::string file() const { return path + ".data-00000-of-00001"; }
  std::string index() const { return path + ".index"; }
};

// Sets ACTORFLOW_CHECKPOINT_FORMAT for one test (the .afckpt format).
struct FormatGuard {
  explicit FormatGuard(const char* format) { ::setenv("ACTORFLOW_CHECKPOINT_FORMAT", format, 1); }
  ~FormatGuard() { ::unsetenv("ACTORFLOW_CHECKPOINT_FORMAT"); }
};

BOOST_AUTO_TEST_SUITE(saver)

BOOST_AUTO_TEST_CASE(save_modify_restore_gives_identical_tensors) {
  TempDir dir;
  Saved t(dir.path() + "/model");
  BOOST_TEST(t.path == dir.path() + "/model-1");
  BOOST_TEST(fs::exists(t.file()));
  BOOST_TEST(t.saver->tensor_names() ==
             (std::vector<std::string>{"model/w", "model/b", "model/step"}));
  Status s = t.saver->Restore(*t.session, t.path);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(BitwiseEqual(Fetch(*t.session, t.model), t.saved_values));

  // Without a step the prefix is the path.
  std::string path;
  BOOST_TEST_REQUIRE(t.saver->Save(*t.session, dir.path() + "/plain", -1, &path).ok());
  BOOST_TEST(path == dir.path() + "/plain");
  BOOST_TEST(fs::exists(dir.path() + "/plain.index"));
  BOOST_TEST(LatestCheckpoint(dir.path()) == dir.path() + "/plain");
}

BOOST_AUTO_TEST_CASE(keeps_the_last_k_and_lists_them_in_the_state_file) {
  TempDir dir;
  Scope root = Scope::NewRootScope();
  Model m = BuildModel(root);
  SaverOptions options;
  options.max_to_keep = 2;
  Saver saver(root, options);
  ClientSession session(root);
  BOOST_TEST_REQUIRE(session.Reset({}).ok());
  BOOST_TEST_REQUIRE(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr).ok());
  const std::string prefix = dir.path() + "/model";
  for (int step = 1; step <= 4; ++step) {
    std::string path;
    Status s = saver.Save(session, prefix, step, &path);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    // The one just written is never deleted.
    BOOST_TEST(fs::exists(path + ".index"));
  }
  BOOST_TEST(!fs::exists(prefix + "-1.index"));
  BOOST_TEST(!fs::exists(prefix + "-1.data-00000-of-00001"));
  BOOST_TEST(!fs::exists(prefix + "-2.index"));
  BOOST_TEST(fs::exists(prefix + "-3.index"));
  BOOST_TEST(fs::exists(prefix + "-4.index"));
  BOOST_TEST(fs::exists(prefix + "-4.data-00000-of-00001"));
  CheckpointState state;
  BOOST_TEST_REQUIRE(ReadCheckpointState(dir.path(), &state).ok());
  BOOST_TEST(state.latest == "model-4");
  BOOST_TEST(state.all == (std::vector<std::string>{"model-3", "model-4"}));

  // max_to_keep 0 keeps everything.
  TempDir all_dir;
  SaverOptions keep_all;
  keep_all.max_to_keep = 0;
  keep_all.name = "save_all";
  Saver everything(root, keep_all);
  for (int step = 1; step <= 7; ++step)
    BOOST_TEST_REQUIRE(everything.Save(session, all_dir.path() + "/m", step, nullptr).ok());
  for (int step = 1; step <= 7; ++step)
    BOOST_TEST(fs::exists(all_dir.path() + "/m-" + std::to_string(step) + ".index"));
  BOOST_TEST_REQUIRE(ReadCheckpointState(all_dir.path(), &state).ok());
  BOOST_TEST(state.all.size() == 7u);
}

BOOST_AUTO_TEST_CASE(latest_checkpoint_picks_the_newest) {
  TempDir dir;
  BOOST_TEST(LatestCheckpoint(dir.path()).empty());
  Scope root = Scope::NewRootScope();
  BuildModel(root);
  Saver saver(root);
  ClientSession session(root);
  BOOST_TEST_REQUIRE(session.Reset({}).ok());
  BOOST_TEST_REQUIRE(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr).ok());
  for (int step : {10, 20, 30})
    BOOST_TEST_REQUIRE(saver.Save(session, dir.path() + "/model", step, nullptr).ok());
  BOOST_TEST(LatestCheckpoint(dir.path()) == dir.path() + "/model-30");
  // A state file naming a deleted checkpoint finds none.
  fs::remove(dir.path() + "/model-30.index");
  BOOST_TEST(LatestCheckpoint(dir.path()).empty());
}

void ExpectDataLossAndNothingChanged(Saved& t, const std::string& what,
                                     const std::string& named_file = "") {
  Status s = t.saver->Restore(*t.session, t.path);
  BOOST_TEST_MESSAGE(what << ": " << s);
  BOOST_TEST(s.code() == Code::DATA_LOSS, what << ": " << s.ToString());
  const std::string file = named_file.empty() ? t.file() : named_file;
  BOOST_TEST(s.message().find(file) != std::string::npos, s.ToString());
  BOOST_TEST(BitwiseEqual(Fetch(*t.session, t.model), t.modified_values), what);
  // The graph alone (no check of the index first) gives the same
  // guarantee: one RestoreV2 verifies everything before any Assign.
  s = t.session->Run({{t.saver->filename_tensor(), Input::Initializer(t.path)}}, {},
                     {t.saver->restore_op()}, nullptr);
  BOOST_TEST_MESSAGE(what << " (graph only): " << s);
  BOOST_TEST(s.code() == Code::DATA_LOSS, what << " (graph only): " << s.ToString());
  BOOST_TEST(BitwiseEqual(Fetch(*t.session, t.model), t.modified_values), what);
}

BOOST_AUTO_TEST_CASE(truncated_file_is_data_loss_and_changes_nothing) {
  TempDir dir;
  Saved t(dir.path() + "/model");
  const auto size = fs::file_size(t.file());
  fs::resize_file(t.file(), size - 1);
  ExpectDataLossAndNothingChanged(t, "one byte short");
  fs::resize_file(t.file(), size / 2);
  ExpectDataLossAndNothingChanged(t, "half");
}

void FlipByte(const std::string& file, uint64_t offset) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ 0x10));
  BOOST_TEST_REQUIRE(f.good());
}

BOOST_AUTO_TEST_CASE(a_flipped_byte_is_data_loss_and_changes_nothing) {
  TempDir dir;
  Saved t(dir.path() + "/model");
  // The last variable RestoreV2 reads: every other one checks out first,
  // and still none may be assigned.
  uint64_t data_offset = 0;
  {
    std::unique_ptr<CheckpointReader> reader;
    BOOST_TEST_REQUIRE(CheckpointReader::Open(t.index(), &reader).ok());
    const checkpoint::TensorEntry* last = reader->Find(t.saver->tensor_names().back());
    BOOST_TEST_REQUIRE(last != nullptr);
    data_offset = last->offset;
  }
  FlipByte(t.file(), data_offset);
  ExpectDataLossAndNothingChanged(t, "tensor bytes");
  FlipByte(t.file(), data_offset);  // repaired
  BOOST_TEST_REQUIRE(t.saver->Restore(*t.session, t.path).ok());
  BOOST_TEST_REQUIRE(t.session->Run({}, {}, {t.model.modify}, nullptr).ok());
  // A byte of the .index's index block (which ends where the footer starts).
  FlipByte(t.index(), fs::file_size(t.index()) - 48 - 3);
  ExpectDataLossAndNothingChanged(t, "index", t.index());
}

BOOST_AUTO_TEST_CASE(a_missing_file_is_not_found_and_changes_nothing) {
  TempDir dir;
  Saved t(dir.path() + "/model");
  Status s = t.saver->Restore(*t.session, dir.path() + "/nothing-here");
  BOOST_TEST(s.code() == Code::NOT_FOUND, s.ToString());
  BOOST_TEST(s.message().find("nothing-here") != std::string::npos, s.ToString());
  BOOST_TEST(BitwiseEqual(Fetch(*t.session, t.model), t.modified_values));
}

// Builds the model with another `w` in a fresh graph (after a Reset, so
// the old variable is gone), initializes it and checks that restoring the
// checkpoint fails with `code` and changes none of the variables.
void ExpectMismatchRejected(const std::string& path, TensorShape w_shape, DataType w_type,
                            Code code, const std::string& mentions, bool graph_also_rejects) {
  Scope root = Scope::NewRootScope();
  Model m = BuildModel(root, w_shape, w_type);
  Saver saver(root);
  ClientSession session(root);
  BOOST_TEST_REQUIRE(session.Reset({}).ok());
  BOOST_TEST_REQUIRE(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr).ok());
  BOOST_TEST_REQUIRE(session.Run({}, {}, {m.modify}, nullptr).ok());
  const std::vector<Tensor> before = Fetch(session, m);
  Status s = saver.Restore(session, path);
  BOOST_TEST_MESSAGE(s);
  BOOST_TEST(s.code() == code, s.ToString());
  BOOST_TEST(s.message().find(mentions) != std::string::npos, s.ToString());
  BOOST_TEST(BitwiseEqual(Fetch(session, m), before));
  if (graph_also_rejects) {
    s = session.Run({{saver.filename_tensor(), Input::Initializer(path)}}, {},
                    {saver.restore_op()}, nullptr);
    BOOST_TEST(s.code() == code, s.ToString());
    BOOST_TEST(BitwiseEqual(Fetch(session, m), before));
  }
}

BOOST_AUTO_TEST_CASE(a_shape_or_dtype_mismatch_fails_and_changes_nothing) {
  TempDir dir;
  std::string path;
  {
    Saved t(dir.path() + "/model");
    path = t.path;
  }
  ExpectMismatchRejected(path, TensorShape{3, 2}, DT_FLOAT, Code::INVALID_ARGUMENT,
                         "'model/w' has shape [3,2]", false);
  ExpectMismatchRejected(path, TensorShape{6}, DT_FLOAT, Code::INVALID_ARGUMENT,
                         "'model/w' has shape [6]", false);
  // RestoreV2 checks dtypes itself, so the graph alone rejects this too.
  ExpectMismatchRejected(path, TensorShape{2, 3}, DT_DOUBLE, Code::INVALID_ARGUMENT,
                         "model/w", true);
}

BOOST_AUTO_TEST_CASE(a_variable_missing_from_the_checkpoint_is_not_found) {
  TempDir dir;
  std::string path;
  {
    Saved t(dir.path() + "/model");
    path = t.path;
  }
  Scope root = Scope::NewRootScope();
  Model m = BuildModel(root);
  Variable extra(root.WithOpName("extra"), Tensor::FromVector<float>({5, 6}));
  Saver saver(root);
  ClientSession session(root);
  BOOST_TEST_REQUIRE(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr).ok());
  const std::vector<Tensor> before = Fetch(session, m);
  Status s = saver.Restore(session, path);
  BOOST_TEST(s.code() == Code::NOT_FOUND, s.ToString());
  BOOST_TEST(s.message().find("extra") != std::string::npos, s.ToString());
  BOOST_TEST(BitwiseEqual(Fetch(session, m), before));
}

BOOST_AUTO_TEST_CASE(a_fresh_session_resumes_from_the_latest_checkpoint) {
  TempDir dir;
  std::vector<Tensor> saved;
  {
    Saved t(dir.path() + "/model");
    saved = t.saved_values;
  }
  // A new program: the same graph built again, in a new session, with the
  // process's containers cleared (as if the process had restarted).
  Scope root = Scope::NewRootScope();
  Model m = BuildModel(root);
  Saver saver(root);
  ClientSession session(root);
  BOOST_TEST_REQUIRE(session.Reset({}).ok());
  std::vector<Tensor> out;
  Status s = session.Run({m.vars[0]}, &out);
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION, s.ToString());
  BOOST_TEST(s.message().find("model/w") != std::string::npos, s.ToString());
  // Saving uninitialized variables fails and writes nothing.
  s = saver.Save(session, dir.path() + "/uninit", -1, nullptr);
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION, s.ToString());
  BOOST_TEST(!fs::exists(dir.path() + "/uninit.index"));
  BOOST_TEST(!fs::exists(dir.path() + "/uninit.data-00000-of-00001"));

  const std::string latest = LatestCheckpoint(dir.path());
  BOOST_TEST_REQUIRE(latest == dir.path() + "/model-1");
  s = saver.Restore(session, latest);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(BitwiseEqual(Fetch(session, m), saved));
}

BOOST_AUTO_TEST_CASE(a_graph_without_variables_cannot_have_a_saver) {
  Scope root = Scope::NewRootScope();
  ops::Const(root, 1.0f);
  Saver saver(root);
  BOOST_TEST(saver.status().code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(!root.ok());
  Scope other = Scope::NewRootScope();
  SaverOptions options;
  options.var_list = {ops::Const(other, 1.0f)};
  Saver not_a_variable(other, options);
  BOOST_TEST(not_a_variable.status().code() == Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(a_sharded_checkpoint_has_a_shard_per_device_and_restores_anywhere) {
  TempDir dir;
  const std::string prefix = dir.path() + "/model";
  std::vector<float> saved_a, saved_b;
  {
    // Two devices, a variable on each, plus one on device 0 again.
    Scope root = Scope::NewRootScope();
    Variable a(root.WithOpName("a").WithDevice("/device:CPU:0"),
               Input::Initializer({1.0f, 2.0f, 3.0f}));
    Variable b(root.WithOpName("b").WithDevice("/device:CPU:1"), Input::Initializer({4.0f}));
    Variable c(root.WithOpName("c").WithDevice("/device:CPU:0"), Input::Initializer(5.0f));
    SaverOptions options;
    options.sharded = true;
    options.max_to_keep = 1;
    Saver saver(root, options);
    BOOST_TEST_REQUIRE(saver.status().ok(), saver.status());
    SessionOptions two_devices;
    two_devices.num_cpu_devices = 2;
    ClientSession session(root, two_devices);
    BOOST_TEST_REQUIRE(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr).ok());
    Status s = saver.Save(session, prefix, 1, nullptr);
    BOOST_TEST_REQUIRE(s.ok(), s);
    s = saver.Save(session, prefix, 2, nullptr);
    BOOST_TEST_REQUIRE(s.ok(), s);
  }
  namespace fs = std::filesystem;
  // TensorFlow's layout: each device wrote PREFIX_temp/part-0000i-of-00002,
  // MergeV2Checkpoints made one index and a data file per device. Step 1's
  // went with max_to_keep = 1.
  BOOST_TEST(fs::exists(prefix + "-2.index"));
  BOOST_TEST(fs::exists(prefix + "-2.data-00000-of-00002"));
  BOOST_TEST(fs::exists(prefix + "-2.data-00001-of-00002"));
  BOOST_TEST(!fs::exists(prefix + "-2_temp"));
  BOOST_TEST(!fs::exists(prefix + "-1.index"));
  BOOST_TEST(!fs::exists(prefix + "-1.data-00000-of-00002"));
  // Data file 0 holds a and c (device 0), data file 1 holds b.
  std::unique_ptr<CheckpointReader> index;
  BOOST_TEST_REQUIRE(CheckpointReader::Open(prefix + "-2.index", &index).ok());
  BOOST_TEST_REQUIRE(index->Find("a") != nullptr);
  BOOST_TEST(index->Find("a")->shard_id == 0);
  BOOST_TEST(index->Find("c")->shard_id == 0);
  BOOST_TEST(index->Find("b")->shard_id == 1);

  // Restored onto one device, in another graph, under another placement.
  Scope root = Scope::NewRootScope();
  Variable a(root.WithOpName("a"), Input::Initializer({0.0f, 0.0f, 0.0f}));
  Variable b(root.WithOpName("b"), Input::Initializer({0.0f}));
  Variable c(root.WithOpName("c"), Input::Initializer(0.0f));
  Saver saver(root);
  ClientSession session(root);
  const std::string latest = LatestCheckpoint(dir.path());
  BOOST_TEST(latest == prefix + "-2");
  Status s = saver.Restore(session, latest);
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({a, b, c}, &out).ok());
  BOOST_TEST(out[0].data<float>()[2] == 3.0f);
  BOOST_TEST(out[1].data<float>()[0] == 4.0f);
  BOOST_TEST(out[2].scalar<float>() == 5.0f);
  // A missing shard is named.
  fs::remove(prefix + "-2.data-00001-of-00002");
  s = saver.Restore(session, latest);
  BOOST_TEST(s.code() == Code::NOT_FOUND, s);
  BOOST_TEST(s.message().find("00001-of-00002") != std::string::npos, s);
}


// With ACTORFLOW_CHECKPOINT_FORMAT=afckpt: a shard file per device and an
// index checkpoint listing them (core/checkpoint_shards.h).
BOOST_AUTO_TEST_CASE(an_afckpt_sharded_checkpoint_has_a_shard_file_per_device) {
  FormatGuard afckpt("afckpt");
  TempDir dir;
  const std::string prefix = dir.path() + "/model";
  std::vector<float> saved_a, saved_b;
  {
    // Two devices, a variable on each, plus one on device 0 again.
    Scope root = Scope::NewRootScope();
    Variable a(root.WithOpName("a").WithDevice("/device:CPU:0"),
               Input::Initializer({1.0f, 2.0f, 3.0f}));
    Variable b(root.WithOpName("b").WithDevice("/device:CPU:1"), Input::Initializer({4.0f}));
    Variable c(root.WithOpName("c").WithDevice("/device:CPU:0"), Input::Initializer(5.0f));
    SaverOptions options;
    options.sharded = true;
    options.max_to_keep = 1;
    Saver saver(root, options);
    BOOST_TEST_REQUIRE(saver.status().ok(), saver.status());
    SessionOptions two_devices;
    two_devices.num_cpu_devices = 2;
    ClientSession session(root, two_devices);
    BOOST_TEST_REQUIRE(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr).ok());
    Status s = saver.Save(session, prefix, 1, nullptr);
    BOOST_TEST_REQUIRE(s.ok(), s);
    s = saver.Save(session, prefix, 2, nullptr);
    BOOST_TEST_REQUIRE(s.ok(), s);
  }
  namespace fs = std::filesystem;
  // Step 2's shards and index; step 1's went with max_to_keep = 1.
  BOOST_TEST(fs::exists(prefix + "-2-00000-of-00002.afckpt"));
  BOOST_TEST(fs::exists(prefix + "-2-00001-of-00002.afckpt"));
  BOOST_TEST(fs::exists(prefix + "-2.afckpt"));
  BOOST_TEST(!fs::exists(prefix + "-1-00000-of-00002.afckpt"));
  BOOST_TEST(!fs::exists(prefix + "-1.afckpt"));
  // Shard 0 holds a and c (device 0), shard 1 holds b.
  std::unique_ptr<CheckpointReader> shard0;
  BOOST_TEST_REQUIRE(CheckpointReader::Open(prefix + "-2-00000-of-00002.afckpt", &shard0).ok());
  BOOST_TEST(shard0->Find("a") != nullptr);
  BOOST_TEST(shard0->Find("c") != nullptr);
  BOOST_TEST(shard0->Find("b") == nullptr);

  // Restored onto one device, in another graph, under another placement.
  Scope root = Scope::NewRootScope();
  Variable a(root.WithOpName("a"), Input::Initializer({0.0f, 0.0f, 0.0f}));
  Variable b(root.WithOpName("b"), Input::Initializer({0.0f}));
  Variable c(root.WithOpName("c"), Input::Initializer(0.0f));
  Saver saver(root);
  ClientSession session(root);
  const std::string latest = LatestCheckpoint(dir.path());
  BOOST_TEST(latest == prefix + "-2");
  Status s = saver.Restore(session, latest);
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({a, b, c}, &out).ok());
  BOOST_TEST(out[0].data<float>()[2] == 3.0f);
  BOOST_TEST(out[1].data<float>()[0] == 4.0f);
  BOOST_TEST(out[2].scalar<float>() == 5.0f);
  // A missing shard is named.
  fs::remove(prefix + "-2-00001-of-00002.afckpt");
  s = saver.Restore(session, latest);
  BOOST_TEST(s.code() == Code::NOT_FOUND, s);
  BOOST_TEST(s.message().find("00001-of-00002") != std::string::npos, s);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
