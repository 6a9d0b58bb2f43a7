#include "core/net/peer_traffic.h"

#include <mutex>
#include <unordered_map>

#include "core/net/transfer_counters.h"

namespace af::net {
namespace {

constexpr size_t kMaxPeers = 1024;

class PeerCounters {
 public:
  PeerCounters(std::string name, std::string help, std::string label)
      : name_(std::move(name)), help_(std::move(help)), label_(std::move(label)) {}

  metrics::Counter* For(const std::string& peer) {
    // A thread that writes tensors mostly writes them to one peer: its last
    // answer is kept, so the hot path takes no lock.
    struct Last {
      const PeerCounters* owner = nullptr;
      std::string peer;
      metrics::Counter* counter = nullptr;
    };
    thread_local Last last;
    if (last.owner == this && last.peer == peer) return last.counter;
    metrics::Counter* counter = Find(peer);
    last = {this, peer, counter};
    return counter;
  }

 private:
  metrics::Counter* Find(const std::string& peer) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = counters_.find(peer);
    if (it != counters_.end()) return it->second;
    const std::string value = counters_.size() < kMaxPeers ? peer : "other";
    metrics::Counter* counter =
        metrics::MetricsRegistry::Global().GetCounter(name_, help_, {{label_, value}});
    if (counters_.size() < kMaxPeers) counters_.emplace(peer, counter);
    return counter;
  }

  const std::string name_, help_, label_;
  std::mutex mu_;
  std::unordered_map<std::string, metrics::Counter*> counters_;
};

}  // namespace

// The totals, read from the data plane's own counters when scraped.
void RegisterDataPlaneTotals() {
  metrics::MetricsRegistry& m = metrics::MetricsRegistry::Global();
  m.SetCounterReader("actorflow_data_plane_tensors_sent_total",
                     "Tensors this process sent on its data plane.", [] {
                       return static_cast<double>(TransferCounters::Global().tensors_sent.load());
                     });
  m.SetCounterReader("actorflow_data_plane_tensors_received_total",
                     "Tensors this process received on its data plane.", [] {
                       return static_cast<double>(
                           TransferCounters::Global().tensors_received.load());
                     });
}

metrics::Counter* BytesSentTo(const std::string& address) {
  static PeerCounters* const counters = [] {
    RegisterDataPlaneTotals();
    return new PeerCounters("actorflow_data_plane_bytes_sent_total",
                            "Tensor bytes this process sent on its data plane, by the peer's "
                            "data-plane address.",
                            "peer");
  }();
  return counters->For(address);
}

metrics::Counter* BytesReceivedFrom(const std::string& host) {
  static PeerCounters* const counters = [] {
    RegisterDataPlaneTotals();
    return new PeerCounters("actorflow_data_plane_bytes_received_total",
                            "Tensor bytes this process received on its data plane, by the "
                            "peer's host.",
                            "host");
  }();
  return counters->For(host);
}

}  // namespace af::net
