#include "core/call_frame.h"

namespace af {

Status CallFrame::GetArg(int index, Tensor* value) const {
  if (index < 0 || index >= num_args())
    return errors::InvalidArgument("argument index ", index, " out of range: the step has ",
                                   num_args(), " feeds");
  *value = args_[index];
  return Status::OK();
}

Status CallFrame::SetRetval(int index, const Tensor& value) {
  if (index < 0 || index >= num_retvals())
    return errors::InvalidArgument("return value index ", index,
                                   " out of range: the step has ", num_retvals(),
                                   " fetches");
  if (has_retval_[index])
    return errors::Internal("return value ", index, " set twice in one step");
  retvals_[index] = value;
  has_retval_[index] = 1;
  return Status::OK();
}

Status CallFrame::ConsumeRetvals(std::vector<Tensor>* out) {
  for (int i = 0; i < num_retvals(); ++i) {
    if (!has_retval_[i])
      return errors::FailedPrecondition(
          "fetch ", i, " produced no value: its node did not run or was dead "
          "(on an untaken branch of a conditional)");
  }
  out->clear();
  out->reserve(retvals_.size());
  for (auto& t : retvals_) out->push_back(std::move(t));
  return Status::OK();
}

void CallFrame::Reset(int num_args, int num_retvals) {
  args_.assign(num_args, Tensor());
  retvals_.assign(num_retvals, Tensor());
  has_retval_.assign(num_retvals, 0);
}

}  // namespace af
