// One-call wrappers for the reader state ops (ReaderSerializeStateV2,
// ReaderRestoreStateV2, ReaderResetV2), shared by the reader state tests.
#pragma once

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/kernels/reader_test_util.h"
#include "tests/test_util.h"

namespace af::test {

inline StatusOr<std::string> SerializeReader(const Tensor& reader) {
  KernelRunner r("ReaderSerializeStateV2", "serialize");
  r.Input(reader);
  auto out = r.Run();
  if (!out.ok()) return out.status();
  BOOST_CHECK_EQUAL(out.value()[0].dims(), 0);
  return out.value()[0].scalar<std::string>();
}

inline Status RestoreReader(const Tensor& reader, const std::string& state) {
  KernelRunner r("ReaderRestoreStateV2", "restore");
  r.Input(reader).Input(Tensor::Scalar<std::string>(state));
  return r.Run().status();
}

inline Status ResetReader(const Tensor& reader) {
  KernelRunner r("ReaderResetV2", "reset");
  r.Input(reader);
  return r.Run().status();
}

// The work unit of a key "<file>:<index>".
inline std::string FileOfKey(const std::string& key) { return key.substr(0, key.rfind(':')); }

using testing::Mentions;

// Until a read is parked on the queue (a guard, not a timing assertion:
// gives up after a minute so a broken reader fails instead of hanging).
inline void WaitForWaitingRead(const QueueFixture& queue) {
  for (int i = 0; i < 60000 && queue.queue()->waiting() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  BOOST_REQUIRE_EQUAL(queue.queue()->waiting(), 1u);
}

}  // namespace af::test
