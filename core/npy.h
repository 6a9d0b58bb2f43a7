// Tensors as NumPy .npy files: read format versions 1.0, 2.0 and 3.0, write
// what numpy.save writes (byte for byte, numpy >= 1.24) for C-order arrays.
//
// Types: bool, int8/16/32/64, uint8/16/32/64, half, float, double,
// complex64/128 ('|b1' '|i1' '<i2' ... '<f2' '<f4' '<f8' '<c8' '<c16').
// bfloat16, string and quantized tensors have no .npy type and are refused.
// Big-endian data, object and structured arrays, and column-major data with
// more than one dim longer than 1 are refused on read.
//
// Sizes claimed by a header are checked against the bytes actually present
// before anything is allocated, so a damaged or hostile file cannot make the
// reader allocate more than the file holds.
#pragma once

#include <string>
#include <string_view>

#include "core/allocator.h"
#include "core/npy_header.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af {

// Parses a whole .npy image. INVALID_ARGUMENT for a malformed or unsupported
// header or trailing bytes after the data, DATA_LOSS when the header or data
// is truncated. Allocates from `allocator` (CPU when null; must be host
// accessible).
Status ParseNpy(std::string_view bytes, Tensor* out, Allocator* allocator = nullptr);
// The .npy image of `tensor` (header and data); INVALID_ARGUMENT for types
// .npy cannot hold.
Status SerializeNpy(const Tensor& tensor, std::string* out);

// File forms. The data is read straight into the tensor and written straight
// from it. Errors name the file; NOT_FOUND / PERMISSION_DENIED / ... for
// I/O failures as errno says.
Status ReadNpy(const std::string& path, Tensor* out, Allocator* allocator = nullptr);
Status WriteNpy(const std::string& path, const Tensor& tensor);

}  // namespace af
