#include "client/save_slice_info.h"

#include "core/tensor_slice_spec.h"

namespace af {

std::string SaveSliceInfo::Spec() const {
  return TensorSliceSpecString(TensorSliceSpec{full_shape, var_offset, var_shape});
}

Status ParseSliceSpec(const std::string& spec, std::vector<int64_t>* full_shape,
                      std::vector<int64_t>* offset, std::vector<int64_t>* length) {
  TensorSliceSpec slice;
  AF_RETURN_IF_ERROR(ParseTensorSliceSpec(spec, &slice));
  *full_shape = std::move(slice.full_shape);
  *offset = std::move(slice.offset);
  *length = std::move(slice.length);
  return Status::OK();
}

}  // namespace af
