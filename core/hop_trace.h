// HopTrace: where a remote step's time goes, hop by hop (issue 25). With
// ACTORFLOW_HOP_TRACE=PATH in a process's environment, the direct step
// path marks each hop of each step — (step id, hop, CLOCK_MONOTONIC ns) —
// in a fixed buffer, written to PATH when the process exits (or on Dump).
// CLOCK_MONOTONIC is one clock for every process of a host, so the marks
// of a client and a server on one machine line up; bench_step_hops reads
// both and prints the median time of each hop. Without the variable a mark
// costs one relaxed load. ACTORFLOW_HOP_TRACE=- keeps the marks in memory
// only. No CAF here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace af {

enum class Hop : uint8_t {
  kRunStart = 0,       // a client thread began a cached remote step
  kRequestWritten,     // a RunGraph lane message left (master side; a batch's
                       // frames leave when the batch ends)
  kRequestRead,        // a RunGraph lane message arrived (worker side)
  kPartitionsStarted,  // a side started its partitions of the step (the client:
                       // before its first frames leave)
  kTensorWritten,      // a tensor frame left (any side)
  kTensorRead,         // a tensor frame arrived (any side)
  kReplyWritten,       // a RunGraph reply left (worker side)
  kReplyRead,          // a RunGraph reply arrived (master side)
  kRunEnd,             // the client thread has the step's result
  kNumHops
};

const char* HopName(Hop hop);

struct HopMark {
  int64_t step_id = 0;
  uint64_t nanos = 0;
  Hop hop = Hop::kRunStart;
};

class HopTrace {
 public:
  static bool enabled();
  static void Mark(int64_t step_id, Hop hop);
  // What this process marked so far (in order).
  static std::vector<HopMark> Marks();
  // Writes the marks, one "step_id hop nanos" line each.
  static bool Dump(const std::string& path);
  static bool Load(const std::string& path, std::vector<HopMark>* out);
};

}  // namespace af
