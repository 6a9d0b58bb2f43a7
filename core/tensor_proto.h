// Tensor <-> tensorflow::TensorProto, wire-compatible with TensorFlow.
//
// Decoding accepts both encodings TensorFlow produces: raw little-endian
// bytes in `tensor_content`, and the typed `*_val` fields. For the typed
// fields TensorFlow's fill rule applies: when fewer values than elements are
// given, the last value fills the rest (one value fills the whole shape), and
// no values at all means zeros (empty strings). Unlike TensorFlow, more values
// than elements is an error rather than silently truncated.
#pragma once

#include <cstdint>
#include <limits>

#include "core/allocator.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape_proto.h"
#include "proto/tensor.pb.h"

namespace af {

struct TensorProtoLimits {
  // Largest tensor, in bytes of element storage plus string payload, a proto
  // may decode to. The fill rule lets a few bytes of proto describe an
  // arbitrarily large tensor; callers decoding untrusted protos lower this so
  // that such a proto fails with RESOURCE_EXHAUSTED before anything is
  // allocated.
  int64_t max_tensor_bytes = std::numeric_limits<int64_t>::max();
};

// Decodes `proto` into `out`, allocating from `allocator` (the CPU allocator
// when null; it must be host accessible). Errors:
//   INVALID_ARGUMENT  invalid or reference dtype, negative dims or unknown
//                     rank, tensor_content whose size is not
//                     num_elements * element size, more typed values than
//                     elements, an odd number of complex components;
//   UNIMPLEMENTED     resource and variant tensors;
//   RESOURCE_EXHAUSTED  above limits.max_tensor_bytes, or out of memory.
// `out` is left untouched on error.
Status TensorFromProto(const tensorflow::TensorProto& proto, Tensor* out,
                       Allocator* allocator = nullptr);
Status TensorFromProto(const tensorflow::TensorProto& proto,
                       const TensorProtoLimits& limits, Tensor* out,
                       Allocator* allocator = nullptr);

// Replaces `proto` with dtype, shape and the values as raw bytes in
// tensor_content (string tensors use string_val), like TensorFlow's
// Tensor::AsProtoTensorContent. The compact form for large tensors.
void TensorToProtoContent(const Tensor& tensor, tensorflow::TensorProto* proto);

// Replaces `proto` with dtype, shape and one typed *_val entry per element,
// like TensorFlow's Tensor::AsProtoField.
void TensorToProtoField(const Tensor& tensor, tensorflow::TensorProto* proto);

}  // namespace af
