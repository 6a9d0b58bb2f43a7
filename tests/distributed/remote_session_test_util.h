// Sessions on an `actorflow server` the test started: with the master in
// the test process (ConnectTo) or in the server (ConnectThroughMaster, the
// af:// target).
#pragma once

#include <memory>

#include <boost/test/unit_test.hpp>

#include "client/session.h"
#include "tests/distributed/server_process.h"

namespace af::testing {

inline std::unique_ptr<Session> Connect(const SessionOptions& options) {
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  return session;
}

inline std::unique_ptr<Session> ConnectTo(const ServerProcess& server) {
  SessionOptions options;
  options.remote_workers = {server.address()};
  options.threads_per_device = 1;
  options.default_timeout_ms = 30000;
  return Connect(options);
}

inline std::unique_ptr<Session> ConnectThroughMaster(const ServerProcess& server) {
  SessionOptions options;
  options.target = "af://" + server.address();
  options.default_timeout_ms = 30000;
  return Connect(options);
}

}  // namespace af::testing
