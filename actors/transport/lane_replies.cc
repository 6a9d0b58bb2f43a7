#include "actors/transport/lane_replies.h"

#include <random>

#include <caf/actor_cast.hpp>

#include "actors/any_thread_send.h"
#include "actors/interfaces.h"
#include "actors/transport/wire_codec.h"

namespace af::actors {

LaneReplies& LaneReplies::Global() {
  static LaneReplies* const replies = [] {
    auto* r = new LaneReplies();
    std::random_device rd;
    r->next_ = (static_cast<uint64_t>(rd()) << 32) ^ rd();
    return r;
  }();
  return *replies;
}

uint64_t LaneReplies::Add(Waiter waiter) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t correlation = ++next_;
  waiting_[correlation] = std::move(waiter);
  return correlation;
}

uint64_t LaneReplies::Register(const caf::actor_addr& master) {
  return Add(Waiter{master, nullptr});
}

uint64_t LaneReplies::Register(Callback callback) { return Add(Waiter{{}, std::move(callback)}); }

void LaneReplies::Forget(uint64_t correlation) {
  Waiter gone;  // released outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  auto it = waiting_.find(correlation);
  if (it == waiting_.end()) return;
  gone = std::move(it->second);
  waiting_.erase(it);
}

void LaneReplies::Deliver(uint64_t correlation, std::string_view body) {
  Waiter waiter;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = waiting_.find(correlation);
    if (it == waiting_.end()) return;
    if (it->second.callback) {
      waiter = std::move(it->second);  // answered once: forgotten here
      waiting_.erase(it);
    } else {
      waiter.master = it->second.master;  // the master forgets it
    }
  }
  wire::RunGraphResponse response;
  if (Status s = wire::DecodeRunGraphResponse(body, &response); !s.ok()) {
    response = wire::RunGraphResponse{};
    response.status = wire::ToWire(s.WithContext("a RunGraph reply on the data plane"));
  }
  if (waiter.callback) return waiter.callback(response);
  auto target = caf::actor_cast<caf::strong_actor_ptr>(waiter.master);
  if (!target) return;
  SendFromAnyThreadAs(target, target, direct_reply_atom::value, correlation, std::move(response));
}

bool LaneReplies::DeliverToCallback(uint64_t correlation, wire::RunGraphResponse& response) {
  Callback callback;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = waiting_.find(correlation);
    if (it == waiting_.end() || !it->second.callback) return false;
    callback = std::move(it->second.callback);
    waiting_.erase(it);
  }
  callback(response);
  return true;
}

size_t LaneReplies::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_.size();
}

}  // namespace af::actors
