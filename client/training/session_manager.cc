#include "client/training/session_manager.h"

#include <algorithm>
#include <thread>

#include "client/training/report_uninitialized_variables.h"

namespace af {

namespace {

using Clock = std::chrono::steady_clock;

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Runs local_init_op when the full ready check still names variables (the
// local ones: epoch counters and such live in each worker's process).
Status InitializeLocalVariables(const Scope& scope, ClientSession& session,
                                const Scaffold& scaffold) {
  std::vector<std::string> missing;
  AF_RETURN_IF_ERROR(UninitializedVariables(session, scaffold.ready_op, &missing));
  if (missing.empty()) return Status::OK();
  if (scaffold.local_init_op.valid()) {
    AF_RETURN_IF_ERROR(session.Run({}, {}, {scaffold.local_init_op}, nullptr)
                           .WithContext("running the local variables' initializers"));
    AF_RETURN_IF_ERROR(UninitializedVariables(session, scaffold.ready_op, &missing));
  }
  if (!missing.empty())
    return errors::FailedPrecondition("the model is not ready after initialization: ",
                                      NamesWithDevices(scope, missing), " uninitialized");
  return Status::OK();
}

}  // namespace

Status UninitializedVariables(ClientSession& session, const Output& ready,
                              std::vector<std::string>* names) {
  std::vector<Tensor> out;
  AF_RETURN_IF_ERROR(session.Run({ready}, &out));
  *names = ReportedNames(out[0]);
  return Status::OK();
}

std::string NamesWithDevices(const Scope& scope, const std::vector<std::string>& names) {
  std::vector<std::string> described;
  for (const std::string& name : names) {
    const Node* node = scope.graph()->FindNode(name);
    const std::string device = node != nullptr ? node->def().device() : "";
    described.push_back(device.empty() ? name : name + " (on " + device + ")");
  }
  return Join(described);
}

Status PrepareSession(const Scope& scope, ClientSession& session, const Scaffold& scaffold,
                      const std::string& checkpoint_dir, PrepareResult* result) {
  *result = PrepareResult();
  std::vector<std::string> missing;
  AF_RETURN_IF_ERROR(
      UninitializedVariables(session, scaffold.ready_for_local_init_op, &missing));
  if (!missing.empty()) {
    result->were_uninitialized = missing;
    if (scaffold.replicas) {
      AF_RETURN_IF_ERROR(scaffold.replicas->RestoreLost(session, missing, &result->replicas));
      if (!result->replicas.restored.empty()) {
        AF_RETURN_IF_ERROR(
            UninitializedVariables(session, scaffold.ready_for_local_init_op, &missing));
        if (missing.empty()) {
          result->action = PrepareResult::kRestoredFromReplicas;
          return InitializeLocalVariables(scope, session, scaffold);
        }
        result->replicas = ReplicaRestore();  // the checkpoint overwrites them below
      }
    }
    const std::string latest = checkpoint_dir.empty() ? "" : LatestCheckpoint(checkpoint_dir);
    if (!latest.empty() && scaffold.saver) {
      AF_RETURN_IF_ERROR(scaffold.saver->Restore(session, latest));
      result->action = PrepareResult::kRestored;
      result->checkpoint = latest;
    } else {
      AF_RETURN_IF_ERROR(session.Run({}, {}, {scaffold.init_op}, nullptr)
                             .WithContext("running the variables' initializers"));
      result->action = PrepareResult::kInitialized;
    }
    AF_RETURN_IF_ERROR(
        UninitializedVariables(session, scaffold.ready_for_local_init_op, &missing));
    if (!missing.empty())
      return errors::FailedPrecondition(
          result->action == PrepareResult::kRestored ? "restoring " + result->checkpoint
                                                     : std::string("init_op"),
          " did not make the model ready: ", NamesWithDevices(scope, missing),
          " still uninitialized");
  }
  return InitializeLocalVariables(scope, session, scaffold);
}

Status WaitForSession(const Scope& scope, ClientSession& session, const Scaffold& scaffold,
                      const WaitOptions& options) {
  const Clock::time_point start = Clock::now();
  std::chrono::milliseconds backoff(50);
  for (;;) {
    std::vector<std::string> missing;
    Status s = UninitializedVariables(session, scaffold.ready_for_local_init_op, &missing);
    if (s.ok() && missing.empty()) break;
    // Anything but a transient failure is the program's error, not a wait.
    if (!s.ok() && !errors::IsUnavailable(s) && !errors::IsAborted(s) &&
        !errors::IsFailedPrecondition(s))
      return s;
    const Clock::time_point now = Clock::now();
    if (now >= options.deadline) {
      const std::string waited =
          FormatSeconds(std::chrono::duration<double>(now - start).count());
      const std::string who = options.task.empty() ? "this worker" : options.task;
      if (!s.ok())
        return errors::DeadlineExceeded(who, " waited ", waited,
                                        " for the chief to initialize the variables; the last "
                                        "check failed: ",
                                        s.ToString());
      return errors::DeadlineExceeded(who, " waited ", waited,
                                      " for the chief to initialize the variables; still "
                                      "uninitialized: ",
                                      NamesWithDevices(scope, missing));
    }
    // The last check falls on the deadline itself.
    std::this_thread::sleep_for(std::min<Clock::duration>(backoff, options.deadline - now));
    backoff = std::min(backoff * 2, options.max_backoff);
  }
  return InitializeLocalVariables(scope, session, scaffold);
}

}  // namespace af
