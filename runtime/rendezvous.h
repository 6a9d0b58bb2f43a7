// LocalRendezvous: the step-scoped rendezvous table of a worker.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/rendezvous.h"

namespace af {

// A table of keys for one step. When `remote_send` is set, Sends whose
// destination device is not one of `local_devices` go through it (the
// worker actor ships them to the destination process).
class LocalRendezvous : public Rendezvous {
 public:
  using RemoteSendFn = std::function<Status(const std::string& key,
                                            std::string_view dst_device,
                                            const Tensor& value, bool is_dead)>;
  LocalRendezvous() = default;
  LocalRendezvous(std::function<bool(std::string_view device)> is_local,
                  RemoteSendFn remote_send);

  Status Send(const std::string& key, const Tensor& value, bool is_dead) override;
  void RecvAsync(const std::string& key, DoneCallback done) override;
  void StartAbort(const Status& status) override;
  // Deliver a value (bypasses remote_send).
  Status DeliverLocal(const std::string& key, const Tensor& value, bool is_dead);
  // Deliver a value that came from another process. A network may deliver
  // a message twice (and fault injection does: core/fault_injection/): a
  // second arrival of a key in this step is ALREADY_EXISTS and changes
  // nothing, whether or not a Recv already took the first one.
  Status DeliverFromPeer(const std::string& key, const Tensor& value, bool is_dead);
  // Items sent but never received, and receivers still waiting (for tests
  // and leak checks at step end).
  size_t NumPending() const;

  // Recvs that have waited longer than `longer_than` for their tensor (the
  // stall inspector's view of a hung step).
  struct StalledRecv {
    std::string key;
    double seconds = 0;
  };
  std::vector<StalledRecv> StalledRecvs(std::chrono::steady_clock::duration longer_than) const;

 private:
  struct Item {
    bool has_value = false;
    Tensor value;
    bool is_dead = false;
    std::deque<DoneCallback> waiters;
    std::chrono::steady_clock::time_point waiting_since;  // of the first waiter
  };
  mutable std::mutex mu_;  // guards table_, from_peers_ and abort_status_
  std::unordered_map<std::string, Item> table_;
  // Keys that arrived from other processes in this step (a key taken by
  // its Recv leaves table_, so a late copy would otherwise look new).
  std::unordered_set<std::string> from_peers_;
  Status abort_status_;
  std::function<bool(std::string_view)> is_local_;
  RemoteSendFn remote_send_;
};

}  // namespace af
