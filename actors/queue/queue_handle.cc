#include "actors/queue/queue_handle.h"

#include <utility>

#include <caf/actor_system.hpp>

#include "actors/queue/queue_batch.h"
#include "actors/queue/queue_core.h"
#include "actors/queue/queue_validation.h"

namespace af::actors {

using Kind = QueueRequest::Kind;

Status QueueHandle::Create(caf::actor_system& system, const QueueSpec& spec,
                          QueueInterface** out) {
  if (spec.component_types.empty()) {
    return errors::InvalidArgument(QueueLabel(spec), ": a queue needs at least one component");
  }
  if (!spec.component_shapes.empty() &&
      spec.component_shapes.size() != spec.component_types.size()) {
    return errors::InvalidArgument(QueueLabel(spec), ": ", spec.component_types.size(),
                                   " component types but ", spec.component_shapes.size(),
                                   " shapes");
  }
  *out = new QueueHandle(system, spec);
  return Status::OK();
}

QueueHandle::QueueHandle(caf::actor_system& system, QueueSpec spec)
    : spec_(std::move(spec)), mailbox_(system, std::make_shared<QueueCore>(spec_)) {}

void QueueHandle::Enqueue(Tuple element, CancellationManager* cancellation, int64_t deadline_ns,
                         DoneCallback done) {
  Status s = ValidateElement(spec_, element);
  if (!s.ok()) return done(s);
  auto request = std::make_shared<QueueRequest>();
  request->kind = Kind::kEnqueue;
  request->deadline_ns = deadline_ns;
  request->elements.push_back(std::move(element));
  request->done = std::move(done);
  mailbox_.SubmitFor<QueueInterface>(this, std::move(request), cancellation);
}

void QueueHandle::EnqueueMany(Tuple batch, CancellationManager* cancellation, int64_t deadline_ns,
                             DoneCallback done) {
  Status s = ValidateBatch(spec_, batch);
  auto request = std::make_shared<QueueRequest>();
  const bool rows_leave_in_order = spec_.kind != QueueSpec::Kind::kRandomShuffle;
  if (s.ok()) s = SplitBatch(batch, rows_leave_in_order, &request->elements);
  if (!s.ok()) return done(s);
  request->kind = Kind::kEnqueueMany;
  request->deadline_ns = deadline_ns;
  request->done = std::move(done);
  mailbox_.SubmitFor<QueueInterface>(this, std::move(request), cancellation);
}

void QueueHandle::Dequeue(CancellationManager* cancellation, int64_t deadline_ns,
                         DequeueCallback done) {
  auto request = std::make_shared<QueueRequest>();
  request->kind = Kind::kDequeue;
  request->deadline_ns = deadline_ns;
  request->dequeued = std::move(done);
  mailbox_.SubmitFor<QueueInterface>(this, std::move(request), cancellation);
}

void QueueHandle::DequeueMany(int32_t n, bool allow_smaller, CancellationManager* cancellation,
                             int64_t deadline_ns, DequeueCallback done) {
  Status s = CheckCanDequeueMany(spec_);
  if (s.ok() && n < 0) {
    s = errors::InvalidArgument(QueueLabel(spec_), ": ",
                                allow_smaller ? "DequeueUpTo" : "DequeueMany", " requested ", n,
                                " < 0 elements");
  }
  if (!s.ok()) return done(s, {});
  auto request = std::make_shared<QueueRequest>();
  request->kind = Kind::kDequeueMany;
  request->count = n;
  request->allow_smaller = allow_smaller;
  request->deadline_ns = deadline_ns;
  request->dequeued = std::move(done);
  mailbox_.SubmitFor<QueueInterface>(this, std::move(request), cancellation);
}

void QueueHandle::Close(bool cancel_pending_enqueues, DoneCallback done) {
  auto request = std::make_shared<QueueRequest>();
  request->kind = Kind::kClose;
  request->cancel_pending_enqueues = cancel_pending_enqueues;
  request->done = std::move(done);
  mailbox_.SubmitFor<QueueInterface>(this, std::move(request), nullptr);
}

void QueueHandle::Size(SizeCallback done) {
  auto request = std::make_shared<QueueRequest>();
  request->kind = Kind::kSize;
  request->sized = std::move(done);
  mailbox_.SubmitFor<QueueInterface>(this, std::move(request), nullptr);
}

void QueueHandle::IsClosed(IsClosedCallback done) {
  auto request = std::make_shared<QueueRequest>();
  request->kind = Kind::kIsClosed;
  request->is_closed = std::move(done);
  mailbox_.SubmitFor<QueueInterface>(this, std::move(request), nullptr);
}

Status QueueHandle::MatchesSpec(const QueueSpec& other) const { return SpecsMatch(spec_, other); }

std::string QueueHandle::DebugString() const {
  std::string out = QueueLabel(spec_) + " capacity ";
  out += spec_.capacity < 0 ? std::string("unbounded") : std::to_string(spec_.capacity);
  return out;
}

}  // namespace af::actors
