// Cost model for placement (whitepaper §3.2.1): how long a node runs on a
// device type and how long a tensor takes to move between devices.
//
// Static estimates come from output shapes (recorded by shape inference)
// and the op type; measured times, when recorded, replace them. Unknown
// dimensions count as 1, so an unknown batch size still ranks nodes by
// the sizes that are known.
//
// Constants (rough figures for a 2015-era machine; only their ratios
// matter to the greedy placer):
//   CPU: 2e4 flops/us (20 GFLOP/s), 0.5 us fixed cost per node.
//   GPU: 1e6 flops/us (1 TFLOP/s),  5 us fixed cost per node (launch).
//   Other device types are costed as CPU.
//   Transfer in one process (same job/replica/task): 1e4 bytes/us
//     (10 GB/s, PCIe class) plus 5 us latency.
//   Transfer between processes: 1e3 bytes/us (1 GB/s, 10 Gbit/s network)
//     plus 50 us latency.
//   Same device: free.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/device_base.h"
#include "graph/graph.h"

namespace af {

class CostModel {
 public:
  static constexpr double kCpuFlopsPerMicro = 2e4;
  static constexpr double kGpuFlopsPerMicro = 1e6;
  static constexpr double kCpuNodeOverheadMicros = 0.5;
  static constexpr double kGpuNodeOverheadMicros = 5.0;
  static constexpr double kLocalBytesPerMicro = 1e4;
  static constexpr double kLocalLatencyMicros = 5.0;
  static constexpr double kRemoteBytesPerMicro = 1e3;
  static constexpr double kRemoteLatencyMicros = 50.0;
  // Bytes assumed per element of a string, resource or variant tensor.
  static constexpr int64_t kVariableElementBytes = 16;

  // Estimated arithmetic of one execution: MatMul 2*M*N*K, BatchMatMul the
  // same per batch, Conv2D 2*output elements*filter volume, reductions the
  // input elements, bookkeeping ops (Const, Identity, NoOp, variables,
  // control flow, Send/Recv, _Arg/_Retval, shape ops) 0, anything else the
  // number of output elements.
  double EstimatedFlops(const Node& node) const;

  // Static estimate on a device type: fixed cost + flops / rate.
  double StaticComputeMicros(const Node& node, const DeviceType& device_type) const;
  // The measured average when one was recorded for node.name(), else the
  // static estimate.
  double ComputeMicros(const Node& node, const DeviceType& device_type) const;

  // Whether the node is bookkeeping the executor runs inline (no estimated
  // arithmetic and no measurement), so it does not keep its device busy.
  bool RunsInline(const Node& node) const;

  // Bytes of one output (elements * element size; unknown dims count 1).
  int64_t OutputBytes(const Node& node, int port) const;

  // Moving `bytes` from one full device name to another.
  double TransferMicros(int64_t bytes, std::string_view src_device,
                        std::string_view dst_device) const;
  // The same between two different devices, given whether they share a
  // process (callers with parsed names skip the parse).
  double TransferMicros(int64_t bytes, bool same_address_space) const;

  // Running average of measured execution times, keyed by node name.
  void RecordMeasured(const std::string& node_name, double micros);
  bool HasMeasured(const std::string& node_name) const;
  double MeasuredMicros(const std::string& node_name) const;  // 0 if none
  void ClearMeasured() { measured_.clear(); }

 private:
  struct Measurement {
    double total_micros = 0;
    int64_t count = 0;
  };
  std::unordered_map<std::string, Measurement> measured_;
};

}  // namespace af
