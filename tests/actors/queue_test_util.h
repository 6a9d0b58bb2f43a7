// Helpers for the queue tests: a FIFO queue of int32 scalars with a fed
// enqueue, and short ways to run ops through a ClientSession with a
// deadline.
#pragma once

#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/standard_ops.h"
#include "tests/test_util.h"

namespace af::testing {

inline std::vector<int32_t> Ints(const Tensor& t) {
  return std::vector<int32_t>(t.data<int32_t>(), t.data<int32_t>() + t.NumElements());
}

inline RunOptions WithTimeout(int64_t timeout_ms) {
  RunOptions options;
  options.timeout_ms = timeout_ms;
  return options;
}

// Every run in the queue tests has a deadline, so a broken queue fails a
// test instead of hanging it.
constexpr int64_t kRunTimeoutMs = 20000;

inline Status RunOp(const ClientSession& s, const Operation& op,
                    int64_t timeout_ms = kRunTimeoutMs) {
  return s.Run(WithTimeout(timeout_ms), {}, {}, {op}, nullptr);
}

inline Status Fetch(const ClientSession& s, const std::vector<Output>& fetches,
                    std::vector<Tensor>* out, int64_t timeout_ms = kRunTimeoutMs) {
  return s.Run(WithTimeout(timeout_ms), {}, fetches, {}, out);
}

// True if `f` is still running after a short while: the operation it runs
// is blocked (it can only finish once another one lets it).
template <typename T>
bool StillBlocked(std::future<T>& f) {
  return f.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout;
}

// A FIFOQueueV2 of int32 scalars: `value` feeds `enqueue`.
struct IntQueue {
  explicit IntQueue(int64_t capacity = -1, const std::string& shared_name = "")
      : root(Scope::NewRootScope()) {
    auto attrs = ops::FIFOQueueV2::Capacity(capacity).Shapes({PartialTensorShape(TensorShape{})});
    if (!shared_name.empty()) attrs = attrs.SharedName(shared_name);
    queue = ops::FIFOQueueV2(root.WithOpName("q"), {DT_INT32}, attrs);
    value = ops::Placeholder(root.WithOpName("value"), DT_INT32);
    enqueue = ops::QueueEnqueueV2(root.WithOpName("enqueue"), queue, {value}).operation;
    dequeue = ops::QueueDequeueV2(root.WithOpName("dequeue"), queue, {DT_INT32})[0];
    close = ops::QueueCloseV2(root.WithOpName("close"), queue).operation;
    cancel = ops::QueueCloseV2(root.WithOpName("cancel"), queue,
                               ops::QueueCloseV2::CancelPendingEnqueues(true))
                 .operation;
    size = ops::QueueSizeV2(root.WithOpName("size"), queue);
  }

  Status Enqueue(const ClientSession& s, int32_t v, int64_t timeout_ms = kRunTimeoutMs) const {
    return s.Run(WithTimeout(timeout_ms), {{value, v}}, {}, {enqueue}, nullptr);
  }
  // The dequeued value, or the error.
  Status Dequeue(const ClientSession& s, int32_t* v, int64_t timeout_ms = kRunTimeoutMs) const {
    std::vector<Tensor> out;
    Status st = Fetch(s, {dequeue}, &out, timeout_ms);
    if (st.ok()) *v = out[0].scalar<int32_t>();
    return st;
  }
  int32_t Size(const ClientSession& s) const {
    std::vector<Tensor> out;
    Status st = Fetch(s, {size}, &out);
    return st.ok() ? out[0].scalar<int32_t>() : -1;
  }

  Scope root;
  Output queue, value;
  Operation enqueue;
  Output dequeue;
  Operation close, cancel;
  Output size;
};

}  // namespace af::testing
