// Recv scheduling (whitepaper §5.2, "Controlling Data Communication and
// Memory Usage"): a large tensor that crosses processes should arrive just
// before its first consumer needs it, not at the start of the step, so
// that the receiving task does not hold every transferred tensor at once
// (a deep model's weights fetched from ps tasks, say).
//
// TensorFlow adds control edges that delay the receiver's Recv, because its
// Recv pulls. Here the sender pushes (a _Send writes the tensor to the
// receiving task as soon as it runs), so delaying the Recv would only park
// the tensor in the receiver's rendezvous. The pass therefore holds the
// sending side: the cut edge is routed through an Identity on the source's
// device ("<source>/_recv_hold") that takes a control input from a trigger
// node on the consumer's device. Partitioning turns that control edge into
// a small message from the receiving task, so the _Send runs only once the
// receiver has reached the trigger.
//
// Only tensors the sender keeps for the step anyway are held: a variable's
// value, a constant, an Identity of either (weights on a ps task). Holding
// a computed tensor would move its memory from the receiver to the sender.
//
// Times come from an as-soon-as-possible schedule of the placed graph with
// the cost model's static estimates (compute and transfers alike, so that
// their ratio holds; measured compute times beside a modelled network would
// not). For each held tensor, the trigger is
// the node on the consumer's device that finishes last, among the first
// consumer's ancestors, no later than the consumer's start minus the
// tensor's transfer time: the ALAP start of the transfer.
//
// Left alone, to keep results and liveness: tensors under the size
// threshold or of unknown size, reference inputs, anything that may run in
// a while loop's frame, and edges whose only possible triggers may be dead
// (downstream of a Switch: a dead control input would kill the tensor).
// A trigger never depends on the held tensor, so no cycle is made.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "graph/cost_model.h"
#include "graph/graph.h"

namespace af {

struct RecvSchedulingOptions {
  // Smaller tensors cross as soon as they exist: holding them saves little
  // memory and costs a control message.
  int64_t min_bytes = int64_t{1} << 20;
  // Its static estimates time the schedule; null: a default CostModel.
  const CostModel* cost_model = nullptr;
  // A tensor whose consumers on one device fall apart in time (a weight
  // used in the forward pass and again in the backward pass) is sent once
  // per group of consumers, each held until shortly before its group, so
  // that the receiver does not keep it in between. Costs the tensor's bytes
  // again per group, and every writer of the variable (an optimizer's
  // apply) waits for the later groups, so that they see the same value.
  bool resend = false;
};

struct RecvSchedulingStats {
  int candidates = 0;  // cut (tensor, receiving device) pairs over the threshold
  int held = 0;        // of those, held until a trigger
  int resent = 0;      // extra transfers for later groups of consumers (`resend`)
};

// Runs on a placed graph (every node has an assigned or full requested
// device), before partitioning. Adds one Identity and one control edge per
// held transfer (and, when resending, control edges from a later group's
// consumers to the variable's writers); never removes a node.
Status ScheduleRecvs(Graph* graph, const RecvSchedulingOptions& options,
                     RecvSchedulingStats* stats);

}  // namespace af
