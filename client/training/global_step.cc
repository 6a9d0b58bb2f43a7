#include "client/training/global_step.h"

#include <vector>

#include "client/variables.h"

namespace af {

Status FindGlobalStep(const Scope& scope, const char* who, Output* global_step) {
  const std::vector<Operation> found = scope.GetCollection(kGlobalStepCollection);
  if (found.empty())
    return errors::FailedPrecondition(who,
                                      " needs a global step: create one with "
                                      "GetOrCreateGlobalStep (an optimizer's Minimize does)");
  *global_step = found[0].output(0);
  return Status::OK();
}

Status ReadGlobalStep(ClientSession& session, const Output& global_step, int64_t* value) {
  std::vector<Tensor> out;
  AF_RETURN_IF_ERROR(session.Run({global_step}, &out));
  *value = GlobalStepValue(out[0]);
  return Status::OK();
}

int64_t GlobalStepValue(const Tensor& t) {
  if (t.dtype() == DT_INT32) return t.scalar<int32_t>();
  return t.scalar<int64_t>();
}

}  // namespace af
