#include "kernels/nn/batch_norm_layout.h"

namespace af {

Status MakeNormLayout(const TensorShape& x, const std::string& data_format, NormLayout* out) {
  const bool known = data_format == "NHWC" || data_format == "NCHW" || data_format == "NDHWC" ||
                     data_format == "NCDHW";
  if (!known) return errors::InvalidArgument("Invalid data format: ", data_format);
  const int rank = static_cast<int>(data_format.size());
  if (x.dims() != rank)
    return errors::InvalidArgument("input must be ", rank, "-dimensional for data_format ",
                                   data_format, ", got ", x.DebugString());
  const bool channels_last = data_format.back() == 'C';
  const int channel = channels_last ? rank - 1 : 1;
  NormLayout l;
  l.channels = x.dim_size(channel);
  l.outer = 1;
  for (int d = 0; d < channel; ++d) l.outer *= x.dim_size(d);
  for (int d = channel + 1; d < rank; ++d) l.inner *= x.dim_size(d);
  *out = l;
  return Status::OK();
}

}  // namespace af
