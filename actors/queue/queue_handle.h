// QueueHandle: the QueueInterface kernels use, implemented by messaging the
// queue's resource actor (actors/resources/resource_mailbox.h says how
// requests travel, wait and are withdrawn). Each operation becomes a
// QueueRequest; the queue's core (queue_core.h) decides its outcome.
#pragma once

#include <string>

#include "actors/resources/resource_mailbox.h"
#include "core/queue_interface.h"

namespace af::actors {

class QueueHandle final : public QueueInterface {
 public:
  // Spawns the queue's actor in `system`.
  static Status Create(caf::actor_system& system, const QueueSpec& spec, QueueInterface** out);

  void Enqueue(Tuple element, CancellationManager* cancellation, int64_t deadline_ns,
               DoneCallback done) override;
  void EnqueueMany(Tuple batch, CancellationManager* cancellation, int64_t deadline_ns,
                   DoneCallback done) override;
  void Dequeue(CancellationManager* cancellation, int64_t deadline_ns,
               DequeueCallback done) override;
  void DequeueMany(int32_t n, bool allow_smaller, CancellationManager* cancellation,
                   int64_t deadline_ns, DequeueCallback done) override;
  void Close(bool cancel_pending_enqueues, DoneCallback done) override;
  void Size(SizeCallback done) override;
  void IsClosed(IsClosedCallback done) override;

  const QueueSpec& spec() const override { return spec_; }
  Status MatchesSpec(const QueueSpec& other) const override;
  std::string DebugString() const override;

 private:
  QueueHandle(caf::actor_system& system, QueueSpec spec);
  ~QueueHandle() override = default;  // the mailbox stops the actor

  const QueueSpec spec_;
  ResourceMailbox mailbox_;
};

}  // namespace af::actors
