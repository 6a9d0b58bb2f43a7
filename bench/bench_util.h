// Shared pieces of the benchmark programs: timing loops, JSON-lines output
// (DESIGN.md §5) and tiny GraphDef builders.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "proto/graph.pb.h"

namespace af::bench {

// Runs fn repeatedly for at least `min_seconds` (and `min_iters`) after
// `warmup` calls; returns seconds per call (median of 5 batches).
double TimePerCall(const std::function<void()>& fn, double min_seconds = 0.5,
                   int min_iters = 3, int warmup = 2);

// {"bench":..., "case":..., <extra>, "metric":..., "value":..., "unit":...}
void PrintResult(const std::string& bench, const std::string& case_name,
                 const std::string& extra_json_fields, const std::string& metric,
                 double value, const std::string& unit);

// The q-quantile (0..1, nearest rank) of `v`, which must not be empty.
double Quantile(std::vector<double> v, double q);

// `--runs N` among the arguments (at least 10), else `fallback`.
int RunsFlag(int argc, char** argv, int fallback);

// Exits with a message when a setup step fails: a benchmark has no
// meaningful figure to print then.
void CheckOk(const Status& s, const std::string& what);

// This process's peak tensor memory (the CPU allocator's) from construction
// on, above what was in use then: what a step added at its worst, received
// tensors included. Resets the allocator's peak; one at a time.
class PeakTensorMemory {
 public:
  PeakTensorMemory();
  double MiB() const;

 private:
  int64_t before_;
};

// A connected TCP pair on loopback, TCP_NODELAY on both ends (the raw
// peers the transport benchmarks compare against).
void LoopbackTcpPair(int* client, int* server);

// GraphDef building.
tensorflow::NodeDef* AddNode(tensorflow::GraphDef* g, const std::string& name,
                             const std::string& op, const std::vector<std::string>& inputs);
void SetTypeAttr(tensorflow::NodeDef* n, const std::string& attr, int dtype);
void SetIntAttr(tensorflow::NodeDef* n, const std::string& attr, int64_t v);
void SetStringAttr(tensorflow::NodeDef* n, const std::string& attr, const std::string& v);
void SetBoolAttr(tensorflow::NodeDef* n, const std::string& attr, bool v);
tensorflow::NodeDef* AddScalarConst(tensorflow::GraphDef* g, const std::string& name,
                                    int32_t value, const std::string& control_input = "");

}  // namespace af::bench
