#include "actors/transport/wire_version.h"

#include <atomic>
#include <cstdlib>
#include <string_view>

namespace af {
namespace {

uint32_t StartupVersion() {
  const char* text = std::getenv(kWireVersionForTestsEnv);
  if (text == nullptr || *text == '\0') return kWireProtocolVersion;
  char* end = nullptr;
  const unsigned long value = std::strtoul(text, &end, 10);
  if (*end != '\0' || value == 0 || value > UINT32_MAX) return kWireProtocolVersion;
  return static_cast<uint32_t>(value);
}

// At load time, so that a test may set the variable for its children
// without changing what the test process itself claims.
const uint32_t startup_version = StartupVersion();
std::atomic<uint32_t> test_override{0};

}  // namespace

uint32_t WireProtocolVersion() {
  const uint32_t overridden = test_override.load(std::memory_order_relaxed);
  return overridden != 0 ? overridden : startup_version;
}

void SetWireProtocolVersionForTests(uint32_t version) {
  test_override.store(version, std::memory_order_relaxed);
}

std::string LibraryVersion() { return AF_VERSION_STRING; }

std::string WireMismatchMessage(const std::string& peer, uint32_t peer_wire,
                                const std::string& peer_library, uint32_t own_wire,
                                const std::string& own_library) {
  std::string text = peer;
  if (peer_wire == 0) {
    text += " speaks a wire protocol older than 1 (an Actorflow that predates the version "
            "handshake)";
  } else {
    text += " speaks Actorflow wire protocol " + std::to_string(peer_wire) + " (Actorflow " +
            (peer_library.empty() ? std::string("of unknown version") : peer_library) + ")";
  }
  text += "; this process speaks " + std::to_string(own_wire) + " (Actorflow " + own_library +
          "): run the same Actorflow version on every process of a cluster";
  return text;
}

}  // namespace af
