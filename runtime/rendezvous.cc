#include "runtime/rendezvous.h"

#include <vector>

namespace af {

namespace {
// The dst_device field of a key: between the 2nd and 3rd ';'.
std::string_view DstDeviceOf(std::string_view key) {
  size_t a = key.find(';');
  if (a == std::string_view::npos) return {};
  size_t b = key.find(';', a + 1);
  if (b == std::string_view::npos) return {};
  size_t c = key.find(';', b + 1);
  if (c == std::string_view::npos) return {};
  return key.substr(b + 1, c - b - 1);
}
}  // namespace

LocalRendezvous::LocalRendezvous(std::function<bool(std::string_view)> is_local,
                                 RemoteSendFn remote_send)
    : is_local_(std::move(is_local)), remote_send_(std::move(remote_send)) {}

Status LocalRendezvous::Send(const std::string& key, const Tensor& value, bool is_dead) {
  if (remote_send_) {
    const std::string_view dst = DstDeviceOf(key);
    if (dst.empty()) return errors::InvalidArgument("malformed rendezvous key '", key, "'");
    if (!is_local_(dst)) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (!abort_status_.ok()) return abort_status_;
      }
      return remote_send_(key, dst, value, is_dead);
    }
  }
  return DeliverLocal(key, value, is_dead);
}

Status LocalRendezvous::DeliverLocal(const std::string& key, const Tensor& value,
                                     bool is_dead) {
  DoneCallback waiter;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!abort_status_.ok()) return abort_status_;
    Item& item = table_[key];
    if (item.waiters.empty()) {
      if (item.has_value)
        return errors::Internal("rendezvous key '", key, "' sent twice in one step");
      item.has_value = true;
      item.value = value;
      item.is_dead = is_dead;
      return Status::OK();
    }
    waiter = std::move(item.waiters.front());
    item.waiters.pop_front();
    if (item.waiters.empty()) table_.erase(key);
  }
  // Outside the lock: the callback continues the receiving executor.
  waiter(Status::OK(), value, is_dead);
  return Status::OK();
}

Status LocalRendezvous::DeliverFromPeer(const std::string& key, const Tensor& value,
                                        bool is_dead) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!abort_status_.ok()) return abort_status_;
    if (!from_peers_.insert(key).second) {
      return errors::AlreadyExists("rendezvous key '", key,
                                   "' arrived twice from another process in one step (a "
                                   "duplicated message); the second copy is ignored");
    }
  }
  return DeliverLocal(key, value, is_dead);
}

void LocalRendezvous::RecvAsync(const std::string& key, DoneCallback done) {
  Status status;
  Tensor value;
  bool is_dead = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (abort_status_.ok()) {
      auto it = table_.find(key);
      if (it == table_.end() || !it->second.has_value) {
        Item& item = table_[key];
        if (item.waiters.empty()) item.waiting_since = std::chrono::steady_clock::now();
        item.waiters.push_back(std::move(done));
        return;
      }
      value = std::move(it->second.value);
      is_dead = it->second.is_dead;
      table_.erase(it);
    } else {
      status = abort_status_;
    }
  }
  // Outside the lock: the callback continues the receiving executor.
  done(status, value, is_dead);
}

void LocalRendezvous::StartAbort(const Status& status) {
  std::vector<DoneCallback> waiters;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!abort_status_.ok()) return;
    abort_status_ = status.ok() ? errors::Aborted("step aborted") : status;
    for (auto& [key, item] : table_)
      for (auto& w : item.waiters) waiters.push_back(std::move(w));
    table_.clear();
  }
  const Status reason = status.ok() ? errors::Aborted("step aborted") : status;
  for (auto& w : waiters) w(reason, Tensor(), false);
}

size_t LocalRendezvous::NumPending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return table_.size();
}

std::vector<LocalRendezvous::StalledRecv> LocalRendezvous::StalledRecvs(
    std::chrono::steady_clock::duration longer_than) const {
  const auto now = std::chrono::steady_clock::now();
  std::vector<StalledRecv> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, item] : table_) {
    if (item.waiters.empty() || now - item.waiting_since <= longer_than) continue;
    out.push_back({key, std::chrono::duration<double>(now - item.waiting_since).count()});
  }
  return out;
}

}  // namespace af
