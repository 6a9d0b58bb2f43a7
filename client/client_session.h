// ClientSession: runs the graph a Scope built, as TensorFlow's
// ClientSession. Each Run first sends the session the nodes added to the
// scope's graph since the previous Run (Session::Extend with only the new
// nodes), so a program can build, run, build more and run again.
//
//   Scope root = Scope::NewRootScope();
//   auto x = ops::Placeholder(root, DT_FLOAT);
//   auto y = ops::Mul(root, x, 2.0f);
//   ClientSession session(root);
//   std::vector<Tensor> out;
//   AF_RETURN_IF_ERROR(session.Run({{x, 3.0f}}, {y}, &out));
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "client/ops.h"
#include "client/scope.h"
#include "client/session.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af {

class ClientSession {
 public:
  using FeedType = std::unordered_map<Output, Input::Initializer, OutputHash>;

  // A session failing to start reports its error from every Run (and from
  // status()); a scope with an error makes every Run return that error.
  explicit ClientSession(const Scope& scope, const SessionOptions& options = {});
  ~ClientSession();
  ClientSession(const ClientSession&) = delete;
  ClientSession& operator=(const ClientSession&) = delete;

  Status status() const { return create_status_; }

  // `outputs` gets one tensor per fetch; it may be null when nothing is
  // fetched.
  Status Run(const std::vector<Output>& fetch_outputs, std::vector<Tensor>* outputs) const;
  Status Run(const FeedType& inputs, const std::vector<Output>& fetch_outputs,
             std::vector<Tensor>* outputs) const;
  // `run_outputs` are ops run for their effects (TensorFlow's targets).
  Status Run(const FeedType& inputs, const std::vector<Output>& fetch_outputs,
             const std::vector<Operation>& run_outputs, std::vector<Tensor>* outputs) const;
  Status Run(const RunOptions& run_options, const FeedType& inputs,
             const std::vector<Output>& fetch_outputs, const std::vector<Operation>& run_outputs,
             std::vector<Tensor>* outputs) const;
  // `run_metadata` (may be null) gets the step's trace when
  // run_options.trace_level asks for one (see Session::Run).
  Status Run(const RunOptions& run_options, const FeedType& inputs,
             const std::vector<Output>& fetch_outputs, const std::vector<Operation>& run_outputs,
             std::vector<Tensor>* outputs, RunMetadata* run_metadata) const;

  // Clears variable containers on every device (Session::Reset).
  Status Reset(const std::vector<std::string>& containers) const;

  Session* session() const { return session_.get(); }

 private:
  // Sends the session the nodes with ids at or above next_node_id_.
  Status ExtendWithNewNodes() const;

  Scope scope_;
  Status create_status_;
  std::unique_ptr<Session> session_;
  mutable std::mutex mu_;  // guards next_node_id_; serializes ExtendWithNewNodes
  mutable int next_node_id_ = 0;
};

}  // namespace af
