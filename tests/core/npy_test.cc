#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/npy.h"
#include "serialization_test_util.h"
#include "tests/test_util.h"

namespace af {
namespace {

using test::FromHex;
using test::PatternTensor;
using test::SameTensor;

// What numpy.save (numpy >= 1.24) writes: the header dict, spaces up to the
// 64-byte boundary (with room for dim 0 to grow to 21 digits), a newline,
// then the raw little-endian data.
constexpr std::string_view kNumpyHeaderF32x2x3 =
    "934e554d5059010076007b276465736372273a20273c6634272c2027666f727472616e5f6f72646572273a"
    "2046616c73652c20277368617065273a2028322c2033292c207d2020202020202020202020202020202020"
    "20202020202020202020202020202020202020202020202020202020202020202020202020202020200a";
constexpr std::string_view kNumpyHeaderI64Scalar =
    "934e554d5059010076007b276465736372273a20273c6938272c2027666f727472616e5f6f72646572273a"
    "2046616c73652c20277368617065273a2028292c207d202020202020202020202020202020202020202020"
    "20202020202020202020202020202020202020202020202020202020202020202020202020202020200a";
constexpr std::string_view kNumpyHeaderBool3 =
    "934e554d5059010076007b276465736372273a20277c6231272c2027666f727472616e5f6f72646572273a"
    "2046616c73652c20277368617065273a2028332c292c207d20202020202020202020202020202020202020"
    "20202020202020202020202020202020202020202020202020202020202020202020202020202020200a";
constexpr std::string_view kNumpyHeaderU16x1 =
    "934e554d5059010076007b276465736372273a20273c7532272c2027666f727472616e5f6f72646572273a"
    "2046616c73652c20277368617065273a2028312c292c207d20202020202020202020202020202020202020"
    "20202020202020202020202020202020202020202020202020202020202020202020202020202020200a";
constexpr std::string_view kNumpyHeaderF64x0 =
    "934e554d5059010076007b276465736372273a20273c6638272c2027666f727472616e5f6f72646572273a"
    "2046616c73652c20277368617065273a2028302c292c207d20202020202020202020202020202020202020"
    "20202020202020202020202020202020202020202020202020202020202020202020202020202020200a";
constexpr std::string_view kNumpyHeaderC64x2 =
    "934e554d5059010076007b276465736372273a20273c6338272c2027666f727472616e5f6f72646572273a"
    "2046616c73652c20277368617065273a2028322c292c207d20202020202020202020202020202020202020"
    "20202020202020202020202020202020202020202020202020202020202020202020202020202020200a";
// Rank 9 float32 (0, ..., 0, 10**17): the dict lands exactly on a 64-byte
// boundary, and numpy then pads a whole 64 bytes more.
constexpr std::string_view kNumpyHeaderFullPad =
    "934e554d50590100b6007b276465736372273a20273c6634272c2027666f727472616e5f6f72646572273a"
    "2046616c73652c20277368617065273a2028302c20302c20302c20302c20302c20302c20302c20302c2031"
    "3030303030303030303030303030303030292c207d20202020202020202020202020202020202020202020"
    "20202020202020202020202020202020202020202020202020202020202020202020202020202020202020"
    "202020202020202020202020202020202020200a";

std::string Serialized(const Tensor& t) {
  std::string out;
  Status s = SerializeNpy(t, &out);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return out;
}

Tensor MustParse(std::string_view bytes) {
  Tensor t;
  Status s = ParseNpy(bytes, &t);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return t;
}

Status ParseStatus(std::string_view bytes) {
  Tensor t;
  return ParseNpy(bytes, &t);
}

using testing::Contains;

// A version 1.0 image with a hand-written header dict (padded like numpy).
std::string NpyWithHeader(std::string_view dict, std::string_view data, int major = 1) {
  const size_t preamble = major == 1 ? 10 : 12;
  std::string text(dict);
  while ((preamble + text.size() + 1) % 64 != 0) text += ' ';
  text += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < preamble - 8; ++i)
    out += static_cast<char>((text.size() >> (8 * i)) & 0xff);
  return out + text + std::string(data);
}

std::string TempPath(const std::string& name) {
  static int counter = 0;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("af_npy_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / (std::to_string(counter++) + "_" + name)).string();
}

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

BOOST_AUTO_TEST_SUITE(npy)

BOOST_AUTO_TEST_CASE(writes_exactly_what_numpy_writes) {
  std::vector<float> f = {1, 2, 3, 4, 5, 6};
  BOOST_TEST(Serialized(Tensor::FromVector(f, TensorShape{2, 3})) ==
             FromHex(kNumpyHeaderF32x2x3) +
                 std::string(reinterpret_cast<const char*>(f.data()), 24));
  BOOST_TEST(Serialized(Tensor::Scalar<int64_t>(-7)) ==
             FromHex(kNumpyHeaderI64Scalar) + std::string(8, '\xff').replace(0, 1, "\xf9"));
  BOOST_TEST(Serialized(Tensor::FromVector<bool>({true, false, true})) ==
             FromHex(kNumpyHeaderBool3) + std::string("\x01\x00\x01", 3));
  BOOST_TEST(Serialized(Tensor::FromVector<uint16_t>({65535})) ==
             FromHex(kNumpyHeaderU16x1) + "\xff\xff");
  BOOST_TEST(Serialized(Tensor(DT_DOUBLE, TensorShape{0})) == FromHex(kNumpyHeaderF64x0));
  BOOST_TEST(Serialized(Tensor::FromVector<complex64>({{1, -1}, {0.5f, 2}})) ==
             FromHex(kNumpyHeaderC64x2) +
                 FromHex("0000803f000080bf0000003f00000040"));
  BOOST_TEST(Serialized(Tensor(DT_FLOAT, TensorShape{0, 0, 0, 0, 0, 0, 0, 0,
                                                     100000000000000000})) ==
             FromHex(kNumpyHeaderFullPad));
}

BOOST_AUTO_TEST_CASE(reads_numpy_written_bytes) {
  Tensor t = MustParse(FromHex(kNumpyHeaderF32x2x3) +
                       FromHex("0000803f0000004000004040000080400000a0400000c040"));
  BOOST_TEST(t.dtype() == DT_FLOAT);
  BOOST_TEST(t.shape() == (TensorShape{2, 3}));
  BOOST_TEST(t.data<float>()[5] == 6.0f);
  t = MustParse(FromHex(kNumpyHeaderI64Scalar) + FromHex("f9ffffffffffffff"));
  BOOST_TEST(t.dims() == 0);
  BOOST_TEST(t.scalar<int64_t>() == -7);
  t = MustParse(FromHex(kNumpyHeaderF64x0));
  BOOST_TEST(t.shape() == (TensorShape{0}));
  t = MustParse(FromHex(kNumpyHeaderC64x2) + FromHex("0000803f000080bf0000003f00000040"));
  BOOST_TEST((t.data<complex64>()[1] == complex64(0.5f, 2.0f)));
}

BOOST_AUTO_TEST_CASE(every_numpy_type_round_trips_byte_exact) {
  const std::vector<TensorShape> shapes = {TensorShape{}, TensorShape{0}, TensorShape{1},
                                           TensorShape{5}, TensorShape{2, 3},
                                           TensorShape{2, 0, 3}, TensorShape{1, 2, 1, 3}};
  for (DataType dtype : test::NpyTypes()) {
    for (const TensorShape& shape : shapes) {
      BOOST_TEST_CONTEXT(DataTypeString(dtype) << " " << shape.DebugString()) {
        const Tensor original = PatternTensor(dtype, shape, 3);
        const std::string bytes = Serialized(original);
        BOOST_TEST(bytes.size() % 64 == original.TotalBytes() % 64);
        BOOST_TEST(bytes.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
        const Tensor back = MustParse(bytes);
        BOOST_TEST(SameTensor(back, original));
        BOOST_TEST(Serialized(back) == bytes);
        NpyHeader header;
        BOOST_REQUIRE(ParseNpyHeader(bytes, &header).ok());
        BOOST_TEST(header.data_offset % 64 == 0u);
        BOOST_TEST(header.data_bytes == original.TotalBytes());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(headers_over_65535_bytes_use_version_2) {
  // 30000 dims of 1 need about 90 KB of dict.
  TensorShape shape;
  for (int i = 0; i < 30000; ++i) shape.AddDim(1);
  Tensor t = PatternTensor(DT_INT16, shape, 5);
  const std::string bytes = Serialized(t);
  BOOST_TEST(bytes.substr(0, 8) == std::string("\x93NUMPY\x02\x00", 8));
  BOOST_TEST((bytes.size() - 2) % 64 == 0u);
  BOOST_TEST(bytes[bytes.size() - 3] == '\n');
  const Tensor back = MustParse(bytes);
  BOOST_TEST(SameTensor(back, t));
}

BOOST_AUTO_TEST_CASE(reads_versions_2_and_3_and_other_spellings) {
  const std::string f32(reinterpret_cast<const char*>(std::vector<float>{1, 2}.data()), 8);
  for (int major : {1, 2, 3}) {
    Tensor t = MustParse(NpyWithHeader(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", f32, major));
    BOOST_TEST(t.data<float>()[1] == 2.0f);
  }
  struct Case {
    std::string_view dict;
    DataType dtype;
  };
  const Case cases[] = {
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (2,)}", DT_UINT8},
      {"{'descr': '<u1', 'fortran_order': False, 'shape': (2,)}", DT_UINT8},
      {"{'descr': '=i2', 'fortran_order': False, 'shape': (1,)}", DT_INT16},
      {"{'descr': 'i2', 'fortran_order': False, 'shape': (1,)}", DT_INT16},
      {"{\"shape\": (2,), \"descr\": \"|b1\", \"fortran_order\": False}", DT_BOOL},
      {"{'descr':'<f2','fortran_order':False,'shape':(1,)}", DT_HALF},
      {"{'descr': '<i8', 'fortran_order': False, 'shape': (1L,), }", DT_INT64},  // Python 2
      {"{'descr': '|i1', 'fortran_order': True, 'shape': (2,), }", DT_INT8},
      {"{'descr': '>u1', 'fortran_order': False, 'shape': (2,), }", DT_UINT8},
      {"{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }", DT_COMPLEX128},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.dict) {
      const size_t bytes = static_cast<size_t>(DataTypeSize(c.dtype)) *
                           (c.dict.find("(2,)") != std::string_view::npos ? 2 : 1);
      Tensor t = MustParse(NpyWithHeader(c.dict, std::string(bytes, '\x01')));
      BOOST_TEST(t.dtype() == c.dtype);
    }
  }
  // Old numpy aligned headers to 16 bytes, not 64.
  std::string old("\x93NUMPY\x01\x00", 8);
  std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }";
  while ((10 + dict.size() + 1) % 16 != 0) dict += ' ';
  dict += '\n';
  old += static_cast<char>(dict.size());
  old += '\0';
  Tensor t = MustParse(old + dict + std::string("\x2a\0\0\0", 4));
  BOOST_TEST(t.data<int32_t>()[0] == 42);
}

BOOST_AUTO_TEST_CASE(fortran_order_is_accepted_only_when_layout_is_the_same) {
  const std::string six(24, '\0');
  Tensor t = MustParse(
      NpyWithHeader("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 6, 1), }", six));
  BOOST_TEST(t.shape() == (TensorShape{1, 6, 1}));
  Status s = ParseStatus(
      NpyWithHeader("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", six));
  BOOST_TEST(errors::IsInvalidArgument(s));
  BOOST_TEST(Contains(s, "fortran_order"), s.ToString());
}

BOOST_AUTO_TEST_CASE(unsupported_descrs_say_why) {
  struct Case {
    std::string_view descr;
    std::string_view says;
  };
  const Case cases[] = {
      {"'>f4'", "big-endian"}, {"'|O'", "object array"}, {"'<U3'", "unknown"},
      {"'<f16'", "unknown"},   {"'<m8[s]'", "unknown"},  {"''", "names no type"},
      {"[('a', '<f4')]", "structured"}, {"3", "not a dtype string"},
  };
  for (const Case& c : cases) {
    const std::string dict = internal::StrCat("{'descr': ", c.descr,
                                              ", 'fortran_order': False, 'shape': (1,), }");
    Status s = ParseStatus(NpyWithHeader(dict, std::string(4, '\0')));
    BOOST_TEST(errors::IsInvalidArgument(s), c.descr);
    BOOST_TEST(Contains(s, c.says), s.ToString());
  }
}

BOOST_AUTO_TEST_CASE(malformed_headers_are_invalid_argument) {
  const std::string_view dicts[] = {
      "{'descr': '<f4', 'fortran_order': False}",                               // missing key
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}",        // extra key
      "{'descr': '<f4', 'fortran_order': False, 'shape': 1}",                   // not a tuple
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1)}",                 // (1) is 1
      "{'descr': '<f4', 'fortran_order': False, 'shape': [1]}",                 // a list
      "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",               // negative
      "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}",                    // not a bool
      "{'descr': '<f4', 'fortran_order': False, 'shape': ('1',)}",              // str dim
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)",                 // unclosed
      "{'descr': '<f4 , 'fortran_order': False, 'shape': (1,)}",                // bad quote
      "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}",
      "['descr', '<f4']",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} junk",
      "{1: '<f4', 'fortran_order': False, 'shape': (1,)}",
  };
  for (std::string_view dict : dicts) {
    Status s = ParseStatus(NpyWithHeader(dict, std::string(4, '\0')));
    BOOST_TEST(errors::IsInvalidArgument(s), dict << " -> " << s);
    BOOST_TEST(Contains(s, ".npy header"), s.ToString());
  }
  // Deep nesting is refused, not recursed into.
  std::string deep = "{'descr': " + std::string(10000, '[') + "'<f4'" +
                     std::string(10000, ']') + ", 'fortran_order': False, 'shape': (1,)}";
  Status s = ParseStatus(NpyWithHeader(deep, std::string(4, '\0')));
  BOOST_TEST(errors::IsInvalidArgument(s));
  BOOST_TEST(Contains(s, "nested"), s.ToString());
}

BOOST_AUTO_TEST_CASE(bad_magic_and_versions) {
  const std::string good = Serialized(Tensor::FromVector<float>({1}));
  std::string bad = good;
  bad[1] = 'X';
  Status s = ParseStatus(bad);
  BOOST_TEST(errors::IsInvalidArgument(s));
  BOOST_TEST(Contains(s, "magic"), s.ToString());
  BOOST_TEST(errors::IsInvalidArgument(ParseStatus("PK\x03\x04 a zip file")));
  bad = good;
  bad[6] = 4;
  s = ParseStatus(bad);
  BOOST_TEST(errors::IsInvalidArgument(s));
  BOOST_TEST(Contains(s, "version 4.0"), s.ToString());
  bad = good;
  bad[7] = 1;
  BOOST_TEST(errors::IsInvalidArgument(ParseStatus(bad)));
}

BOOST_AUTO_TEST_CASE(truncation_is_data_loss_and_extra_bytes_a_mismatch) {
  const std::string good = Serialized(PatternTensor(DT_FLOAT, TensorShape{2, 3}));
  for (size_t n : {size_t{0}, size_t{3}, size_t{7}, size_t{9}, size_t{40}, size_t{127},
                   good.size() - 1}) {
    Status s = ParseStatus(std::string_view(good).substr(0, n));
    BOOST_TEST(s.code() == Code::DATA_LOSS, n << " -> " << s);
    BOOST_TEST(Contains(s, "truncated"), s.ToString());
  }
  Status s = ParseStatus(good + "x");
  BOOST_TEST(errors::IsInvalidArgument(s));
  BOOST_TEST(Contains(s, "mismatch"), s.ToString());
  BOOST_TEST(Contains(s, "24 bytes but 25"), s.ToString());
}

BOOST_AUTO_TEST_CASE(declared_sizes_are_checked_before_allocating) {
  test::RecordingAllocator alloc;
  Tensor t;
  const std::string huge = NpyWithHeader(
      "{'descr': '<c16', 'fortran_order': False, 'shape': (1000000000, 1000000000), }",
      "tiny");
  Status s = ParseNpy(huge, &t, &alloc);
  BOOST_TEST(s.code() == Code::DATA_LOSS, s);
  BOOST_TEST(alloc.largest() == 0u);
  // A header length beyond the data, and one beyond any sane header.
  std::string long_header("\x93NUMPY\x02\x00\x00\x00\x01\x00", 12);
  s = ParseNpy(long_header + "{", &t, &alloc);
  BOOST_TEST(s.code() == Code::DATA_LOSS, s);
  std::string huge_header("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12);
  s = ParseNpy(huge_header + "{", &t, &alloc);
  BOOST_TEST(errors::IsInvalidArgument(s), s);
  BOOST_TEST(Contains(s, "limit"), s.ToString());
  BOOST_TEST(alloc.largest() == 0u);
}

BOOST_AUTO_TEST_CASE(bool_bytes_other_than_zero_read_as_true) {
  Tensor t = MustParse(NpyWithHeader("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
                                     std::string("\x00\x02\xff", 3)));
  BOOST_TEST(t.tensor_data() == std::string("\x00\x01\x01", 3));
}

BOOST_AUTO_TEST_CASE(types_without_npy_codes_are_refused_on_write) {
  for (DataType dtype : {DT_BFLOAT16, DT_STRING, DT_QINT8, DT_QUINT16}) {
    std::string out;
    Status s = SerializeNpy(Tensor(dtype, TensorShape{2}), &out);
    BOOST_TEST(errors::IsInvalidArgument(s), DataTypeString(dtype));
    BOOST_TEST(Contains(s, DataTypeString(dtype)), s.ToString());
    s = WriteNpy(TempPath("refused.npy"), Tensor(dtype, TensorShape{2}));
    BOOST_TEST(errors::IsInvalidArgument(s));
  }
}

BOOST_AUTO_TEST_CASE(files_round_trip_and_errors_name_the_file) {
  const Tensor t = PatternTensor(DT_DOUBLE, TensorShape{3, 4}, 9);
  const std::string path = TempPath("matrix.npy");
  BOOST_REQUIRE(WriteNpy(path, t).ok());
  BOOST_TEST(FileBytes(path) == Serialized(t));
  Tensor back;
  Status s = ReadNpy(path, &back);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  BOOST_TEST(SameTensor(back, t));

  s = ReadNpy(path + ".missing", &back);
  BOOST_TEST(s.code() == Code::NOT_FOUND, s);
  BOOST_TEST(Contains(s, path + ".missing"), s.ToString());

  const std::string bytes = FileBytes(path);
  const std::string truncated = TempPath("truncated.npy");
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() - 5);
  s = ReadNpy(truncated, &back);
  BOOST_TEST(s.code() == Code::DATA_LOSS, s);
  BOOST_TEST(Contains(s, truncated), s.ToString());
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, 50);
  s = ReadNpy(truncated, &back);
  BOOST_TEST(s.code() == Code::DATA_LOSS, s);
  BOOST_TEST(Contains(s, truncated), s.ToString());

  const std::string big_endian = TempPath("big.npy");
  std::ofstream(big_endian, std::ios::binary) << NpyWithHeader(
      "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", "abcd");
  s = ReadNpy(big_endian, &back);
  BOOST_TEST(errors::IsInvalidArgument(s));
  BOOST_TEST(Contains(s, "big-endian"), s.ToString());
  BOOST_TEST(Contains(s, big_endian), s.ToString());

  s = ReadNpy(std::filesystem::path(path).parent_path().string(), &back);  // a directory
  BOOST_TEST(!s.ok());
  BOOST_TEST_MESSAGE("reading a directory: " << s);

  s = WriteNpy(TempPath("no/such/dir.npy"), t);
  BOOST_TEST(s.code() == Code::NOT_FOUND, s);
  BOOST_TEST(Contains(s, "dir.npy"), s.ToString());

  // Empty and scalar tensors make valid files too.
  for (const Tensor& small : {Tensor(DT_INT32, TensorShape{0, 4}), Tensor::Scalar<bool>(true)}) {
    const std::string p = TempPath("small.npy");
    BOOST_REQUIRE(WriteNpy(p, small).ok());
    BOOST_REQUIRE(ReadNpy(p, &back).ok());
    BOOST_TEST(SameTensor(back, small));
  }
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
