#include "actors/transport/cluster_tls.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/openssl/publish.hpp>
#include <caf/sec.hpp>

#include "actors/transport/openssl_error_queue.h"
#include "core/net/tcp_socket.h"
#include "core/tls_identity.h"

namespace af::actors {
namespace {

std::mutex g_config_mu;

bool ServerListens(const std::string& address) {
  const std::atomic<bool> never{false};
  int fd = -1;
  if (!net::ConnectTcp(address, std::chrono::milliseconds(500), never, &fd).ok()) return false;
  close(fd);
  return true;
}

// Points the system's OpenSSL settings at the process's identity files.
// libcaf_openssl reads them for every new connection, so they are set once
// (the paths never change; the files' contents follow the secret) before
// the first TLS connection, and never written again.
Status UseClusterIdentity(caf::actor_system& system, const std::string& secret) {
  if (!system.has_openssl_manager()) {
    return errors::FailedPrecondition(
        "a cluster secret needs TLS, but the actor system has no OpenSSL module: call "
        "cfg.load<caf::openssl::manager>() after cfg.load<caf::io::middleman>()");
  }
  if (!OpensslErrorQueueGuardLinked()) return errors::Internal("OpenSSL error-queue guard missing");
  TlsIdentityFiles files;
  AF_RETURN_IF_ERROR(UseTlsIdentityFor(secret, &files));
  std::lock_guard<std::mutex> lock(g_config_mu);
  // The configuration belongs to whoever made the system (Actorflow's
  // holder or an embedding application); CAF offers no setter after start.
  auto& config = const_cast<caf::actor_system_config&>(system.config());
  if (config.openssl_certificate.empty() && config.openssl_key.empty() &&
      config.openssl_cafile.empty()) {
    config.openssl_certificate = files.certificate;
    config.openssl_key = files.private_key;
    config.openssl_cafile = files.ca_certificate;
    return Status::OK();
  }
  if (config.openssl_certificate != files.certificate) {
    return errors::FailedPrecondition(
        "the actor system's OpenSSL settings name other certificates (",
        config.openssl_certificate,
        "); Actorflow derives its own from the cluster secret and cannot use both");
  }
  return Status::OK();
}

}  // namespace

Status ConnectionManagerFor(caf::actor_system& system, const std::string& secret,
                            caf::io::middleman_actor* out) {
  if (secret.empty()) {
    *out = system.middleman().actor_handle();
    return Status::OK();
  }
  AF_RETURN_IF_ERROR(UseClusterIdentity(system, secret));
  *out = system.openssl_manager().actor_handle();
  return Status::OK();
}

Status PublishWorker(caf::actor_system& system, const worker_actor& worker,
                     const std::string& host, uint16_t port, const std::string& secret,
                     uint16_t* bound) {
  caf::expected<uint16_t> published{caf::sec::runtime_error};
  if (secret.empty()) {
    published = system.middleman().publish(worker, port, host.c_str(), /*reuse_addr=*/true);
  } else {
    AF_RETURN_IF_ERROR(UseClusterIdentity(system, secret));
    published = caf::openssl::publish(worker, port, host.c_str(), /*reuse=*/true);
  }
  if (!published) {
    return errors::Unavailable("server: cannot listen on ", host, ":", port, ": ",
                               system.render(published.error()));
  }
  *bound = *published;
  return Status::OK();
}

Status ConnectFailed(caf::actor_system& system, const caf::error& err, const std::string& who,
                     const std::string& address, bool with_secret) {
  // The TCP connection opened (the server is there) but CAF's handshake
  // never finished: a TLS handshake that one side refused. A plain server
  // answers a TLS hello with its own BASP handshake, which libcaf_openssl
  // reports as it reports a closed port: the probe tells the two apart.
  const bool refused =
      err == caf::sec::disconnect_during_handshake ||
      (with_secret && err == caf::sec::cannot_connect_to_node && ServerListens(address));
  if (refused && with_secret) {
    return errors::Unauthenticated(
        who, " refused this process's TLS handshake: it runs without a cluster secret or holds "
             "another one");
  }
  if (refused) {
    return errors::Unauthenticated(
        who, " requires the cluster secret (give --secret_file or set ACTORFLOW_SECRET_FILE)");
  }
  return errors::Unavailable(system.render(err));
}

}  // namespace af::actors
