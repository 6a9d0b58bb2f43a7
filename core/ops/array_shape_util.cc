#include "core/ops/array_shape_util.h"

namespace af::array_shape {

Status ConstantInts(const InferenceContext* c, int input, bool* known,
                    std::vector<int64_t>* values) {
  values->clear();
  const Tensor* t = c->input_tensor(input);
  *known = t != nullptr;
  if (!t) return Status::OK();
  const int64_t n = t->NumElements();
  values->reserve(static_cast<size_t>(n));
  switch (t->dtype()) {
    case DT_INT8:
      for (int64_t i = 0; i < n; ++i) values->push_back(t->data<int8_t>()[i]);
      break;
    case DT_INT16:
      for (int64_t i = 0; i < n; ++i) values->push_back(t->data<int16_t>()[i]);
      break;
    case DT_INT32:
      for (int64_t i = 0; i < n; ++i) values->push_back(t->data<int32_t>()[i]);
      break;
    case DT_INT64:
      for (int64_t i = 0; i < n; ++i) values->push_back(t->data<int64_t>()[i]);
      break;
    default:
      return c->InvalidArgument("input ", input, " must hold integers, not ",
                                DataTypeString(t->dtype()));
  }
  return Status::OK();
}

Status ConstantInt(const InferenceContext* c, int input, std::string_view what, bool* known,
                   int64_t* value) {
  std::vector<int64_t> values;
  AF_RETURN_IF_ERROR(ConstantInts(c, input, known, &values));
  if (!*known) return Status::OK();
  if (values.size() != 1)
    return c->InvalidArgument(what, " must hold exactly one value, got ", values.size());
  *value = values[0];
  return Status::OK();
}

Status CanonicalAxis(const InferenceContext* c, int64_t axis, int rank, std::string_view what,
                     int* out) {
  if (axis < -rank || axis >= rank)
    return c->InvalidArgument(what, " ", axis, " is out of range for a tensor of rank ", rank,
                              " ([", -rank, ", ", rank, "))");
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return Status::OK();
}

std::vector<int64_t> Dims(const PartialTensorShape& shape) {
  return {shape.dim_sizes().begin(), shape.dim_sizes().end()};
}

}  // namespace af::array_shape
