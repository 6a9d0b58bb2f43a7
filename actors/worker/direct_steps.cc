#include "actors/worker/direct_steps.h"

#include <utility>
#include <vector>

#include <caf/actor_cast.hpp>

#include "actors/any_thread_send.h"
#include "actors/transport/wire_codec.h"
#include "actors/worker/data_plane.h"
#include "core/hop_trace.h"
#include "core/logging.h"
#include "runtime/executor.h"

namespace af::actors {
namespace {

// Closed sessions remembered for their late requests.
constexpr size_t kClosedSessionsKept = 256;

wire::RunGraphResponse ErrorReply(const Status& s) {
  wire::RunGraphResponse response;
  response.status = wire::ToWire(s);
  return response;
}

}  // namespace

Status CheckIncarnation(std::string_view task_name, uint64_t incarnation, uint64_t expected,
                        std::string_view what) {
  if (expected == 0 || expected == incarnation) return Status::OK();
  return errors::Aborted(what, ": device incarnation changed: ", task_name,
                         " restarted (the request was for incarnation ", expected,
                         ", this process is ", incarnation, ")");
}

void DirectSteps::OpenSession(int64_t session_id, caf::actor master,
                              std::shared_ptr<const RemoteSender> router, std::string reply_address,
                              bool in_worker) {
  std::lock_guard<std::mutex> lock(mu_);
  auto session = std::make_shared<Session>();
  if (auto it = sessions_.find(session_id); it != sessions_.end()) {
    session->partitions = it->second->partitions;  // a rejoin: same partitions, new routes
  }
  session->master = std::move(master);
  session->router = std::move(router);
  session->reply_address = std::move(reply_address);
  session->in_worker = in_worker;
  sessions_[session_id] = std::move(session);
}

void DirectSteps::CloseSession(int64_t session_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(session_id);
  if (it == sessions_.end()) return;
  auto closed = std::make_shared<Session>(*it->second);
  closed->partitions.clear();
  sessions_.erase(it);
  if (closed_.emplace(session_id, std::move(closed)).second) closed_order_.push_back(session_id);
  if (closed_order_.size() > kClosedSessionsKept) {
    closed_.erase(closed_order_.front());
    closed_order_.pop_front();
  }
}

void DirectSteps::AddPartition(int64_t session_id, int64_t handle, int32_t num_args,
                               int32_t num_retvals) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(session_id);
  if (it == sessions_.end()) return;
  auto session = std::make_shared<Session>(*it->second);
  session->partitions[handle] = Session::Partition{num_args, num_retvals};
  it->second = std::move(session);
}

std::shared_ptr<const DirectSteps::Session> DirectSteps::FindSession(int64_t session_id,
                                                                     bool* closed) const {
  *closed = false;
  if (auto it = sessions_.find(session_id); it != sessions_.end()) return it->second;
  if (auto it = closed_.find(session_id); it != closed_.end()) {
    *closed = true;
    return it->second;
  }
  return nullptr;
}

void DirectSteps::HandleRunGraph(const net::LanePrefix& prefix, std::string_view body) {
  wire::RunGraphRequest req;
  if (Status s = wire::DecodeRunGraphRequest(body, &req); !s.ok()) {
    AF_LOG(WARNING) << "worker " << task_name_ << ": dropped a direct RunGraph: " << s.ToString();
    return;
  }
  std::shared_ptr<const Session> session;
  bool closed = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    session = FindSession(req.session_id, &closed);
  }
  if (session == nullptr) {
    // No master to answer: the request named no session this worker ever
    // had (its master finds out at the step's deadline).
    AF_LOG(WARNING) << "worker " << task_name_ << ": dropped a direct RunGraph for session "
                    << req.session_id << ", which is not open here";
    return;
  }
  if (closed) {
    return SendReply(session->reply_address, session->master, prefix.correlation, req.step_id,
                     ErrorReply(errors::FailedPrecondition("RunGraph: session ", req.session_id,
                                                           " is not open on ", task_name_)));
  }
  if (Status s = CheckIncarnation(task_name_, incarnation_, req.incarnation, "RunGraph"); !s.ok()) {
    return SendReply(session->reply_address, session->master, prefix.correlation, req.step_id,
                     ErrorReply(s));
  }
  if (session->in_worker || req.trace) {
    auto worker = caf::actor_cast<caf::strong_actor_ptr>(worker_);
    if (!worker) return;  // the worker is stopping: so is the session
    SendFromAnyThreadAs(worker, worker, direct_run_atom::value, prefix.correlation, std::move(req));
    return;
  }
  RunInline(req, session, prefix.correlation);
}

void DirectSteps::HandleAbort(const net::LanePrefix& prefix, std::string_view body) {
  // A code outside TensorFlow's 1..16 is no status a peer would send.
  const Status why = prefix.correlation == 0 || prefix.correlation > 16
                         ? errors::Aborted("step ", prefix.step_id, " was aborted")
                         : Status(static_cast<Code>(prefix.correlation), std::string(body));
  registry_->Abort(prefix.step_id, why);
}

std::shared_ptr<const RemoteSender> DirectSteps::Router(int64_t session_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(session_id);
  return it == sessions_.end() ? nullptr : it->second->router;
}

void DirectSteps::RunInline(wire::RunGraphRequest& req,
                            const std::shared_ptr<const Session>& session, uint64_t correlation) {
  const int64_t step_id = req.step_id;
  const int64_t session_id = req.session_id;
  auto fail = [&](const Status& s) {
    SendReply(session->reply_address, session->master, correlation, step_id, ErrorReply(s));
  };
  std::vector<CallFrame> frames;
  std::vector<LocalPartition> parts(req.partitions.size());
  frames.reserve(req.partitions.size());
  for (size_t i = 0; i < req.partitions.size(); ++i) {
    wire::PartitionCall& call = req.partitions[i];
    auto known = session->partitions.find(call.handle);
    if (known == session->partitions.end() || !partitions_->Find(call.handle, &parts[i])) {
      registry_->Finish(step_id);
      return fail(errors::NotFound("RunGraph: partition handle ", call.handle,
                                   " is not registered on ", task_name_, " for session ",
                                   session_id));
    }
    if (static_cast<int32_t>(call.args.size()) != known->second.num_args) {
      registry_->Finish(step_id);
      return fail(errors::InvalidArgument("RunGraph: partition ", call.handle, " on ", task_name_,
                                          " takes ", known->second.num_args, " arguments, got ",
                                          call.args.size()));
    }
    frames.emplace_back(std::move(call.args), known->second.num_retvals);
  }
  Status refused;
  std::shared_ptr<StepContext> step = registry_->Claim(step_id, session_id, task_name_, &refused);
  if (step == nullptr) return fail(refused);
  if (frames.empty() || step->aborted()) {
    const Status s = step->aborted() ? step->status() : Status::OK();
    registry_->Finish(step_id);
    return SendReply(session->reply_address, session->master, correlation, step_id,
                     s.ok() ? wire::RunGraphResponse{} : ErrorReply(s));
  }
  step->set_remote_sender(session->router);
  StepContext* context = step.get();  // alive while its partitions run
  std::shared_ptr<DirectSteps> self = shared_from_this();
  step->Start(std::move(frames), [self, context, session, correlation, step_id] {
    wire::RunGraphResponse response;
    Status s = context->status();
    if (s.ok()) {
      response.partitions.resize(context->num_partitions());
      for (int i = 0; i < context->num_partitions() && s.ok(); ++i) {
        s = context->ConsumeRetvals(i, &response.partitions[i].retvals);
      }
    }
    if (!s.ok()) response = ErrorReply(s);
    response.sent = context->TakeTraffic();
    for (TaskTraffic& entry : response.sent) entry.src = self->task_name_;
    self->registry_->Finish(step_id);
    self->SendReply(session->reply_address, session->master, correlation, step_id, response);
  });
  RunPartitions(step, parts);
  HopTrace::Mark(step_id, Hop::kPartitionsStarted);
}

void DirectSteps::Reply(int64_t session_id, uint64_t correlation, int64_t step_id,
                        const wire::RunGraphResponse& response) {
  std::shared_ptr<const Session> session;
  {
    std::lock_guard<std::mutex> lock(mu_);
    bool closed = false;
    session = FindSession(session_id, &closed);
  }
  if (session == nullptr) return;  // long closed: its master is gone
  SendReply(session->reply_address, session->master, correlation, step_id, response);
}

void DirectSteps::SendReply(const std::string& address, const caf::actor& master,
                            uint64_t correlation, int64_t step_id,
                            const wire::RunGraphResponse& response) {
  std::string body = wire::EncodeRunGraphResponse(response);
  if (body.size() <= net::kMaxLaneBodyBytes && data_plane_ && !address.empty()) {
    net::LanePrefix prefix;
    prefix.kind = net::LaneKind::kRunGraphReply;
    prefix.correlation = correlation;
    prefix.step_id = step_id;
    if (data_plane_->SendMessage(address, prefix, body).ok()) return;
  }
  // Too large for a lane message, or the lane failed: CAF carries it (as
  // a RunGraph reply would have gone), below its 4 GiB frame limit.
  wire::RunGraphResponse fallback = response;
  if (body.size() >= wire::kMaxMessageBytes) {
    fallback = ErrorReply(errors::ResourceExhausted(
        "RunGraph: the fetched values of step ", step_id, " on ", task_name_, " total ",
        body.size(), " bytes, more than one message between processes carries (",
        wire::kMaxMessageBytes, ")"));
  }
  auto worker = caf::actor_cast<caf::strong_actor_ptr>(worker_);
  SendFromAnyThreadAs(worker, master, direct_reply_atom::value, correlation, std::move(fallback));
}

}  // namespace af::actors
