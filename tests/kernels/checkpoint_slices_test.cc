// SaveV2/RestoreV2 with shape_and_slices: a tensor saved as slices (a
// partitioned variable's shards) restores as any other set of slices, more
// or fewer, with unaligned boundaries, along either axis, from one file or
// several shard files; the whole assembles from slices and a slice comes
// out of a tensor saved whole. Gaps and mismatched full shapes are errors
// that name the tensor, the request and what the checkpoint holds.
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "core/bundle/bundle_merge.h"
#include "core/checkpoint_format.h"
#include "core/checkpoint_reader.h"
#include "core/checkpoint_shards.h"
#include "tests/core/checkpoint_test_util.h"
#include "tests/kernels/op_test_util.h"

namespace af::test {
namespace {

Tensor Strings(const std::vector<std::string>& v) { return Tensor::FromVector<std::string>(v); }

Status SaveV2(const std::string& prefix, const std::vector<std::string>& names,
              const std::vector<std::string>& slices, const std::vector<Tensor>& tensors) {
  KernelRunner r("SaveV2", "save");
  r.Input(Tensor::Scalar<std::string>(prefix)).Input(Strings(names)).Input(Strings(slices));
  for (const Tensor& t : tensors) r.Input(t);
  return r.Run().status();
}

StatusOr<std::vector<Tensor>> RestoreV2(const std::string& prefix,
                                        const std::vector<std::string>& names,
                                        const std::vector<std::string>& slices,
                                        DataType dtype = DT_FLOAT) {
  KernelRunner r("RestoreV2", "restore");
  r.Attr("dtypes", std::vector<DataType>(names.size(), dtype));
  r.Input(Tensor::Scalar<std::string>(prefix)).Input(Strings(names)).Input(Strings(slices));
  return r.Run();
}

// A rows x cols tensor whose element (r, c) is 100 r + c: every element
// says where it came from.
Tensor Grid(int64_t rows, int64_t cols) {
  Tensor t(DT_FLOAT, TensorShape{rows, cols});
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      t.data<float>()[r * cols + c] = static_cast<float>(100 * r + c);
  return t;
}

// The box [r0, r0+nr) x [c0, c0+nc) of Grid(..), element by element.
std::vector<double> GridBox(int64_t r0, int64_t nr, int64_t c0, int64_t nc) {
  std::vector<double> v;
  for (int64_t r = r0; r < r0 + nr; ++r)
    for (int64_t c = c0; c < c0 + nc; ++c) v.push_back(static_cast<double>(100 * r + c));
  return v;
}

// That box of a Grid as a tensor (what a shard holding it would save).
Tensor Box(const Tensor& /*grid*/, int64_t r0, int64_t nr, int64_t c0, int64_t nc) {
  const std::vector<double> v = GridBox(r0, nr, c0, nc);
  return Tensor::FromVector<float>(std::vector<float>(v.begin(), v.end()), TensorShape{nr, nc});
}

// Rows [r0, r0+nr) of a [rows, cols] tensor as a slice spec.
std::string Rows(int64_t rows, int64_t cols, int64_t r0, int64_t nr) {
  return std::to_string(rows) + " " + std::to_string(cols) + " " + std::to_string(r0) + "," +
         std::to_string(nr) + ":-";
}

// Saves a [10, 4] grid as "emb"'s four slices of 3, 3, 2, 2 rows (what
// FixedSizePartitioner(4) makes).
void SaveFourRowSlices(const std::string& prefix, const std::string& name) {
  const Tensor g = Grid(10, 4);
  AF_REQUIRE_OK(
      SaveV2(prefix, {name, name, name, name},
             {Rows(10, 4, 0, 3), Rows(10, 4, 3, 3), Rows(10, 4, 6, 2), Rows(10, 4, 8, 2)},
             {Box(g, 0, 3, 0, 4), Box(g, 3, 3, 0, 4), Box(g, 6, 2, 0, 4), Box(g, 8, 2, 0, 4)}));
}

// Restores rows [starts[i], starts[i+1]) of "emb" for each i and checks them.
void CheckRowSlices(const std::string& prefix, const std::string& name,
                    const std::vector<int64_t>& starts) {
  std::vector<std::string> names, specs;
  for (size_t i = 0; i + 1 < starts.size(); ++i) {
    names.push_back(name);
    specs.push_back(Rows(10, 4, starts[i], starts[i + 1] - starts[i]));
  }
  auto out = RestoreV2(prefix, names, specs);
  AF_REQUIRE_OK(out.status());
  BOOST_REQUIRE(out->size() == names.size());
  for (size_t i = 0; i + 1 < starts.size(); ++i) {
    const int64_t n = starts[i + 1] - starts[i];
    AF_EXPECT_OK(CheckTensor((*out)[i], DT_FLOAT, {n, 4}, GridBox(starts[i], n, 0, 4)));
  }
}

BOOST_AUTO_TEST_SUITE(checkpoint_slices)

BOOST_AUTO_TEST_CASE(slices_are_keyed_by_the_full_name_and_the_slice) {
  ScratchDir dir;
  SaveFourRowSlices(dir / "m", "emb");
  std::unique_ptr<CheckpointReader> reader;
  // A tensor bundle (the default) shows its slices under the same keys.
  AF_REQUIRE_OK(CheckpointReader::Open(dir / "m.index", &reader));
  std::vector<std::string> keys;
  for (const auto& e : reader->entries()) keys.push_back(e.name);
  BOOST_TEST(keys == (std::vector<std::string>{"emb@10 4 0,3:0,4", "emb@10 4 3,3:0,4",
                                               "emb@10 4 6,2:0,4", "emb@10 4 8,2:0,4"}));
  BOOST_TEST(reader->FindWithPrefix("emb@").size() == 4u);
  BOOST_TEST(reader->FindWithPrefix("em@").empty());
}

BOOST_AUTO_TEST_CASE(restores_more_fewer_and_unaligned_slices_along_axis_0) {
  ScratchDir dir;
  SaveFourRowSlices(dir / "m", "emb");
  CheckRowSlices(dir / "m", "emb", {0, 3, 6, 8, 10});              // the same four
  CheckRowSlices(dir / "m", "emb", {0, 5, 10});                    // two
  CheckRowSlices(dir / "m", "emb", {0, 2, 4, 5, 6, 7, 8, 9, 10});  // eight
  CheckRowSlices(dir / "m", "emb", {0, 1, 7, 10});                 // across boundaries
  // A box inside, cut on both axes, crossing three saved slices.
  auto box = RestoreV2(dir / "m", {"emb"}, {"10 4 2,5:1,2"});
  AF_REQUIRE_OK(box.status());
  AF_EXPECT_OK(CheckTensor((*box)[0], DT_FLOAT, {5, 2}, GridBox(2, 5, 1, 2)));
}

BOOST_AUTO_TEST_CASE(restores_other_slices_along_axis_1) {
  ScratchDir dir;
  const Tensor g = Grid(3, 10);
  // Columns 0-3, 4-6, 7-9.
  AF_REQUIRE_OK(SaveV2(dir / "m", {"wide", "wide", "wide"},
                       {"3 10 -:0,4", "3 10 0,3:4,3", "3 10 -:7,3"},
                       {Box(g, 0, 3, 0, 4), Box(g, 0, 3, 4, 3), Box(g, 0, 3, 7, 3)}));
  auto out =
      RestoreV2(dir / "m", {"wide", "wide", "wide"}, {"3 10 -:0,5", "3 10 -:5,5", "3 10 1,2:3,6"});
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_FLOAT, {3, 5}, GridBox(0, 3, 0, 5)));
  AF_EXPECT_OK(CheckTensor((*out)[1], DT_FLOAT, {3, 5}, GridBox(0, 3, 5, 5)));
  AF_EXPECT_OK(CheckTensor((*out)[2], DT_FLOAT, {2, 6}, GridBox(1, 2, 3, 6)));
}

BOOST_AUTO_TEST_CASE(the_whole_from_slices_and_a_slice_from_the_whole) {
  ScratchDir dir;
  SaveFourRowSlices(dir / "sliced", "emb");
  AF_REQUIRE_OK(SaveV2(dir / "whole", {"emb"}, {""}, {Grid(10, 4)}));
  auto whole = RestoreV2(dir / "sliced", {"emb"}, {""});
  AF_REQUIRE_OK(whole.status());
  AF_EXPECT_OK(CheckTensor((*whole)[0], DT_FLOAT, {10, 4}, GridBox(0, 10, 0, 4)));
  auto parts = RestoreV2(dir / "whole", {"emb", "emb", "emb"},
                         {Rows(10, 4, 0, 5), "10 4 5,5:-", "10 4 3,4:2,2"});
  AF_REQUIRE_OK(parts.status());
  AF_EXPECT_OK(CheckTensor((*parts)[0], DT_FLOAT, {5, 4}, GridBox(0, 5, 0, 4)));
  AF_EXPECT_OK(CheckTensor((*parts)[1], DT_FLOAT, {5, 4}, GridBox(5, 5, 0, 4)));
  AF_EXPECT_OK(CheckTensor((*parts)[2], DT_FLOAT, {4, 2}, GridBox(3, 4, 2, 2)));
}

// Sets ACTORFLOW_CHECKPOINT_FORMAT for the sharded .afckpt layout
// (core/checkpoint_shards.h) while it lives.
struct AfckptFormat {
  AfckptFormat() { ::setenv("ACTORFLOW_CHECKPOINT_FORMAT", "afckpt", 1); }
  ~AfckptFormat() { ::unsetenv("ACTORFLOW_CHECKPOINT_FORMAT"); }
};

BOOST_AUTO_TEST_CASE(slices_spread_over_shard_files_restore_together) {
  AfckptFormat afckpt;
  ScratchDir dir;
  const std::string prefix = dir / "m";
  const Tensor g = Grid(10, 4);
  // Shard 0 holds slices 0 and 2, shard 1 slices 1 and 3, as two devices
  // holding alternate shards would write them.
  AF_REQUIRE_OK(SaveV2(ShardedPrefix(prefix, 0, 2), {"emb", "emb", "other"},
                       {Rows(10, 4, 0, 3), Rows(10, 4, 6, 2), ""},
                       {Box(g, 0, 3, 0, 4), Box(g, 6, 2, 0, 4), Tensor::Scalar<float>(7)}));
  AF_REQUIRE_OK(SaveV2(ShardedPrefix(prefix, 1, 2), {"emb", "emb"},
                       {Rows(10, 4, 3, 3), Rows(10, 4, 8, 2)},
                       {Box(g, 3, 3, 0, 4), Box(g, 8, 2, 0, 4)}));
  AF_REQUIRE_OK(WriteShardIndex(prefix, 2));
  CheckRowSlices(prefix, "emb", {0, 5, 10});
  CheckRowSlices(prefix, "emb", {0, 2, 4, 5, 6, 7, 8, 9, 10});
  auto whole = RestoreV2(prefix, {"emb", "other"}, {"", ""});
  AF_REQUIRE_OK(whole.status());
  AF_EXPECT_OK(CheckTensor((*whole)[0], DT_FLOAT, {10, 4}, GridBox(0, 10, 0, 4)));
  AF_EXPECT_OK(CheckTensor((*whole)[1], DT_FLOAT, {}, {7}));
}

// The same slices as two tensor bundles merged by MergeV2Checkpoints, as
// TensorFlow's sharded saver leaves them: one index, two data files.
BOOST_AUTO_TEST_CASE(slices_in_merged_bundles_restore_together) {
  ScratchDir dir;
  const std::string prefix = dir / "m";
  const Tensor g = Grid(10, 4);
  const std::string part0 = dir / "m_temp/part-00000-of-00002";
  const std::string part1 = dir / "m_temp/part-00001-of-00002";
  AF_REQUIRE_OK(SaveV2(part0, {"emb", "emb", "other"}, {Rows(10, 4, 0, 3), Rows(10, 4, 6, 2), ""},
                       {Box(g, 0, 3, 0, 4), Box(g, 6, 2, 0, 4), Tensor::Scalar<float>(7)}));
  AF_REQUIRE_OK(SaveV2(part1, {"emb", "emb"}, {Rows(10, 4, 3, 3), Rows(10, 4, 8, 2)},
                       {Box(g, 3, 3, 0, 4), Box(g, 8, 2, 0, 4)}));
  AF_REQUIRE_OK(bundle::MergeBundles({part0, part1}, prefix, true, false));
  CheckRowSlices(prefix, "emb", {0, 5, 10});
  CheckRowSlices(prefix, "emb", {0, 2, 4, 5, 6, 7, 8, 9, 10});
  auto whole = RestoreV2(prefix, {"emb", "other"}, {"", ""});
  AF_REQUIRE_OK(whole.status());
  AF_EXPECT_OK(CheckTensor((*whole)[0], DT_FLOAT, {10, 4}, GridBox(0, 10, 0, 4)));
  AF_EXPECT_OK(CheckTensor((*whole)[1], DT_FLOAT, {}, {7}));
  // Slices of different full shapes cannot be merged.
  AF_REQUIRE_OK(SaveV2(dir / "x0", {"emb"}, {Rows(10, 4, 0, 5)}, {Box(g, 0, 5, 0, 4)}));
  AF_REQUIRE_OK(SaveV2(dir / "x1", {"emb"}, {Rows(12, 4, 5, 5)}, {Box(g, 5, 5, 0, 4)}));
  Status s = bundle::MergeBundles({dir / "x0", dir / "x1"}, dir / "x", false, false);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
}

BOOST_AUTO_TEST_CASE(a_gap_is_not_found_naming_what_is_missing) {
  ScratchDir dir;
  const Tensor g = Grid(10, 4);
  // Rows 6 and 7 were never saved.
  AF_REQUIRE_OK(SaveV2(dir / "m", {"emb", "emb", "emb"},
                       {Rows(10, 4, 0, 3), Rows(10, 4, 3, 3), Rows(10, 4, 8, 2)},
                       {Box(g, 0, 3, 0, 4), Box(g, 3, 3, 0, 4), Box(g, 8, 2, 0, 4)}));
  CheckRowSlices(dir / "m", "emb", {0, 6});  // what is there still restores
  auto out = RestoreV2(dir / "m", {"emb"}, {Rows(10, 4, 5, 5)});
  BOOST_TEST(out.status().code() == Code::NOT_FOUND, out.status());
  for (const char* part : {"'emb'", "10 4 5,5:-", "10 4 8,2:0,4", "[6,8)x[0,4)"})
    BOOST_TEST(out.status().message().find(part) != std::string::npos, out.status());
  auto whole = RestoreV2(dir / "m", {"emb"}, {""});
  BOOST_TEST(whole.status().code() == Code::NOT_FOUND, whole.status());
  BOOST_TEST(whole.status().message().find("the whole tensor") != std::string::npos,
             whole.status());
  // A column gap, found on the other axis.
  AF_REQUIRE_OK(SaveV2(dir / "cols", {"t", "t"}, {"2 6 -:0,2", "2 6 -:3,3"},
                       {Box(g, 0, 2, 0, 2), Box(g, 0, 2, 3, 3)}));
  auto cols = RestoreV2(dir / "cols", {"t"}, {"2 6 1,1:-"});
  BOOST_TEST(cols.status().code() == Code::NOT_FOUND, cols.status());
  BOOST_TEST(cols.status().message().find("[1,2)x[2,3)") != std::string::npos, cols.status());
  // Nothing saved under the name at all.
  auto none = RestoreV2(dir / "m", {"em"}, {Rows(10, 4, 0, 1)});
  BOOST_TEST(none.status().code() == Code::NOT_FOUND, none.status());
  BOOST_TEST(none.status().message().find("em ") != std::string::npos, none.status());
}

BOOST_AUTO_TEST_CASE(a_different_full_shape_is_invalid_argument) {
  ScratchDir dir;
  SaveFourRowSlices(dir / "sliced", "emb");
  auto out = RestoreV2(dir / "sliced", {"emb"}, {"12 4 0,5:-"});
  BOOST_TEST(out.status().code() == Code::INVALID_ARGUMENT, out.status());
  for (const char* part : {"'emb'", "12 4 0,5:-", "[12,4]", "[10,4]", "10 4 0,3:0,4"})
    BOOST_TEST(out.status().message().find(part) != std::string::npos, out.status());
  AF_REQUIRE_OK(SaveV2(dir / "whole", {"emb"}, {""}, {Grid(10, 4)}));
  auto from_whole = RestoreV2(dir / "whole", {"emb"}, {"10 5 0,5:-"});
  BOOST_TEST(from_whole.status().code() == Code::INVALID_ARGUMENT, from_whole.status());
  BOOST_TEST(from_whole.status().message().find("[10,4]") != std::string::npos,
             from_whole.status());
  // Saved slices that disagree among themselves (two saves into .afckpt
  // shards; merging tensor bundles refuses them, see above).
  const std::string prefix = dir / "mixed";
  const Tensor g = Grid(10, 4);
  std::optional<AfckptFormat> afckpt(std::in_place);
  AF_REQUIRE_OK(
      SaveV2(ShardedPrefix(prefix, 0, 2), {"emb"}, {Rows(10, 4, 0, 5)}, {Box(g, 0, 5, 0, 4)}));
  AF_REQUIRE_OK(
      SaveV2(ShardedPrefix(prefix, 1, 2), {"emb"}, {Rows(12, 4, 5, 5)}, {Box(g, 5, 5, 0, 4)}));
  AF_REQUIRE_OK(WriteShardIndex(prefix, 2));
  afckpt.reset();
  auto mixed = RestoreV2(prefix, {"emb"}, {""});
  BOOST_TEST(mixed.status().code() == Code::INVALID_ARGUMENT, mixed.status());
  BOOST_TEST(mixed.status().message().find("12 4 5,5:0,4") != std::string::npos, mixed.status());
  // And a dtype the slices do not have.
  auto as_int = RestoreV2(dir / "sliced", {"emb"}, {Rows(10, 4, 0, 5)}, DT_INT32);
  BOOST_TEST(as_int.status().code() == Code::INVALID_ARGUMENT, as_int.status());
  BOOST_TEST(as_int.status().message().find("float") != std::string::npos, as_int.status());
  auto bad_spec = RestoreV2(dir / "sliced", {"emb"}, {"10 4 0,11:-"});
  BOOST_TEST(bad_spec.status().code() == Code::INVALID_ARGUMENT, bad_spec.status());
  BOOST_TEST(bad_spec.status().message().find("10 4 0,11:-") != std::string::npos,
             bad_spec.status());
}

BOOST_AUTO_TEST_CASE(save_v2_refuses_inconsistent_slices_and_writes_nothing) {
  ScratchDir dir;
  const Tensor g = Grid(10, 4);
  const std::string prefix = dir / "m";
  auto refused = [&](const std::vector<std::string>& names, const std::vector<std::string>& slices,
                     const std::vector<Tensor>& tensors, const char* says) {
    Status s = SaveV2(prefix, names, slices, tensors);
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
    BOOST_TEST(s.message().find(says) != std::string::npos, s);
    BOOST_TEST(dir.List().empty());
  };
  refused({"emb"}, {Rows(10, 4, 0, 3)}, {Box(g, 0, 2, 0, 4)}, "[2,4]");  // not its shape
  refused({"emb"}, {"10 4 0,3"}, {Box(g, 0, 3, 0, 4)}, "10 4 0,3");      // malformed
  refused({"a@b"}, {""}, {g}, "a@b");                                    // the marker
  refused({"emb", "emb"}, {"", Rows(10, 4, 0, 3)}, {g, Box(g, 0, 3, 0, 4)}, "whole");
  refused({"emb", "emb"}, {Rows(10, 4, 0, 3), ""}, {Box(g, 0, 3, 0, 4), g}, "whole");
  refused({"emb", "emb"}, {Rows(10, 4, 0, 3), Rows(11, 4, 3, 3)},
          {Box(g, 0, 3, 0, 4), Box(g, 3, 3, 0, 4)}, "11 4 3,3:-");
  // One slice twice: the writer refuses the second and publishes nothing.
  Status twice = SaveV2(prefix, {"emb", "emb"}, {Rows(10, 4, 0, 3), "10 4 0,3:0,4"},
                        {Box(g, 0, 3, 0, 4), Box(g, 0, 3, 0, 4)});
  BOOST_TEST(twice.code() == Code::INVALID_ARGUMENT, twice);
  BOOST_TEST(dir.List().empty());
}

BOOST_AUTO_TEST_CASE(string_slices_assemble_too) {
  ScratchDir dir;
  Tensor top = Tensor::FromVector<std::string>({"a", "bb", "ccc"}, TensorShape{1, 3});
  Tensor bottom = Tensor::FromVector<std::string>({"", "eeeee", "f"}, TensorShape{1, 3});
  AF_REQUIRE_OK(SaveV2(dir / "m", {"words", "words"}, {"2 3 0,1:-", "2 3 1,1:-"}, {top, bottom}));
  auto out = RestoreV2(dir / "m", {"words"}, {"2 3 -:1,2"}, DT_STRING);
  AF_REQUIRE_OK(out.status());
  const Tensor& t = (*out)[0];
  BOOST_TEST_REQUIRE(t.shape() == (TensorShape{2, 2}));
  const std::vector<std::string> want = {"bb", "ccc", "eeeee", "f"};
  for (int i = 0; i < 4; ++i) BOOST_TEST(t.data<std::string>()[i] == want[i]);
}

BOOST_AUTO_TEST_CASE(a_corrupt_slice_fails_the_whole_restore) {
  ScratchDir dir;
  SaveFourRowSlices(dir / "m", "emb");
  std::string bytes = ReadBytes(dir / "m.data-00000-of-00001");
  bytes[1] ^= 0x10;  // in the first slice's data
  WriteBytes(dir / "m.data-00000-of-00001", bytes);
  CheckRowSlices(dir / "m", "emb", {6, 10});  // slices 3 and 4 are intact
  auto out = RestoreV2(dir / "m", {"emb", "emb"}, {Rows(10, 4, 5, 5), Rows(10, 4, 0, 5)});
  BOOST_TEST(out.status().code() == Code::DATA_LOSS, out.status());
  BOOST_TEST(out.status().message().find("emb@10 4 0,3:0,4") != std::string::npos, out.status());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
