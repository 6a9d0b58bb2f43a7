// A lost worker's way back into its session. Cluster managers (and
// `actorflow cluster --restart on-failure`) restart a dead task on the same
// address; the master reconnects there on every heartbeat tick, and a
// process serving the same devices rejoins: the session opens on it, every
// other worker learns where its devices now live, and the devices' new
// incarnation goes into every plan built from then on. Plans that used the
// old process were dropped when it was lost (WorkerLost), so nothing of the
// old incarnation is sent again; its variables are gone, as after any
// restart.
#include <set>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/middleman_actor.hpp>

#include "actors/transport/cluster_tls.h"
#include "actors/health/master_health.h"
#include "actors/transport/peer_auth.h"
#include "actors/transport/wire_handshake.h"
#include "core/cluster_spec.h"

namespace af::actors {
namespace {

bool SameDeviceNames(const std::vector<wire::DeviceInfo>& a,
                     const std::vector<wire::DeviceInfo>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name) return false;
  }
  return true;
}

void Rejoined(MasterPointer self, int index, worker_actor handle,
              std::vector<wire::DeviceInfo> devices) {
  MasterState& st = self->state;
  WorkerRecord& record = st.workers[index];
  record.rejoining = false;
  if (st.closed) return;
  record.worker.handle = std::move(handle);
  record.devices = std::move(devices);
  record.incarnation = record.devices.empty() ? 0 : record.devices.front().incarnation;
  record.alive = true;
  record.lost = Status::OK();
  record.Heard(std::chrono::steady_clock::now());
  self->monitor(record.worker.handle);
  for (const wire::DeviceInfo& d : record.devices) {
    for (DeviceAttributes& known : st.devices) {
      if (known.name == d.name) known.incarnation = d.incarnation;
    }
  }
  // The other workers route Sends to this task's devices by handle.
  OpenSession open = SessionOpening(self);
  const int64_t master_lost_after_ms = open.master_lost_after_ms;
  for (size_t w = 0; w < st.workers.size(); ++w) {
    const WorkerRecord& other = st.workers[w];
    if (static_cast<int>(w) == index || !other.alive) continue;
    open.incarnation = other.incarnation;
    open.master_lost_after_ms = other.worker.remote ? master_lost_after_ms : 0;
    self->request(other.worker.handle, caf::duration(st.health.lost_after), open_sess_atom::value,
                  open)
        .then([](wire::WireStatus&) {}, [](caf::error&) {});
  }
}

// Opens the session on the process found at the lost worker's address.
void OpenOnNewProcess(MasterPointer self, int index, worker_actor handle,
                      std::vector<wire::DeviceInfo> devices) {
  MasterState& st = self->state;
  WorkerRecord& record = st.workers[index];
  const uint64_t incarnation = devices.empty() ? 0 : devices.front().incarnation;
  if (incarnation == record.incarnation) {
    // The same process (a hang or a dropped connection that healed): its
    // steps of this session were failed here; drop them there too.
    self->send(handle, close_sess_atom::value, st.session_id);
  }
  OpenSession open = SessionOpening(self);
  open.peers[index].worker = caf::actor_cast<caf::actor>(handle);
  open.incarnation = incarnation;
  self->request(handle, caf::duration(st.health.lost_after), open_sess_atom::value, open)
      .then(
          [=](wire::WireStatus& status) mutable {
            if (status.code != 0) {
              self->state.workers[index].rejoining = false;
              return;
            }
            Rejoined(self, index, std::move(handle), std::move(devices));
          },
          [=](caf::error&) { self->state.workers[index].rejoining = false; });
}

void ListDevicesThenOpen(MasterPointer self, int index, worker_actor handle) {
  self->request(handle, caf::duration(self->state.health.lost_after), list_dev_atom::value)
      .then(
          [=](std::vector<wire::DeviceInfo>& devices) mutable {
            WorkerRecord& r = self->state.workers[index];
            // Another task at the address is not this worker.
            if (self->state.closed || !SameDeviceNames(r.devices, devices)) {
              r.rejoining = false;
              return;
            }
            OpenOnNewProcess(self, index, std::move(handle), std::move(devices));
          },
          [=](caf::error&) { self->state.workers[index].rejoining = false; });
}

}  // namespace

void TryRejoin(MasterPointer self, int index) {
  MasterState& st = self->state;
  WorkerRecord& record = st.workers[index];
  std::string host;
  uint16_t port = 0;
  if (st.closed || !ParseHostPort(record.worker.address, &host, &port).ok()) return;
  record.rejoining = true;
  const caf::duration timeout(st.health.lost_after);
  auto give_up = [=](caf::error&) { self->state.workers[index].rejoining = false; };
  // The middleman's asynchronous connect: a scheduler thread never blocks
  // on a task that is still down.
  caf::io::middleman_actor connector;
  if (!ConnectionManagerFor(self->system(), st.cluster_secret, &connector).ok()) {
    record.rejoining = false;
    return;
  }
  self->request(connector, timeout, caf::connect_atom::value, host, port)
      .then(
          [=](const caf::node_id&, caf::strong_actor_ptr& found,
              const std::set<std::string>& interface) {
            if (!found || interface != self->system().message_types<worker_actor>()) {
              self->state.workers[index].rejoining = false;
              return;
            }
            auto handle = caf::actor_cast<worker_actor>(found);
            // A server answers nothing before the version exchange, nor,
            // with the cluster secret, before the handshake
            // (actors/transport/wire_handshake.h, actors/transport/peer_auth.h).
            CheckVersionAsync(
                self, caf::actor_cast<caf::actor>(handle), self->state.health.lost_after,
                self->state.workers[index].Describe(), [=](Status same_wire) {
                  if (!same_wire.ok()) {
                    // Silence from a cached connection to a process that
                    // died: the next try dials the address again.
                    if (errors::IsUnavailable(same_wire)) ForgetCachedConnection(connector, found);
                    self->state.workers[index].rejoining = false;
                    return;
                  }
                  AuthenticateAsync(
                      self, handle, self->state.cluster_secret, self->state.health.lost_after,
                      self->state.workers[index].Describe(), [=](Status proven) {
                        if (!proven.ok()) {
                          self->state.workers[index].rejoining = false;
                          return;
                        }
                        ListDevicesThenOpen(self, index, handle);
                      });
                });
          },
          give_up);
}

}  // namespace af::actors
