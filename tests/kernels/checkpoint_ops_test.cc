// SaveV2/RestoreV2 and Save/Restore kernels: round trips of every dtype and
// the errors a restore must report without producing any tensor.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/checkpoint_format.h"
#include "tests/core/checkpoint_test_util.h"
#include "tests/kernels/op_test_util.h"

namespace af::test {
namespace {

Tensor Strings(const std::vector<std::string>& v) { return Tensor::FromVector<std::string>(v); }

// A tensor of `dtype` with varied bytes (bools 0/1).
Tensor Sample(DataType dtype, int seed) {
  Tensor t(dtype, TensorShape{2, 3});
  if (dtype == DT_STRING) {
    for (int i = 0; i < 6; ++i) t.data<std::string>()[i] = std::string(i + seed, 'q');
    return t;
  }
  auto* b = static_cast<unsigned char*>(t.raw_data());
  for (size_t i = 0; i < t.TotalBytes(); ++i)
    b[i] = static_cast<unsigned char>(dtype == DT_BOOL ? (i + seed) % 2 : i * 13 + seed);
  return t;
}

bool Same(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.dtype() == DT_STRING) {
    for (int64_t i = 0; i < a.NumElements(); ++i)
      if (a.data<std::string>()[i] != b.data<std::string>()[i]) return false;
    return true;
  }
  return std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0;
}

Status SaveV2(const std::string& prefix, const std::vector<std::string>& names,
              const std::vector<Tensor>& tensors) {
  KernelRunner r("SaveV2", "save");
  r.Input(Tensor::Scalar<std::string>(prefix)).Input(Strings(names));
  r.Input(Strings(std::vector<std::string>(names.size())));
  for (const Tensor& t : tensors) r.Input(t);
  return r.Run().status();
}

StatusOr<std::vector<Tensor>> RestoreV2(const std::string& prefix,
                                        const std::vector<std::string>& names,
                                        const std::vector<DataType>& dtypes,
                                        std::vector<std::string> slices = {}) {
  KernelRunner r("RestoreV2", "restore");
  if (slices.empty()) slices.resize(names.size());
  r.Attr("dtypes", dtypes).Input(Tensor::Scalar<std::string>(prefix)).Input(Strings(names));
  r.Input(Strings(slices));
  return r.Run();
}

const std::vector<DataType> kDtypes = {DT_FLOAT, DT_DOUBLE, DT_INT32,  DT_UINT8,  DT_INT16,
                                       DT_INT8,  DT_STRING, DT_COMPLEX64, DT_INT64, DT_BOOL,
                                       DT_BFLOAT16, DT_UINT16, DT_COMPLEX128, DT_HALF,
                                       DT_UINT32, DT_UINT64, DT_QINT8, DT_QUINT8, DT_QINT32};

const std::vector<std::string> kBundleFiles = {"m.data-00000-of-00001", "m.index"};

BOOST_AUTO_TEST_SUITE(checkpoint_ops)

BOOST_AUTO_TEST_CASE(save_v2_then_restore_v2_gives_identical_tensors) {
  ScratchDir dir;
  std::vector<std::string> names;
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < kDtypes.size(); ++i) {
    names.push_back("layer/" + DataTypeString(kDtypes[i]));
    tensors.push_back(Sample(kDtypes[i], static_cast<int>(i)));
  }
  const std::string prefix = dir / "sub/dir/model.ckpt-7";  // directories are created
  AF_REQUIRE_OK(SaveV2(prefix, names, tensors));
  // TensorFlow's tensor bundle by default.
  BOOST_TEST(test::ReadBytes(prefix + ".index").size() > 0u);
  BOOST_TEST(test::ReadBytes(prefix + ".data-00000-of-00001").size() > 0u);

  auto restored = RestoreV2(prefix, names, kDtypes);
  AF_REQUIRE_OK(restored.status());
  BOOST_REQUIRE(restored->size() == tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i)
    BOOST_CHECK_MESSAGE(Same((*restored)[i], tensors[i]), names[i]);

  // A subset, in another order.
  auto two = RestoreV2(prefix, {"layer/int64", "layer/float"}, {DT_INT64, DT_FLOAT});
  AF_REQUIRE_OK(two.status());
  BOOST_TEST(Same((*two)[0], tensors[8]));
  BOOST_TEST(Same((*two)[1], tensors[0]));
}

BOOST_AUTO_TEST_CASE(tf1_save_and_restore) {
  ScratchDir dir;
  const std::string file = dir / "v1.ckpt";
  KernelRunner save("Save");
  save.Input(Tensor::Scalar<std::string>(file)).Input(Strings({"a", "b"}));
  save.Input(Tensor::FromVector<float>({1, 2})).Input(Tensor::Scalar<int64_t>(9));
  AF_REQUIRE_OK(save.Run().status());
  BOOST_TEST(dir.List() == std::vector<std::string>{"v1.ckpt"});  // the name as given

  KernelRunner restore("Restore");
  restore.Attr("dt", DT_INT64).Input(Tensor::Scalar<std::string>(file)).Input(
      Tensor::Scalar<std::string>("b"));
  auto out = restore.Run();
  AF_REQUIRE_OK(out.status());
  BOOST_TEST((*out)[0].scalar<int64_t>() == 9);

  // RestoreV2 reads it too, given the file as its prefix.
  auto v2 = RestoreV2(file, {"a"}, {DT_FLOAT});
  AF_REQUIRE_OK(v2.status());
  AF_EXPECT_OK(CheckTensor((*v2)[0], DT_FLOAT, {2}, {1, 2}));
}

BOOST_AUTO_TEST_CASE(restore_errors_name_the_problem) {
  ScratchDir dir;
  const std::string prefix = dir / "m";
  AF_REQUIRE_OK(SaveV2(prefix, {"w", "b"}, {Tensor::FromVector<float>({1, 2}),
                                            Tensor::Scalar<double>(3)}));
  auto missing = RestoreV2(prefix, {"w", "nope"}, {DT_FLOAT, DT_FLOAT});
  BOOST_TEST(missing.status().code() == Code::NOT_FOUND);
  BOOST_CHECK_MESSAGE(missing.status().message().find("nope") != std::string::npos,
                      missing.status().message());
  BOOST_CHECK_MESSAGE(missing.status().message().find("restore") != std::string::npos,
                      missing.status().message());

  auto wrong_type = RestoreV2(prefix, {"b"}, {DT_FLOAT});
  BOOST_TEST(wrong_type.status().code() == Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(wrong_type.status().message().find("double") != std::string::npos,
                      wrong_type.status().message());

  BOOST_TEST(RestoreV2(dir / "absent", {"w"}, {DT_FLOAT}).status().code() == Code::NOT_FOUND);
  // A slice of a tensor saved whole (more in checkpoint_slices_test.cc).
  auto part = RestoreV2(prefix, {"w"}, {DT_FLOAT}, {"2 1,1"});
  AF_REQUIRE_OK(part.status());
  AF_EXPECT_OK(CheckTensor((*part)[0], DT_FLOAT, {1}, {2}));
  KernelRunner bad_prefix("RestoreV2");
  bad_prefix.Attr("dtypes", std::vector<DataType>{DT_FLOAT})
      .Input(Strings({"a", "b"}))
      .Input(Strings({"w"}))
      .Input(Strings({""}));
  BOOST_TEST(bad_prefix.Run().status().code() == Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(corrupt_and_truncated_files_are_data_loss) {
  ScratchDir dir;
  const std::string prefix = dir / "m";
  AF_REQUIRE_OK(SaveV2(prefix, {"w", "b"}, {Tensor::FromVector<float>({1, 2, 3, 4}),
                                            Tensor::Scalar<double>(3)}));
  const std::string file = prefix + ".data-00000-of-00001";
  const std::string good = test::ReadBytes(file);

  test::WriteBytes(file, good.substr(0, good.size() - 10));
  auto out = RestoreV2(prefix, {"w", "b"}, {DT_FLOAT, DT_DOUBLE});
  BOOST_TEST(out.status().code() == Code::DATA_LOSS);
  BOOST_CHECK_MESSAGE(out.status().message().find(file) != std::string::npos,
                      out.status().message());

  // A flipped bit in w's data (the first tensor, at offset 0): b alone
  // still restores, but a restore of both fails as a whole.
  std::string bad = good;
  bad[5] ^= 0x04;
  test::WriteBytes(file, bad);
  AF_EXPECT_OK(RestoreV2(prefix, {"b"}, {DT_DOUBLE}).status());
  out = RestoreV2(prefix, {"b", "w"}, {DT_DOUBLE, DT_FLOAT});
  BOOST_TEST(out.status().code() == Code::DATA_LOSS);
  BOOST_CHECK_MESSAGE(out.status().message().find("'w'") != std::string::npos,
                      out.status().message());
}

BOOST_AUTO_TEST_CASE(a_failed_save_keeps_the_previous_checkpoint) {
  ScratchDir dir;
  const std::string prefix = dir / "m";
  AF_REQUIRE_OK(SaveV2(prefix, {"w"}, {Tensor::FromVector<float>({1})}));
  // Duplicate names: the save fails after writing the first tensor.
  Status s = SaveV2(prefix, {"w", "w"},
                    {Tensor::FromVector<float>({2}), Tensor::FromVector<float>({3})});
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(s.message().find("save") != std::string::npos, s.message());
  BOOST_TEST(dir.List() == kBundleFiles);
  auto out = RestoreV2(prefix, {"w"}, {DT_FLOAT});
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_FLOAT, {1}, {1}));

  // Mismatched names and tensors are rejected before anything is written.
  KernelRunner r("SaveV2");
  r.Input(Tensor::Scalar<std::string>(dir / "other")).Input(Strings({"a", "b"}));
  r.Input(Strings({"", ""})).Input(Tensor::Scalar<float>(1));
  BOOST_TEST(r.Run().status().code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(dir.List() == kBundleFiles);
}

// With ACTORFLOW_CHECKPOINT_FORMAT=afckpt SaveV2 writes PREFIX.afckpt;
// RestoreV2 reads either format whatever the variable says.
BOOST_AUTO_TEST_CASE(afckpt_on_request_and_both_formats_restore) {
  ScratchDir dir;
  ::setenv("ACTORFLOW_CHECKPOINT_FORMAT", "afckpt", 1);
  Status s = SaveV2(dir / "own", {"w"}, {Tensor::FromVector<float>({4, 5})});
  ::setenv("ACTORFLOW_CHECKPOINT_FORMAT", "bogus", 1);
  Status bad = SaveV2(dir / "bad", {"w"}, {Tensor::FromVector<float>({4, 5})});
  ::unsetenv("ACTORFLOW_CHECKPOINT_FORMAT");
  AF_REQUIRE_OK(s);
  BOOST_TEST(bad.code() == Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(bad.message().find("bogus") != std::string::npos, bad.message());
  AF_REQUIRE_OK(SaveV2(dir / "tf", {"w"}, {Tensor::FromVector<float>({6, 7})}));
  BOOST_TEST(dir.List() == (std::vector<std::string>{"own.afckpt", "tf.data-00000-of-00001",
                                                     "tf.index"}));
  auto own = RestoreV2(dir / "own", {"w"}, {DT_FLOAT});
  AF_REQUIRE_OK(own.status());
  AF_EXPECT_OK(CheckTensor((*own)[0], DT_FLOAT, {2}, {4, 5}));
  auto tf = RestoreV2(dir / "tf", {"w"}, {DT_FLOAT});
  AF_REQUIRE_OK(tf.status());
  AF_EXPECT_OK(CheckTensor((*tf)[0], DT_FLOAT, {2}, {6, 7}));
}

// MergeV2Checkpoints over two SaveV2 bundles, as a sharded Saver runs it.
BOOST_AUTO_TEST_CASE(merge_v2_checkpoints) {
  ScratchDir dir;
  AF_REQUIRE_OK(SaveV2(dir / "m_temp/part-00000-of-00002", {"a"}, {Tensor::Scalar<int32_t>(1)}));
  AF_REQUIRE_OK(SaveV2(dir / "m_temp/part-00001-of-00002", {"b"}, {Tensor::Scalar<int32_t>(2)}));
  KernelRunner merge("MergeV2Checkpoints", "merge");
  merge.Attr("delete_old_dirs", true).Attr("allow_missing_files", false);
  merge.Input(Strings({dir / "m_temp/part-00000-of-00002", dir / "m_temp/part-00001-of-00002"}))
      .Input(Tensor::Scalar<std::string>(dir / "m"));
  AF_REQUIRE_OK(merge.Run().status());
  BOOST_TEST(dir.List() == (std::vector<std::string>{"m.data-00000-of-00002",
                                                     "m.data-00001-of-00002", "m.index"}));
  auto out = RestoreV2(dir / "m", {"b", "a"}, {DT_INT32, DT_INT32});
  AF_REQUIRE_OK(out.status());
  BOOST_TEST((*out)[0].scalar<int32_t>() == 2);
  BOOST_TEST((*out)[1].scalar<int32_t>() == 1);

  KernelRunner again("MergeV2Checkpoints", "merge");
  again.Attr("delete_old_dirs", true).Attr("allow_missing_files", false);
  again.Input(Strings({dir / "m_temp/part-00000-of-00002"}))
      .Input(Tensor::Scalar<std::string>(dir / "x"));
  Status s = again.Run().status();
  BOOST_TEST(s.code() == Code::NOT_FOUND);
  BOOST_CHECK_MESSAGE(s.message().find("merge") != std::string::npos, s.message());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
