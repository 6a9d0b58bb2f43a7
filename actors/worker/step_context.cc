#include "actors/worker/step_context.h"

#include <algorithm>

namespace af {

StepContext::StepContext(int64_t step_id,
                         std::shared_ptr<const LocalDeviceNames> local_devices)
    : step_id_(step_id),
      local_devices_(std::move(local_devices)),
      rendezvous_(
          [this](std::string_view device) {
            const LocalDeviceNames& names = *local_devices_;
            return std::find(names.begin(), names.end(), device) != names.end();
          },
          [this](const std::string& key, std::string_view dst_device, const Tensor& value,
                 bool is_dead) -> Status {
            if (remote_sender_ == nullptr) {
              return errors::Internal("step ", step_id_, ": no route to device '", dst_device,
                                      "' for rendezvous key '", key, "'");
            }
            Status sent = remote_sender_->Send(step_id_, key, dst_device, value, is_dead);
            if (sent.ok()) {
              std::lock_guard<std::mutex> lock(traffic_mu_);
              AddTraffic(&sent_, "", TaskOfDevice(dst_device), is_dead ? 0 : PayloadBytes(value),
                         1);
            }
            return sent;
          }),
      created_(std::chrono::steady_clock::now()) {}

void StepContext::Start(std::vector<CallFrame> frames, std::function<void()> on_done) {
  frames_ = std::move(frames);
  keep_alive_.resize(frames_.size());
  on_done_ = std::move(on_done);
  pending_.store(static_cast<int>(frames_.size()), std::memory_order_release);
  started_ = true;
}

void StepContext::KeepAlive(int i, std::shared_ptr<void> resource) {
  keep_alive_[i] = std::move(resource);
}

void StepContext::PartitionDone(const Status& status) {
  if (!status.ok()) Abort(status);
  if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    // Move the callback out: it may drop the last reference to this step.
    std::function<void()> done = std::move(on_done_);
    done();
  }
}

void StepContext::Abort(const Status& status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    status_.Update(status);
    if (aborted_) return;
    aborted_ = true;
  }
  rendezvous_.StartAbort(status);
  cancellation_.StartCancel();
}

bool StepContext::aborted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return aborted_;
}

Status StepContext::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

void StepContext::SetCosts(int i, std::vector<std::string> nodes, std::vector<double> micros) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cost_nodes_.size() < frames_.size()) {
    cost_nodes_.resize(frames_.size());
    cost_micros_.resize(frames_.size());
  }
  cost_nodes_[i] = std::move(nodes);
  cost_micros_[i] = std::move(micros);
}

void StepContext::TakeCosts(int i, std::vector<std::string>* nodes, std::vector<double>* micros) {
  std::lock_guard<std::mutex> lock(mu_);
  if (i >= static_cast<int>(cost_nodes_.size())) return;
  *nodes = std::move(cost_nodes_[i]);
  *micros = std::move(cost_micros_[i]);
}

void StepContext::SetTrace(int i, std::string device_step_stats) {
  std::lock_guard<std::mutex> lock(mu_);
  if (traces_.size() < frames_.size()) traces_.resize(frames_.size());
  traces_[i] = std::move(device_step_stats);
}

void StepContext::TakeTrace(int i, std::string* device_step_stats) {
  std::lock_guard<std::mutex> lock(mu_);
  if (i >= static_cast<int>(traces_.size())) return;
  *device_step_stats = std::move(traces_[i]);
}

StepTraffic StepContext::TakeTraffic() {
  std::lock_guard<std::mutex> lock(traffic_mu_);
  return std::move(sent_);
}

}  // namespace af
