// TensorShape / PartialTensorShape <-> tensorflow::TensorShapeProto.
#pragma once

#include "core/status.h"
#include "core/tensor_shape.h"
#include "proto/tensor_shape.pb.h"

namespace af {

// TensorFlow's limit on the rank of a shape; protos beyond it are rejected
// before anything proportional to the claimed rank is built.
inline constexpr int kMaxShapeRank = 254;

// A dim of -1 is unknown; unknown_rank (with no dims) is an unknown shape.
// INVALID_ARGUMENT for dims below -1, dims alongside unknown_rank, a rank
// above kMaxShapeRank, or known dims whose product overflows int64.
Status ShapeFromProto(const tensorflow::TensorShapeProto& proto, PartialTensorShape* out);
// Like the partial form, and also INVALID_ARGUMENT for unknown dims or rank.
Status ShapeFromProto(const tensorflow::TensorShapeProto& proto, TensorShape* out);

// Replaces `proto`'s contents; dim names are not kept by shapes, so none are
// written.
void ShapeToProto(const PartialTensorShape& shape, tensorflow::TensorShapeProto* proto);
void ShapeToProto(const TensorShape& shape, tensorflow::TensorShapeProto* proto);

}  // namespace af
