// SummaryWriter: TensorFlow's tf.summary.FileWriter. Writes a TensorFlow
// event file that TensorBoard reads: TFRecord framing (core/io/
// record_writer.h) of tensorflow.Event protos (proto/event.proto).
//
//   std::unique_ptr<SummaryWriter> writer;
//   AF_RETURN_IF_ERROR(SummaryWriter::Create("logs/run1", &writer));
//   AF_RETURN_IF_ERROR(writer->AddGraph(graph_def));
//   auto merged = ops::MergeSummary(root, {loss_summary, weights_summary});
//   ...
//   AF_RETURN_IF_ERROR(session.Run({merged}, &out));
//   AF_RETURN_IF_ERROR(writer->AddSummary(out[0].scalar<std::string>(), step));
//
// The file is LOGDIR/events.out.tfevents.<10-digit unix seconds>.<hostname>
// (plus options.filename_suffix), as TensorFlow's EventsWriter names it; its
// first record is Event{wall_time, file_version: "brain.Event:2"}. Writes
// are buffered and flushed by Flush(), Close(), and a background thread
// every options.flush_secs. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/io/record_writer.h"
#include "core/status.h"
#include "proto/event.pb.h"
#include "proto/graph.pb.h"
#include "proto/summary.pb.h"

namespace af {

struct SummaryWriterOptions {
  // Buffered events reach the file at least this often (FileWriter's
  // flush_secs).
  double flush_secs = 120;
  // Appended to the file name, so several writers can share a logdir.
  std::string filename_suffix;
};

class SummaryWriter {
 public:
  // Creates `logdir` and its parents if needed, then the event file.
  static Status Create(const std::string& logdir, std::unique_ptr<SummaryWriter>* out);
  static Status Create(const std::string& logdir, const SummaryWriterOptions& options,
                       std::unique_ptr<SummaryWriter>* out);
  // Closes (errors are lost; call Close() to see them).
  ~SummaryWriter();
  SummaryWriter(const SummaryWriter&) = delete;
  SummaryWriter& operator=(const SummaryWriter&) = delete;

  // The graph TensorBoard draws (Event.graph_def).
  Status AddGraph(const tensorflow::GraphDef& graph, int64_t step = 0);
  // A serialized tensorflow.Summary, as summary ops output it; INVALID_ARGUMENT
  // if it does not parse.
  Status AddSummary(const std::string& serialized_summary, int64_t step);
  Status AddSummary(const tensorflow::Summary& summary, int64_t step);
  // One simple_value under `tag`.
  Status AddScalar(const std::string& tag, float value, int64_t step);
  // Any event; a zero wall_time is set to now.
  Status AddEvent(tensorflow::Event event);

  // Hands everything written so far to the file.
  Status Flush();
  // Flushes, syncs and closes; later calls fail with FAILED_PRECONDITION.
  Status Close();

  // The event file's full path.
  const std::string& path() const { return path_; }

 private:
  SummaryWriter(std::string path, std::unique_ptr<RecordWriter> file, double flush_secs);
  Status WriteLocked(const tensorflow::Event& event);
  void FlushPeriodically();

  const std::string path_;
  const double flush_secs_;
  std::mutex close_mu_;  // serializes Close: one joiner of flusher_ at a time
  std::mutex mu_;  // guards file_, unflushed_, stopping_ and record_
  std::condition_variable wake_;
  std::unique_ptr<RecordWriter> file_;  // null once closed
  bool unflushed_ = false;
  bool stopping_ = false;
  std::string record_;  // reused per event
  std::thread flusher_;
};

// Seconds since the epoch with microseconds, as Event.wall_time.
double WallTimeSeconds();

}  // namespace af
