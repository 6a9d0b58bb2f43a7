#include "core/tensor_shape_proto.h"

#include <limits>

namespace af {

namespace {

Status CheckRank(const tensorflow::TensorShapeProto& proto) {
  if (proto.unknown_rank() && proto.dim_size() > 0)
    return errors::InvalidArgument("shape proto has unknown_rank set and also ",
                                   proto.dim_size(), " dimensions");
  if (proto.dim_size() > kMaxShapeRank)
    return errors::InvalidArgument("shape proto has ", proto.dim_size(),
                                   " dimensions, more than the maximum of ",
                                   kMaxShapeRank);
  return Status::OK();
}

}  // namespace

Status ShapeFromProto(const tensorflow::TensorShapeProto& proto, PartialTensorShape* out) {
  AF_RETURN_IF_ERROR(CheckRank(proto));
  if (proto.unknown_rank()) {
    *out = PartialTensorShape::Unknown();
    return Status::OK();
  }
  PartialTensorShape shape = PartialTensorShape::UnknownOfRank(0);
  int64_t known_product = 1;
  for (int i = 0; i < proto.dim_size(); ++i) {
    const int64_t d = proto.dim(i).size();
    if (d < -1)
      return errors::InvalidArgument("dimension ", i, " of shape proto is ", d,
                                     "; dims must be >= 0, or -1 for unknown");
    if (d > 0) {
      if (known_product > std::numeric_limits<int64_t>::max() / d)
        return errors::InvalidArgument("shape proto has too many elements: the "
                                       "product of its dims overflows int64");
      known_product *= d;
    }
    shape.AddDim(d);
  }
  *out = std::move(shape);
  return Status::OK();
}

Status ShapeFromProto(const tensorflow::TensorShapeProto& proto, TensorShape* out) {
  AF_RETURN_IF_ERROR(CheckRank(proto));
  if (proto.unknown_rank())
    return errors::InvalidArgument("shape proto has unknown rank; a fully "
                                   "defined shape is required");
  int64_t dims[kMaxShapeRank];
  for (int i = 0; i < proto.dim_size(); ++i) {
    dims[i] = proto.dim(i).size();
    if (dims[i] == -1)
      return errors::InvalidArgument("dimension ", i, " of shape proto is unknown "
                                     "(-1); a fully defined shape is required");
  }
  return TensorShape::Build(dims, proto.dim_size(), out);
}

void ShapeToProto(const PartialTensorShape& shape, tensorflow::TensorShapeProto* proto) {
  proto->Clear();
  if (shape.unknown_rank()) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int64_t d : shape.dim_sizes()) proto->add_dim()->set_size(d);
}

void ShapeToProto(const TensorShape& shape, tensorflow::TensorShapeProto* proto) {
  proto->Clear();
  for (int64_t d : shape.dim_sizes()) proto->add_dim()->set_size(d);
}

}  // namespace af
