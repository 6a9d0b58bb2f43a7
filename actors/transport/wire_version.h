// Which Actorflow a process is, and which wire protocol it speaks. No CAF
// here: the command line and tests include it too.
//
// Processes of one cluster must speak the same wire protocol: CAF checks
// nothing but the names of a published actor's message types, so a field
// added to a message would otherwise surface as a failed deserialization or
// a request that never gets its answer. The first exchange of every
// connection (actors/transport/wire_handshake.h) compares the two numbers, with
// CAF builtin types only, so that any two versions can read it.
#pragma once

#include <cstdint>
#include <string>

#if __has_include("core/version.h")
#include "core/version.h"
#endif
// Until the build generates core/version.h.
#ifndef AF_VERSION_STRING
#define AF_VERSION_STRING "0.0.0-dev"
#endif

namespace af {

// Bump it with any change to what crosses processes: a message type or its
// inspect() (actors/transport/messages.cc, actors/transport/wire.h), an atom, a typed interface
// that is published or handed to another process (actors/interfaces.h), or
// what a handler expects of a peer. Never reuse a number.
// 2: RunGraphResponse.sent and RunStepResponse.traffic (issue 24).
// 3: the direct step path: lane messages on the data plane, direct_run_atom
//    and direct_reply_atom, small tensors as frames (issue 25).
// 4: MasterSessionRequest.optimizer, max_folded_constant_bytes and the
//    bfloat16 transfer settings (issue 26).
// 5: clients heartbeat their af:// master sessions (heartbeat_atom and
//    sweep_atom on master_session_actor); join_atom and cluster_atom for
//    tasks beyond the spec (issue 28).
inline constexpr uint32_t kWireProtocolVersion = 5;

// The version this process claims: kWireProtocolVersion, unless the
// environment variable below held another number when the process started.
uint32_t WireProtocolVersion();

// TEST ONLY: makes a process claim another wire protocol version, so that
// tests can start mismatched processes from one build. Read once, when the
// library is loaded.
inline constexpr const char* kWireVersionForTestsEnv = "ACTORFLOW_WIRE_VERSION_FOR_TESTS";
// TEST ONLY: the same for this process, from now on (0: back to the
// version it started with).
void SetWireProtocolVersionForTests(uint32_t version);

// The library's version, "0.12.0".
std::string LibraryVersion();

// The refusal of a peer whose wire protocol differs: `peer` names it ("the
// server at 127.0.0.1:5000"). A peer that predates the version exchange
// has `peer_wire` 0.
std::string WireMismatchMessage(const std::string& peer, uint32_t peer_wire,
                                const std::string& peer_library, uint32_t own_wire,
                                const std::string& own_library);

}  // namespace af
