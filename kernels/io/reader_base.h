// ReaderBase: the state every file reader shares (whitepaper §4.5), kept as
// a resource in the device's ResourceMgr so that it outlives a step: the
// current work unit (a filename taken from a queue), how far into it the
// reader is, and counters. Formats implement the *Locked hooks.
//
// Reads never block a thread: when the current work unit is exhausted the
// reader asks the queue for the next filename and continues in the queue's
// callback (on the device's pool when a runner is given). Concurrent reads of
// one reader run one at a time, in arrival order, so each record goes to
// exactly one read.
//
// Checkpoints (ReaderSerializeState / ReaderRestoreState) save the counters
// and the position inside the current unit (kernels/io/reader_state.h); a
// format opts in by overriding the state hooks.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/queue_interface.h"
#include "core/resource_mgr.h"
#include "core/status.h"
#include "kernels/io/reader_state.h"

namespace af {

class CancellationManager;

class ReaderBase : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "Reader";
  using Runner = std::function<void(std::function<void()>)>;
  using ReadCallback =
      std::function<void(const Status&, std::vector<std::string> keys,
                         std::vector<std::string> values)>;

  // `name` is for messages ("TFRecordReader 'node'"); `format` identifies
  // the reader type, so that a shared_name cannot mix formats.
  ReaderBase(std::string name, std::string format);

  // Reads up to `n` (> 0) records, all from one work unit: fewer when the
  // unit ends. Dequeues the next filename from `queue` when the current
  // unit is exhausted; a closed, empty queue ends the read with its
  // OUT_OF_RANGE. `runner` (may be empty) runs the continuation after a
  // dequeue. `done` runs exactly once.
  void ReadAsync(ResourceRef<QueueInterface> queue, int64_t n, CancellationManager* cancellation,
                 Runner runner, ReadCallback done);

  int64_t NumRecordsProduced() const;
  int64_t NumWorkUnitsCompleted() const;
  // Back to the initial state: no work unit, counters zero.
  Status Reset();

  // The counters and the position inside the current unit, taken between
  // two records.
  Status SerializeState(std::string* state);
  // Makes the reader continue where the state was taken: reopens its work
  // unit at the saved position. INVALID_ARGUMENT for a state that is not a
  // reader state, is damaged, comes from another reader type or options, or
  // names a file that is gone; DATA_LOSS for a file now shorter than the
  // saved position; FAILED_PRECONDITION while a read is in flight or queued
  // (it would take a unit after the restored one). On error the reader is
  // unchanged.
  Status RestoreState(const std::string& state);

  const std::string& name() const { return name_; }
  const std::string& format() const { return format_; }
  std::string DebugString() const override;

 protected:
  // Hooks, called with the reader's mutex held.
  // The work unit current_work() starts (open the file, skip its header).
  virtual Status OnWorkStartedLocked() { return Status::OK(); }
  // The unit ended (at_end was reported): release the file.
  virtual Status OnWorkFinishedLocked() { return Status::OK(); }
  // One record: set *produced, or *at_end when the unit has no more.
  virtual Status ReadLocked(std::string* key, std::string* value, bool* produced,
                            bool* at_end) = 0;
  // Up to `n` records appended to keys/values; the default loops ReadLocked.
  // Must produce at least one record, set *at_end, or fail.
  virtual Status ReadUpToLocked(int64_t n, std::vector<std::string>* keys,
                                std::vector<std::string>* values, int64_t* produced,
                                bool* at_end);
  // Drop per-unit state; overrides call the base.
  virtual Status ResetLocked();

  // State hooks, called with the mutex held. Every format says what its
  // position inside a unit is (nothing, for one record per unit).
  // The options that give a saved position its meaning (compression, record
  // layout): a state restores only into a reader with the same.
  virtual std::string StateOptions() const { return std::string(); }
  // Where the reader is in current_work(); only while a unit is in progress.
  virtual Status SavePositionLocked(ReaderPosition* position) = 0;
  // Reopens `work` at `position` as the unit in progress. Must validate
  // before it changes anything: on error the reader stays as it was.
  virtual Status RestorePositionLocked(const std::string& work,
                                       const ReaderPosition& position) = 0;

  const std::string& current_work() const { return work_; }
  // TensorFlow's key convention: "<work unit>:<index>".
  std::string Key(uint64_t index) const;

 private:
  struct Request;
  void Process(const std::shared_ptr<Request>& request);
  void RequestWork(const std::shared_ptr<Request>& request);
  void StartWork(const std::shared_ptr<Request>& request, const Status& dequeued,
                 QueueInterface::Tuple tuple);
  void Finish(const std::shared_ptr<Request>& request, const Status& status);
  // Ends a turn (a read or a restore) on the request list: the next queued
  // read or nothing.
  std::shared_ptr<Request> NextTurn();
  Status RestoreClaimed(const ReaderState& state);

  const std::string name_, format_;

  mutable std::mutex mu_;  // the reader's state below
  std::string work_;
  bool work_in_progress_ = false;
  int64_t num_records_produced_ = 0;
  int64_t work_started_ = 0;
  int64_t work_finished_ = 0;

  std::mutex requests_mu_;  // serializes reads, and restores with them
  bool busy_ = false;
  std::deque<std::shared_ptr<Request>> waiting_;
};

}  // namespace af
