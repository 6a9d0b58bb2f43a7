// The header of a NumPy .npy file: magic, format version, and the Python
// dict literal that names the dtype ('descr'), the memory order and the
// shape. Kept apart from npy.h so the file reader can parse the header before
// it reads (and allocates for) the data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/tensor_shape.h"
#include "core/types.h"

namespace af {

struct NpyHeader {
  int major_version = 1;  // 1, 2 or 3 (minor is always 0)
  DataType dtype = DT_INVALID;
  TensorShape shape;
  size_t data_offset = 0;  // bytes from the file's start to the array data
  // Bytes of array data the header promises; already checked to fit size_t.
  size_t data_bytes = 0;
};

// Bytes of the fixed preamble (magic, version, header length) of a .npy file
// with this major version: 10 for 1.x, 12 for 2.x and 3.x.
size_t NpyPreambleSize(int major_version);
// Smallest prefix ParseNpyPreamble needs.
inline constexpr size_t kNpyMaxPreambleSize = 12;
// Longest header text accepted. numpy itself refuses headers over 10000
// bytes by default; this allows far more (a 350000-dim shape) while keeping
// a hostile header from costing more than a few dozen MB to parse.
inline constexpr size_t kNpyMaxHeaderSize = size_t{1} << 20;

// Reads the preamble from `prefix` (at least the first kNpyMaxPreambleSize
// bytes of the file, or all of it if shorter). On success
// `*header_end` is the offset where the header text ends and the data starts.
// INVALID_ARGUMENT for a bad magic, an unsupported version or a header longer
// than kNpyMaxHeaderSize, DATA_LOSS when `prefix` ends before the preamble
// does.
Status ParseNpyPreamble(std::string_view prefix, int* major_version, size_t* header_end);

// Parses a whole header, `bytes` holding at least the file's first
// `header_end` bytes (from ParseNpyPreamble). INVALID_ARGUMENT names what is
// wrong: unparsable dict, missing keys, big-endian or unknown descr, object or
// structured arrays, fortran_order with more than one non-trivial dim, bad
// shape. DATA_LOSS when `bytes` is shorter than the header it declares.
Status ParseNpyHeader(std::string_view bytes, NpyHeader* header);

// The .npy descr numpy writes for `dtype` ("<f4", "|b1", ...), or
// INVALID_ARGUMENT for types .npy has no code for (bfloat16, string,
// quantized, resource, variant).
Status NpyDescr(DataType dtype, std::string_view* descr);

// The complete header (preamble, dict, padding, newline) numpy.save (numpy
// >= 1.24) writes for a C-order array: version 1.0 unless the header needs
// more than 65535 bytes, then 2.0.
Status FormatNpyHeader(DataType dtype, const TensorShape& shape, std::string* out);

}  // namespace af
