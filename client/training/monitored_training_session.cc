#include "client/training/monitored_training_session.h"

#include <algorithm>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "client/training/checkpoint_saver_hook.h"
#include "client/training/session_manager.h"
#include "client/training/step_counter_hook.h"
#include "client/training/summary_saver_hook.h"

namespace af {

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A lost task (UNAVAILABLE) or a restarted one (ABORTED: its incarnation
// changed) is what a new session can get past.
// Refused handshakes a recovery retries before it believes them.
constexpr int kRefusalsAfterRestart = 2;

bool IsTransient(const Status& s) { return errors::IsUnavailable(s) || errors::IsAborted(s); }

// The startup rendezvous reports a cluster not up yet as UNAVAILABLE; a
// deadline of ours cut short is DEADLINE_EXCEEDED.
bool IsTransientCreation(const Status& s) {
  return IsTransient(s) || errors::IsDeadlineExceeded(s);
}

std::string Describe(const PrepareResult& r) {
  switch (r.action) {
    case PrepareResult::kAlreadyReady:
      return "variables intact";
    case PrepareResult::kRestored:
      return "restored " + r.checkpoint;
    case PrepareResult::kInitialized:
      return "initialized the variables (no checkpoint)";
    case PrepareResult::kRestoredFromReplicas:
      return "restored from the shard replicas: " + ShardReplicas::Describe(r.replicas);
  }
  return "";
}

}  // namespace

MonitoredTrainingSession::MonitoredTrainingSession(const Scope& scope,
                                                   MonitoredTrainingSessionOptions options)
    : scope_(scope), options_(std::move(options)) {
  options_.log = OrStderr(std::move(options_.log));
  scaffold_ = options_.scaffold ? options_.scaffold : std::make_shared<Scaffold>();
}

MonitoredTrainingSession::~MonitoredTrainingSession() { Close().ok(); }

Status MonitoredTrainingSession::Create(const Scope& scope,
                                        MonitoredTrainingSessionOptions options,
                                        std::unique_ptr<MonitoredTrainingSession>* out) {
  AF_RETURN_IF_ERROR(scope.status());
  if (options.wait_for_init_ms <= 0 || options.recovery_deadline_ms <= 0 ||
      options.max_backoff_ms <= 0)
    return errors::InvalidArgument(
        "MonitoredTrainingSession: wait_for_init_ms, recovery_deadline_ms and max_backoff_ms "
        "must be positive");
  std::unique_ptr<MonitoredTrainingSession> session(
      new MonitoredTrainingSession(scope, std::move(options)));
  AF_RETURN_IF_ERROR(session->Initialize());
  *out = std::move(session);
  return Status::OK();
}

// The built-in hooks of the chief, as TensorFlow's MonitoredTrainingSession
// adds them: step counter, summaries, checkpoints (saved last, after the
// other hooks saw the step).
void MonitoredTrainingSession::AddBuiltInHooks() {
  if (!options_.is_chief) return;
  const bool has_dir = !options_.checkpoint_dir.empty();
  if (options_.log_step_count_steps > 0) {
    StepCounterHookOptions o;
    o.every_n_steps = options_.log_step_count_steps;
    o.writer = writer_;
    o.log = options_.log;
    hooks_.push_back(std::make_shared<StepCounterHook>(o));
  }
  const bool has_summary = scaffold_->summary_op.valid() || !options_.summary_scalars.empty();
  if (has_dir && has_summary &&
      (options_.save_summaries_steps > 0 || options_.save_summaries_secs > 0)) {
    SummarySaverHookOptions o;
    o.save_steps = options_.save_summaries_steps;
    o.save_secs = options_.save_summaries_secs;
    o.writer = writer_;
    o.summary_op = scaffold_->summary_op;
    o.scalars = options_.summary_scalars;
    hooks_.push_back(std::make_shared<SummarySaverHook>(o));
  }
  if (has_dir && (options_.save_checkpoint_steps > 0 || options_.save_checkpoint_secs > 0)) {
    CheckpointSaverHookOptions o;
    o.checkpoint_dir = options_.checkpoint_dir;
    o.save_steps = options_.save_checkpoint_steps;
    o.save_secs = options_.save_checkpoint_secs;
    o.log = options_.log;
    hooks_.push_back(std::make_shared<CheckpointSaverHook>(o, scaffold_));
  }
}

Status MonitoredTrainingSession::Initialize() {
  if (options_.is_chief && !options_.checkpoint_dir.empty()) {
    // One event file per directory: the hooks share this writer.
    std::unique_ptr<SummaryWriter> writer;
    AF_RETURN_IF_ERROR(SummaryWriter::Create(options_.checkpoint_dir, &writer));
    writer_ = std::move(writer);
  }
  AddBuiltInHooks();
  for (const auto& h : options_.hooks) hooks_.push_back(h);
  if (options_.is_chief)
    for (const auto& h : options_.chief_only_hooks) hooks_.push_back(h);
  // Hooks first: the variables they add must be covered by the scaffold's
  // initializers, ready checks and saver.
  for (const auto& h : hooks_) AF_RETURN_IF_ERROR(h->Begin(scope_));
  AF_RETURN_IF_ERROR(scaffold_->Finalize(scope_));
  if (options_.is_chief && options_.shard_replica_steps > 0) {
    // After every hook added its variables: their copies are made too.
    std::shared_ptr<ShardReplicas> replicas;
    AF_RETURN_IF_ERROR(ShardReplicas::Build(scope_, &replicas));
    if (replicas) {
      scaffold_->replicas = replicas;
      hooks_.push_back(std::make_shared<ShardReplicaHook>(replicas, options_.shard_replica_steps));
    } else {
      options_.log(Who() + ": no shard replicas: the variables are not spread over two or more "
                   "ps tasks");
    }
  }
  RecoveryRecord first;
  AF_RETURN_IF_ERROR(CreateSession(
      Clock::now() + std::chrono::milliseconds(options_.recovery_deadline_ms), &first));
  options_.log(Who() + ": session ready: " + first.action);
  return Status::OK();
}

std::string MonitoredTrainingSession::Who() const {
  if (!options_.task_name.empty()) return options_.task_name;
  return options_.is_chief ? "the chief" : "this worker";
}

Status MonitoredTrainingSession::CreateSessionOnce(Clock::time_point deadline,
                                                   std::string* action) {
  // The old session goes first: its master stops retrying lost tasks.
  session_.reset();
  SessionOptions session_options = options_.session;
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  session_options.setup_timeout_ms =
      std::max<int64_t>(1, std::min<int64_t>(session_options.setup_timeout_ms, left));
  auto session = std::make_unique<ClientSession>(scope_, session_options);
  AF_RETURN_IF_ERROR(session->status());
  if (options_.is_chief) {
    PrepareResult prepared;
    AF_RETURN_IF_ERROR(
        PrepareSession(scope_, *session, *scaffold_, options_.checkpoint_dir, &prepared));
    *action = Describe(prepared);
    if (!prepared.were_uninitialized.empty())
      *action += " (uninitialized: " + NamesWithDevices(scope_, prepared.were_uninitialized) + ")";
  } else {
    WaitOptions wait;
    wait.deadline =
        std::min(deadline, Clock::now() + std::chrono::milliseconds(options_.wait_for_init_ms));
    wait.max_backoff = std::chrono::milliseconds(options_.max_backoff_ms);
    wait.task = Who();
    AF_RETURN_IF_ERROR(WaitForSession(scope_, *session, *scaffold_, wait));
    *action = "the variables are initialized";
  }
  for (const auto& h : hooks_) AF_RETURN_IF_ERROR(h->AfterCreateSession(*session));
  session_ = std::move(session);
  return Status::OK();
}

Status MonitoredTrainingSession::CreateSession(Clock::time_point deadline,
                                               RecoveryRecord* record) {
  std::chrono::milliseconds backoff(50);
  const std::chrono::milliseconds max_backoff(options_.max_backoff_ms);
  // In a recovery the same secret worked moments ago: a refused handshake
  // is then most likely one cut short by a task restarting on its address,
  // so it is believed only once it repeats.
  const bool recovering = !record->cause.ok();
  int refusals = 0;
  for (;;) {
    ++record->attempts;
    Status s = CreateSessionOnce(deadline, &record->action);
    if (s.ok()) return s;
    session_.reset();
    const bool refused_after_restart =
        recovering && errors::IsUnauthenticated(s) && ++refusals <= kRefusalsAfterRestart;
    if (!IsTransientCreation(s) && !refused_after_restart) return s;
    // A non-chief that waited out its own deadline has said all there is.
    if (!options_.is_chief && errors::IsDeadlineExceeded(s)) return s;
    const Clock::time_point now = Clock::now();
    if (now >= deadline)
      return Status(s.code(), Who() + " could not create a session within the recovery "
                                      "deadline (" +
                                  std::to_string(options_.recovery_deadline_ms) +
                                  " ms), after " + std::to_string(record->attempts) +
                                  " attempts; the last one: " + s.message());
    options_.log(Who() + ": creating a session failed (" + s.ToString() + "); retrying");
    std::this_thread::sleep_for(std::min<Clock::duration>(backoff, deadline - now));
    backoff = std::min(backoff * 2, max_backoff);
  }
}

bool MonitoredTrainingSession::IsRecoverable(const Status& s) {
  if (IsTransient(s)) return true;
  // The master takes a restarted task back on its own; the variables it
  // held read as uninitialized. Asking the ready check tells that apart
  // from a program that runs an op before its variable is set (which the
  // chief's initialization would already have caught).
  if (!errors::IsFailedPrecondition(s) || !session_) return false;
  std::vector<std::string> missing;
  return UninitializedVariables(*session_, scaffold_->ready_for_local_init_op, &missing).ok() &&
         !missing.empty();
}

Status MonitoredTrainingSession::RunWithHooks(const RunOptions& run_options,
                                              const FeedType& feeds,
                                              const std::vector<Output>& fetches,
                                              const std::vector<Operation>& targets,
                                              std::vector<Tensor>* outputs,
                                              RunMetadata* run_metadata) {
  SessionRunContext context(session_.get(), &fetches);
  std::vector<SessionRunArgs> args(hooks_.size());
  for (size_t i = 0; i < hooks_.size(); ++i)
    AF_RETURN_IF_ERROR(hooks_[i]->BeforeRun(context, &args[i]));
  // One step for everything: the program's fetches first, each tensor
  // fetched once however many asked for it.
  std::vector<Output> all_fetches = fetches;
  std::unordered_map<Output, size_t, OutputHash> position;
  for (size_t i = 0; i < all_fetches.size(); ++i) position.emplace(all_fetches[i], i);
  std::vector<std::vector<size_t>> hook_positions(hooks_.size());
  std::vector<Operation> all_targets = targets;
  std::unordered_set<std::string> target_names;
  for (const Operation& t : targets) target_names.insert(t.name());
  FeedType all_feeds = feeds;
  for (size_t i = 0; i < hooks_.size(); ++i) {
    for (const Output& f : args[i].fetches) {
      auto [it, added] = position.emplace(f, all_fetches.size());
      if (added) all_fetches.push_back(f);
      hook_positions[i].push_back(it->second);
    }
    for (const Operation& t : args[i].targets)
      if (target_names.insert(t.name()).second) all_targets.push_back(t);
    for (const auto& [output, value] : args[i].feeds)
      if (!all_feeds.emplace(output, value).second)
        return errors::InvalidArgument("a hook feeds '", output.name(),
                                       "', which is already fed");
  }
  std::vector<Tensor> results;
  AF_RETURN_IF_ERROR(
      session_->Run(run_options, all_feeds, all_fetches, all_targets, &results, run_metadata));
  for (size_t i = 0; i < hooks_.size(); ++i) {
    SessionRunValues values;
    for (size_t p : hook_positions[i]) values.results.push_back(results[p]);
    AF_RETURN_IF_ERROR(hooks_[i]->AfterRun(context, values));
  }
  if (context.stop_requested()) should_stop_ = true;
  if (outputs != nullptr) outputs->assign(results.begin(), results.begin() + fetches.size());
  return Status::OK();
}

Status MonitoredTrainingSession::Run(const FeedType& feeds, const std::vector<Output>& fetches,
                                     const std::vector<Operation>& targets,
                                     std::vector<Tensor>* outputs) {
  return Run(RunOptions{}, feeds, fetches, targets, outputs, nullptr);
}

Status MonitoredTrainingSession::Run(const RunOptions& run_options, const FeedType& feeds,
                                     const std::vector<Output>& fetches,
                                     const std::vector<Operation>& targets,
                                     std::vector<Tensor>* outputs, RunMetadata* run_metadata) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return errors::FailedPrecondition("MonitoredTrainingSession: closed");
  if (!session_)
    return errors::FailedPrecondition("MonitoredTrainingSession: no session after an earlier "
                                      "failed recovery: ",
                                      failed_.ToString());
  Clock::time_point failed_at;
  RecoveryRecord record;
  std::chrono::milliseconds retry_backoff(50);
  for (;;) {
    Status s = RunWithHooks(run_options, feeds, fetches, targets, outputs, run_metadata);
    if (s.ok()) {
      failed_ = Status::OK();
      if (record.attempts > 0) {
        record.seconds = SecondsSince(failed_at);
        options_.log(Who() + ": recovered from " + record.cause.ToString() + ": " +
                     record.action + "; " + FormatSeconds(record.seconds) + " lost, " +
                     std::to_string(record.attempts) + " session(s) created");
        std::lock_guard<std::mutex> records(records_mu_);
        recoveries_.push_back(record);
      }
      return s;
    }
    if (errors::IsOutOfRange(s)) {
      should_stop_ = true;
      return s;
    }
    const bool first = record.attempts == 0;
    if (!IsRecoverable(s)) {
      failed_ = s;
      return s;
    }
    if (first) {
      failed_at = Clock::now();
      record.cause = s;
      options_.log(Who() + ": step failed (" + s.ToString() + "); re-creating the session");
      for (const auto& h : hooks_) h->BeforeRecreateSession(s);
    } else if (Clock::now() - failed_at >
               std::chrono::milliseconds(options_.recovery_deadline_ms)) {
      failed_ = s;
      return Status(s.code(), Who() + ": the step still failed after recovering " +
                                  std::to_string(record.attempts) + " time(s) within " +
                                  std::to_string(options_.recovery_deadline_ms) +
                                  " ms: " + s.message());
    } else {
      // Failing again right after a recovery: give the cluster time.
      options_.log(Who() + ": the retried step failed too (" + s.ToString() + ")");
      std::this_thread::sleep_for(retry_backoff);
      retry_backoff = std::min(retry_backoff * 2,
                               std::chrono::milliseconds(options_.max_backoff_ms));
    }
    Status created = CreateSession(
        failed_at + std::chrono::milliseconds(options_.recovery_deadline_ms), &record);
    if (!created.ok()) {
      failed_ = created;
      options_.log(Who() + ": recovery failed: " + created.ToString());
      return created;
    }
  }
}

bool MonitoredTrainingSession::ShouldStop() const { return should_stop_; }

Status MonitoredTrainingSession::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return Status::OK();
  closed_ = true;
  should_stop_ = true;
  Status s;
  if (session_ && failed_.ok())
    for (const auto& h : hooks_) s.Update(h->End(*session_));
  session_.reset();
  if (writer_) s.Update(writer_->Close());
  return s;
}

int MonitoredTrainingSession::recoveries() const {
  std::lock_guard<std::mutex> lock(records_mu_);
  return static_cast<int>(recoveries_.size());
}

std::vector<RecoveryRecord> MonitoredTrainingSession::recovery_records() const {
  std::lock_guard<std::mutex> lock(records_mu_);
  return recoveries_;
}

}  // namespace af
