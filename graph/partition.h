// Partitioning a placed graph into one GraphDef per device (whitepaper
// §3.2.2, "Cross-Device Communication").
//
// Every data edge whose ends sit on different devices is cut: the source
// device gets a `_Send` of the tensor and the destination device a `_Recv`
// that its consumers read. There is exactly one Send/Recv pair per
// (source tensor, destination device), however many consumers the tensor
// has there, so a tensor crosses to a device once per step. A cut control
// edge becomes a dummy tensor: a scalar float `Const` on the source device
// with a control input from the source node is sent across, and the
// destination node takes a control input from the `_Recv`.
//
// The pair shares TensorFlow's attrs: tensor_name ("edge_<edge id>_<source
// node>", unique per pair), send_device, send_device_incarnation,
// recv_device, client_terminated = false, and T (_Send) / tensor_type
// (_Recv), the base type of the tensor. The rendezvous key the kernels build
// from them is in core/rendezvous_key.h.
//
// A while-loop frame split over devices also needs loop control in each
// partition; control-flow/partition_loop_control.h adds it afterwards.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "core/status.h"
#include "graph/graph.h"
#include "proto/graph.pb.h"

namespace af {

struct PartitionOptions {
  // Incarnation of a device (by full name) for send_device_incarnation;
  // unset means 0 for every device.
  std::function<uint64_t(const std::string& device)> device_incarnation;
  // Lossy 16-bit transfer (whitepaper §5.5): a float32 tensor ("node:port")
  // cut between these two devices for which this says true is cast to
  // bfloat16 by truncation before its _Send and back to float32 after its
  // _Recv, halving the bytes that cross. Unset: never.
  std::function<bool(const std::string& tensor, const std::string& src_device,
                     const std::string& dst_device)>
      bfloat16_transfer;
};

// Writes one GraphDef per device that has nodes, keyed by full device
// name; every NodeDef's device is that name. Each node's device is its
// assigned device, or its requested device when that is a full name.
// INVALID_ARGUMENT naming the node when a node has no device, or when a
// reference input would cross devices (colocation should have prevented
// it).
Status PartitionGraph(const Graph& g, const PartitionOptions& options,
                      std::map<std::string, tensorflow::GraphDef>* partitions);

// The attrs both halves of a _Send/_Recv pair carry (tensor_name,
// send_device, send_device_incarnation, recv_device, client_terminated), for
// passes that add pairs after partitioning.
void SetSendRecvPairAttrs(const std::string& tensor_name, const std::string& send_device,
                          int64_t send_device_incarnation, const std::string& recv_device,
                          tensorflow::NodeDef* send, tensorflow::NodeDef* recv);

}  // namespace af
