#include "client/training/scaffold.h"

#include "client/standard_ops.h"
#include "client/training/report_uninitialized_variables.h"
#include "client/variables.h"

namespace af {

Status Scaffold::Finalize(const Scope& scope) {
  if (finalized_) return Status::OK();
  AF_RETURN_IF_ERROR(scope.status());
  if (!init_op.valid()) init_op = GlobalVariablesInitializer(scope);
  if (!local_init_op.valid() && !scope.GetCollection(kLocalVariablesCollection).empty())
    local_init_op = LocalVariablesInitializer(scope);
  if (!ready_op.valid()) ready_op = ReportUninitializedVariables(scope);
  if (!ready_for_local_init_op.valid()) {
    const std::vector<Output> globals = GlobalVariables(scope);
    // (An empty var_list would mean every variable, local ones included.)
    ready_for_local_init_op =
        globals.empty() ? ops::Const(scope.WithOpName("ready_for_local_init_op"),
                                     Input::Initializer(Tensor::FromVector<std::string>({})))
                        : ReportUninitializedVariables(scope, globals);
  }
  if (!saver && !GlobalVariables(scope).empty()) {
    SaverOptions options;
    options.sharded = true;  // each ps task writes its own shard
    saver = std::make_shared<Saver>(scope, options);
    AF_RETURN_IF_ERROR(saver->status());
  }
  AF_RETURN_IF_ERROR(scope.status());
  finalized_ = true;
  return Status::OK();
}

}  // namespace af
