#include "core/npy_header.h"

#include <cstring>
#include <limits>

#include "core/py_literal.h"

namespace af {

namespace {

constexpr std::string_view kMagic("\x93NUMPY", 6);
// numpy aligns the data to 64 bytes (ARRAY_ALIGN) from the start of the file.
constexpr size_t kArrayAlign = 64;
// numpy (>= 1.24) leaves room after the dict for the first dim to grow to
// this many digits, so appending writers can rewrite the header in place.
constexpr size_t kGrowthAxisMaxDigits = 21;

struct NpyType {
  DataType dtype;
  char kind;  // numpy's type kind: 'f' float, 'i' signed, 'u' unsigned, 'c' complex, 'b' bool
  int size;
  std::string_view descr;  // what numpy writes for it on a little-endian machine
};

constexpr NpyType kNpyTypes[] = {
    {DT_HALF, 'f', 2, "<f2"},        {DT_FLOAT, 'f', 4, "<f4"},
    {DT_DOUBLE, 'f', 8, "<f8"},      {DT_INT8, 'i', 1, "|i1"},
    {DT_INT16, 'i', 2, "<i2"},       {DT_INT32, 'i', 4, "<i4"},
    {DT_INT64, 'i', 8, "<i8"},       {DT_UINT8, 'u', 1, "|u1"},
    {DT_UINT16, 'u', 2, "<u2"},      {DT_UINT32, 'u', 4, "<u4"},
    {DT_UINT64, 'u', 8, "<u8"},      {DT_COMPLEX64, 'c', 8, "<c8"},
    {DT_COMPLEX128, 'c', 16, "<c16"}, {DT_BOOL, 'b', 1, "|b1"},
};

Status HeaderError(const std::string& what) {
  return errors::InvalidArgument(".npy header: ", what);
}

std::string Quoted(std::string_view s) { return internal::StrCat("'", s, "'"); }

// descr strings numpy writes for plain arrays: an optional byte order
// ('<' little, '>' big, '|' not applicable, '=' native) then kind and size.
Status DtypeFromDescr(std::string_view descr, DataType* out) {
  std::string_view rest = descr;
  char order = '=';
  if (!rest.empty() && std::strchr("<>|=", rest[0]) != nullptr) {
    order = rest[0];
    rest.remove_prefix(1);
  }
  if (rest == "?") rest = "b1";  // numpy's one-character code for bool
  if (rest.empty()) return HeaderError("descr " + Quoted(descr) + " names no type");
  const char kind = rest[0];
  if (kind == 'O')
    return HeaderError("descr " + Quoted(descr) +
                       " is an object array (pickled Python objects), which is not "
                       "supported");
  int size = 0;
  for (char c : rest.substr(1)) {
    if (c < '0' || c > '9' || size > 1000) {
      size = -1;
      break;
    }
    size = size * 10 + (c - '0');
  }
  for (const NpyType& t : kNpyTypes) {
    if (t.kind != kind || t.size != size) continue;
    if (order == '>' && size > 1)
      return HeaderError("descr " + Quoted(descr) +
                         " is big-endian, which is not supported; save the array "
                         "little-endian (arr.astype(arr.dtype.newbyteorder('<')))");
    *out = t.dtype;
    return Status::OK();
  }
  return HeaderError(internal::StrCat(
      "unknown or unsupported descr ", Quoted(descr),
      "; supported: <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 <c8 <c16 |b1"));
}

// Python's repr() of a shape tuple: "()", "(5,)", "(2, 3)".
std::string ShapeRepr(const TensorShape& shape) {
  std::string s = "(";
  for (int i = 0; i < shape.dims(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape.dim_size(i));
  }
  if (shape.dims() == 1) s += ",";
  return s + ")";
}

Status ShapeFromLiteral(const PyLiteral& value, TensorShape* out) {
  if (value.kind != PyLiteral::Kind::kTuple)
    return HeaderError(internal::StrCat("shape is a ", value.TypeName(),
                                        ", not a tuple of ints"));
  std::vector<int64_t> dims;
  dims.reserve(value.items.size());
  for (const PyLiteral& d : value.items) {
    if (d.kind != PyLiteral::Kind::kInt)
      return HeaderError(internal::StrCat("shape holds a ", d.TypeName(), ", not an int"));
    dims.push_back(d.integer);
  }
  Status s = TensorShape::Build(dims, out);
  return s.ok() ? s : HeaderError(s.message());
}

// Column-major data has the same layout as row-major when at most one dim is
// longer than 1 (or the array is empty), so only the others are refused.
Status CheckFortranOrder(const TensorShape& shape) {
  int long_dims = 0;
  for (int64_t d : shape.dim_sizes()) long_dims += d > 1 ? 1 : 0;
  if (long_dims > 1 && shape.num_elements() > 0)
    return HeaderError("fortran_order is True (column-major data) for shape " +
                       ShapeRepr(shape) +
                       ", which is not supported; save a C-order array "
                       "(numpy.ascontiguousarray)");
  return Status::OK();
}

uint32_t ReadLittleEndian(std::string_view bytes) {
  uint32_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) v = (v << 8) | static_cast<uint8_t>(bytes[i]);
  return v;
}

}  // namespace

size_t NpyPreambleSize(int major_version) { return major_version == 1 ? 10 : 12; }

Status ParseNpyPreamble(std::string_view prefix, int* major_version, size_t* header_end) {
  const size_t magic_seen = std::min(prefix.size(), kMagic.size());
  if (prefix.substr(0, magic_seen) != kMagic.substr(0, magic_seen))
    return errors::InvalidArgument("not a .npy file: it does not start with the magic "
                                   "string \\x93NUMPY");
  if (prefix.size() < 8)
    return errors::DataLoss(".npy data truncated: ", prefix.size(),
                            " bytes end inside the magic string and version");
  const int major = static_cast<uint8_t>(prefix[6]);
  const int minor = static_cast<uint8_t>(prefix[7]);
  if (major < 1 || major > 3 || minor != 0)
    return errors::InvalidArgument("unsupported .npy format version ", major, ".", minor,
                                   " (supported: 1.0, 2.0, 3.0)");
  const size_t preamble = NpyPreambleSize(major);
  if (prefix.size() < preamble)
    return errors::DataLoss(".npy data truncated: ", prefix.size(),
                            " bytes end inside the header length field");
  const size_t header_size = ReadLittleEndian(prefix.substr(8, preamble - 8));
  if (header_size > kNpyMaxHeaderSize)
    return errors::InvalidArgument(".npy header declares ", header_size,
                                   " bytes, more than the limit of ", kNpyMaxHeaderSize);
  *major_version = major;
  *header_end = preamble + header_size;
  return Status::OK();
}

Status ParseNpyHeader(std::string_view bytes, NpyHeader* header) {
  int major = 0;
  size_t header_end = 0;
  AF_RETURN_IF_ERROR(ParseNpyPreamble(bytes, &major, &header_end));
  const size_t preamble = NpyPreambleSize(major);
  if (bytes.size() < header_end)
    return errors::DataLoss(".npy header truncated: it declares ", header_end - preamble,
                            " bytes but only ", bytes.size() - preamble, " follow");
  // Versions 1 and 2 are latin-1 and version 3 is UTF-8; either way the
  // parts that matter are ASCII, and string contents are only compared.
  PyLiteral dict;
  Status s = ParsePyLiteral(bytes.substr(preamble, header_end - preamble), &dict);
  if (!s.ok()) return HeaderError(s.message());
  if (dict.kind != PyLiteral::Kind::kDict)
    return HeaderError(internal::StrCat("the header is a ", dict.TypeName(),
                                        ", not a dict"));
  const PyLiteral* descr = nullptr;
  const PyLiteral* fortran = nullptr;
  const PyLiteral* shape = nullptr;
  for (size_t i = 0; i + 1 < dict.items.size(); i += 2) {
    const PyLiteral& key = dict.items[i];
    const PyLiteral* value = &dict.items[i + 1];
    if (key.kind != PyLiteral::Kind::kString)
      return HeaderError(internal::StrCat("a key is a ", key.TypeName(), ", not a string"));
    if (key.text == "descr") {
      descr = value;
    } else if (key.text == "fortran_order") {
      fortran = value;
    } else if (key.text == "shape") {
      shape = value;
    } else {
      return HeaderError("unexpected key " + Quoted(key.text) +
                         "; expected exactly 'descr', 'fortran_order' and 'shape'");
    }
  }
  if (descr == nullptr || fortran == nullptr || shape == nullptr)
    return HeaderError(internal::StrCat("missing key ",
                                        descr == nullptr     ? "'descr'"
                                        : fortran == nullptr ? "'fortran_order'"
                                                             : "'shape'"));
  NpyHeader result;
  result.major_version = major;
  if (descr->kind == PyLiteral::Kind::kList)
    return HeaderError("descr is a list of fields (a structured array), which is not "
                       "supported");
  if (descr->kind != PyLiteral::Kind::kString)
    return HeaderError(internal::StrCat("descr is a ", descr->TypeName(),
                                        ", not a dtype string"));
  AF_RETURN_IF_ERROR(DtypeFromDescr(descr->text, &result.dtype));
  if (fortran->kind != PyLiteral::Kind::kBool)
    return HeaderError(internal::StrCat("fortran_order is a ", fortran->TypeName(),
                                        ", not True or False"));
  AF_RETURN_IF_ERROR(ShapeFromLiteral(*shape, &result.shape));
  if (fortran->boolean) AF_RETURN_IF_ERROR(CheckFortranOrder(result.shape));
  const auto elements = static_cast<uint64_t>(result.shape.num_elements());
  const auto item = static_cast<uint64_t>(DataTypeSize(result.dtype));
  if (elements > std::numeric_limits<size_t>::max() / item)
    return HeaderError("shape " + ShapeRepr(result.shape) + " of " + descr->text +
                       " needs more bytes than memory can address");
  result.data_bytes = static_cast<size_t>(elements * item);
  result.data_offset = header_end;
  *header = std::move(result);
  return Status::OK();
}

Status NpyDescr(DataType dtype, std::string_view* descr) {
  for (const NpyType& t : kNpyTypes) {
    if (t.dtype == BaseType(dtype)) {
      *descr = t.descr;
      return Status::OK();
    }
  }
  return errors::InvalidArgument("a ", DataTypeString(dtype),
                                 " tensor cannot be written as .npy: the format has no "
                                 "type for it");
}

Status FormatNpyHeader(DataType dtype, const TensorShape& shape, std::string* out) {
  std::string_view descr;
  AF_RETURN_IF_ERROR(NpyDescr(dtype, &descr));
  std::string dict = internal::StrCat("{'descr': '", descr,
                                      "', 'fortran_order': False, 'shape': ",
                                      ShapeRepr(shape), ", }");
  if (shape.dims() > 0) {
    const size_t digits = std::to_string(shape.dim_size(0)).size();
    if (digits < kGrowthAxisMaxDigits) dict.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  // Padding makes preamble + dict + newline a multiple of kArrayAlign; when
  // it already is one, numpy still pads a full kArrayAlign.
  const size_t text = dict.size() + 1;
  int major = 1;
  size_t padding = kArrayAlign - (NpyPreambleSize(1) + text) % kArrayAlign;
  if (text + padding > 0xffff) {
    major = 2;
    padding = kArrayAlign - (NpyPreambleSize(2) + text) % kArrayAlign;
    if (text + padding > 0xffffffffu)
      return errors::InvalidArgument("shape ", shape.DebugString(),
                                     " needs a .npy header over 4 GiB");
  }
  const size_t header_len = text + padding;
  out->clear();
  out->reserve(NpyPreambleSize(major) + header_len);
  out->append(kMagic);
  out->push_back(static_cast<char>(major));
  out->push_back('\0');
  for (size_t i = 0; i < NpyPreambleSize(major) - 8; ++i)
    out->push_back(static_cast<char>((header_len >> (8 * i)) & 0xff));
  out->append(dict);
  out->append(padding, ' ');
  out->push_back('\n');
  return Status::OK();
}

}  // namespace af
