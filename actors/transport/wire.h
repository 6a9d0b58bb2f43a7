// Wire types: the payloads of the messages between masters and workers. They
// are plain structs (no CAF here) so that step code can build them; their
// serialization lives in actors/transport/messages.cc, the only place that knows how
// they cross a process boundary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/step_traffic.h"
#include "core/tensor.h"

namespace af::wire {

// The largest message between processes: CAF 0.17 frames messages with an
// unchecked 32-bit length, so anything near 4 GiB would arrive corrupt.
inline constexpr uint64_t kMaxMessageBytes = (uint64_t{1} << 32) - (uint64_t{1} << 20);

// A Status as it travels: TensorFlow's canonical code and the message.
struct WireStatus {
  int32_t code = 0;
  std::string message;
};
WireStatus ToWire(const Status& status);
// Unknown codes (a newer or a corrupt peer) become UNKNOWN.
Status FromWire(const WireStatus& status);

struct DeviceInfo {
  std::string name;  // full device name
  std::string type;  // "CPU", "GPU"
  uint64_t incarnation = 0;
  // "host:port" of the worker's data plane (actors/worker/data_plane.h),
  // the same for every device of a worker; empty: none (chunks via CAF).
  std::string data_address;
};

// Worker registration of one partition (a GraphDef already placed on
// `device`), sent as protobuf bytes so that the wire stays protobuf-neutral.
struct RegisterGraphRequest {
  int64_t session_id = 0;
  uint64_t incarnation = 0;  // of the worker the master registered with (0: any)
  std::string device;
  std::string graph_def;  // serialized tensorflow::GraphDef
};
struct RegisterGraphResponse {
  WireStatus status;
  int64_t handle = 0;
  int32_t num_args = 0;     // _Arg nodes of the partition
  int32_t num_retvals = 0;  // _Retval nodes of the partition
};

// One partition to run in a step, with its `_Arg` values in index order.
struct PartitionCall {
  int64_t handle = 0;
  std::vector<Tensor> args;
};
struct RunGraphRequest {
  int64_t session_id = 0;
  uint64_t incarnation = 0;  // of the worker the master registered with (0: any)
  int64_t step_id = 0;
  std::vector<PartitionCall> partitions;
  bool trace = false;  // return every node's times (PartitionResult::step_stats)
};
// `_Retval` values of one partition, in index order.
struct PartitionResult {
  std::vector<Tensor> retvals;
  // Measured execution times of the partition's nodes, on the steps where
  // the device measured them (empty otherwise); they refine the master's
  // cost model for later placements.
  std::vector<std::string> cost_nodes;
  std::vector<double> cost_micros;
  // A traced step's serialized tensorflow::DeviceStepStats of the
  // partition's device, times already on the wall clock of the worker's
  // process; empty otherwise.
  std::string step_stats;
};
struct RunGraphResponse {
  WireStatus status;
  std::vector<PartitionResult> partitions;  // parallel to the request's
  // What the step's Sends shipped from this worker to other processes
  // (src: this worker's task).
  std::vector<TaskTraffic> sent;
};

// Tensors above kChunkThreshold bytes (fixed-size dtypes) cross in chunks
// of kChunkBytes, at most kChunkWindow unacknowledged per transfer: BASP
// has no flow control (an unbounded send queue), frames messages with a
// 32-bit length, and a long message would starve the connection's
// heartbeats. Measured on CAF 0.17.6 (docs/decisions.md), BASP throughput is best
// with 1 MiB messages and 4 in flight.
inline constexpr uint64_t kChunkThreshold = uint64_t{1} << 20;
inline constexpr uint64_t kChunkBytes = uint64_t{1} << 20;
inline constexpr int kChunkWindow = 4;

// Bytes [offset, offset + length) of a large tensor for a Recv in another
// process. Sending, `tensor` is the whole source tensor (nothing is copied
// before the socket). Received from the wire, `tensor` holds only this
// chunk's bytes (DT_UINT8, `length` of them) and `dtype`/`shape` describe the
// whole tensor: the destination is allocated by the worker's handler after
// it admitted the sender (actors/transport/incoming_tensors.h), never by the
// deserializer, so a message cannot make a process allocate more than its
// own size before any check.
struct TensorChunk {
  int64_t step_id = 0;
  std::string key;  // rendezvous key
  uint64_t offset = 0;
  uint64_t length = 0;
  Tensor tensor;
  bool from_wire = false;  // set by the deserializer
  DataType dtype = DT_INVALID;
  TensorShape shape;
};

// A tensor a Send in one process hands to the Recv in another: one message
// per tensor per step (below kChunkThreshold).
struct TensorPush {
  int64_t step_id = 0;
  std::string key;  // rendezvous key
  Tensor value;
  bool is_dead = false;
};

// The cluster-secret handshake (actors/transport/peer_auth.h). Nonces are 32 random
// bytes, proofs 32-byte HMAC-SHA256 values.
struct AuthHello {
  std::string client_nonce;
};
struct AuthChallenge {
  bool required = false;  // false: the server has no secret (and no proof)
  std::string server_nonce;
  std::string server_proof;
};
struct AuthProof {
  std::string client_nonce;
  std::string server_nonce;
  std::string client_proof;
  // Why the client gives up instead of proving (it has no secret, or the
  // server's proof did not match), so that the server's log says so.
  std::string declined;
};

// A client's session on a server's master (SessionOptions::target
// "af://host:port"): the tasks the master is to use beside the server's
// own (empty: every other task of the server's cluster) and its health
// settings.
struct MasterSessionRequest {
  std::vector<std::string> task_addresses;  // "host:port"
  std::vector<std::string> task_names;      // parallel; "" where unknown
  int64_t setup_timeout_ms = 10000;
  int64_t heartbeat_interval_ms = 250;
  int64_t worker_lost_after_ms = 1500;
  // The session's graph optimizer, as OptimizerOptions::Parse reads it.
  std::string optimizer = "on";
  int64_t max_folded_constant_bytes = 10 * 1024 * 1024;
  bool bfloat16_transfer = false;
  std::string bfloat16_transfer_pattern;
};

// One Run of a client against a remote master: what RunCall holds, as it
// travels.
struct RunStepRequest {
  std::vector<std::string> feed_names;
  std::vector<Tensor> feed_values;  // parallel to feed_names
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  int64_t timeout_ms = 0;
  bool trace = false;
};
struct RunStepResponse {
  WireStatus status;
  std::vector<Tensor> outputs;  // parallel to the request's fetches
  std::string step_stats;       // serialized tensorflow::StepStats of a traced step
  std::vector<TaskTraffic> traffic;  // what the step moved between processes
};

// Several pushes of a session to one worker, sent together
// (actors/worker/push_outbox.h).
struct TensorPushBatch {
  std::vector<TensorPush> pushes;
};

}  // namespace af::wire
