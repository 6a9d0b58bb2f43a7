// Helpers for the reader kernel tests: a scratch directory, files written
// by the test (plain, ZLIB, GZIP), a filename queue that lives in the test
// device's ResourceMgr without the actor runtime, and one-call wrappers for
// the reader ops.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/queue_interface.h"
#include "tests/compression_test_util.h"
#include "core/resource_handle.h"
#include "core/resource_mgr.h"
#include "tests/kernels/op_test_util.h"

#include "tests/temp_dir_test_util.h"

namespace af::test {

inline ResourceMgr* ReaderTestResourceMgr() {
  return ResourceMgrForDevice(TestCpuDevice().name());
}

// A scratch directory for reader files (tests/temp_dir_test_util.h). Its
// own name: tests/core's checkpoint ScratchDir is linked into the same
// binary, and two classes of one name break the one-definition rule.
class ReaderScratchDir : public testing::TempDir {
 public:
  ReaderScratchDir() : testing::TempDir("af_reader") {}
  std::string File(const std::string& name) const { return path() + "/" + name; }
};

inline void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  BOOST_REQUIRE(out.good());
}

// `data` deflated with a zlib (gzip=false) or gzip (gzip=true) wrapper.
inline std::string Compress(const std::string& data, bool gzip) {
  return testing::Deflate(data, gzip);
}

// A queue of filenames for ReaderRead without the actor runtime. A dequeue
// from an empty queue waits for Add (or Close, then OUT_OF_RANGE as a
// closed FIFOQueue answers).
class TestFilenameQueue : public QueueInterface {
 public:
  TestFilenameQueue() {
    spec_.name = "test_filenames";
    spec_.component_types = {DT_STRING};
  }
  void Add(const std::string& filename) {
    DequeueCallback waiting;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (waiting_.empty()) {
        names_.push_back(filename);
        return;
      }
      waiting = std::move(waiting_.front());
      waiting_.pop_front();
    }
    waiting(Status::OK(), {Tensor::Scalar<std::string>(filename)});
  }
  void CloseNow() {
    std::deque<DequeueCallback> waiting;
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
      waiting.swap(waiting_);
    }
    for (auto& cb : waiting) cb(Closed(), {});
  }
  size_t waiting() const {
    std::lock_guard<std::mutex> lock(mu_);
    return waiting_.size();
  }

  void Enqueue(Tuple element, CancellationManager*, int64_t, DoneCallback done) override {
    Add(element.at(0).scalar<std::string>());
    done(Status::OK());
  }
  void EnqueueMany(Tuple batch, CancellationManager*, int64_t, DoneCallback done) override {
    for (int64_t i = 0; i < batch.at(0).NumElements(); ++i) Add(batch[0].data<std::string>()[i]);
    done(Status::OK());
  }
  void Dequeue(CancellationManager*, int64_t, DequeueCallback done) override {
    std::string name;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (names_.empty() && !closed_) {
        waiting_.push_back(std::move(done));
        return;
      }
      if (names_.empty()) {
        name.clear();
      } else {
        name = names_.front();
        names_.pop_front();
      }
    }
    if (name.empty()) {
      done(Closed(), {});
    } else {
      done(Status::OK(), {Tensor::Scalar<std::string>(name)});
    }
  }
  void DequeueMany(int32_t, bool, CancellationManager*, int64_t, DequeueCallback done) override {
    done(errors::Unimplemented("test queue"), {});
  }
  void Close(bool, DoneCallback done) override {
    CloseNow();
    done(Status::OK());
  }
  void Size(SizeCallback done) override {
    std::lock_guard<std::mutex> lock(mu_);
    done(Status::OK(), static_cast<int32_t>(names_.size()));
  }
  const QueueSpec& spec() const override { return spec_; }
  Status MatchesSpec(const QueueSpec&) const override { return Status::OK(); }
  std::string DebugString() const override { return "TestFilenameQueue"; }

 private:
  static Status Closed() {
    return errors::OutOfRange("FIFOQueue 'test_filenames' is closed and has insufficient "
                              "elements (requested 1, current size 0)");
  }
  mutable std::mutex mu_;
  std::deque<std::string> names_;
  std::deque<DequeueCallback> waiting_;
  bool closed_ = false;
  QueueSpec spec_;
};

// A TestFilenameQueue registered in the test device's ResourceMgr under a
// container of its own, removed with the object.
class QueueFixture {
 public:
  explicit QueueFixture(std::vector<std::string> filenames = {}, bool close = true,
                        std::string container = "reader_test_queues")
      : container_(std::move(container)) {
    queue_ = new TestFilenameQueue;
    queue_->Ref();  // one for us, one for the manager
    AF_REQUIRE_OK(ReaderTestResourceMgr()->Create<QueueInterface>(container_, "q", queue_));
    for (const auto& f : filenames) queue_->Add(f);
    if (close) queue_->CloseNow();
  }
  ~QueueFixture() {
    ReaderTestResourceMgr()->Cleanup(container_).ok();
    queue_->Unref();
  }
  TestFilenameQueue* queue() const { return queue_; }
  Tensor Handle() const {
    ResourceHandle h;
    h.device = TestCpuDevice().name();
    h.container = container_;
    h.name = "q";
    return MakeResourceHandleTensor(std::move(h));
  }
  // The TF1 handle: [container, name].
  Tensor RefHandle() const { return Tensor::FromVector<std::string>({container_, "q"}); }

 private:
  std::string container_;
  TestFilenameQueue* queue_;
};

// A reader made by running `op` (e.g. "TFRecordReaderV2"). The creating
// kernel is kept: a reader without shared_name lives as long as its kernel.
class ReaderFixture {
 public:
  explicit ReaderFixture(const std::string& op, const std::string& node = "reader")
      : maker_(std::make_unique<KernelRunner>(op, node)) {}
  template <typename T>
  ReaderFixture& Attr(const std::string& name, const T& value) {
    maker_->Attr(name, value);
    return *this;
  }
  // Runs the making op; returns its status.
  Status Make() {
    auto out = maker_->Run();
    if (!out.ok()) return out.status();
    handle_ = out.value()[0];
    return Status::OK();
  }
  const Tensor& handle() const { return handle_; }

 private:
  std::unique_ptr<KernelRunner> maker_;
  Tensor handle_;
};

struct Record {
  std::string key, value;
};

// One ReaderReadV2.
inline StatusOr<Record> ReadRecord(const Tensor& reader, const Tensor& queue) {
  KernelRunner r("ReaderReadV2", "read");
  r.Input(reader).Input(queue);
  auto out = r.Run();
  if (!out.ok()) return out.status();
  return Record{out.value()[0].scalar<std::string>(), out.value()[1].scalar<std::string>()};
}

// ReaderReadV2 until the queue runs dry: every record, and the status that
// ended the reading (OUT_OF_RANGE when all went well).
inline std::vector<Record> ReadAll(const Tensor& reader, const Tensor& queue, Status* end) {
  std::vector<Record> records;
  for (;;) {
    auto r = ReadRecord(reader, queue);
    if (!r.ok()) {
      *end = r.status();
      return records;
    }
    records.push_back(r.value());
  }
}

inline StatusOr<int64_t> ReaderCounter(const std::string& op, const Tensor& reader) {
  KernelRunner r(op, "counter");
  r.Input(reader);
  auto out = r.Run();
  if (!out.ok()) return out.status();
  return out.value()[0].scalar<int64_t>();
}

}  // namespace af::test
