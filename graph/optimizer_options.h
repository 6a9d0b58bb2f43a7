// OptimizerOptions: which of the graph optimizer's passes a session runs
// (graph/optimizer.h), TensorFlow's OptimizerOptions with its opt_level,
// and the text form the command line, ACTORFLOW_OPTIMIZER and the wire use.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace af {

struct OptimizerOptions {
  // TensorFlow's OptimizerOptions.Level values.
  enum Level : int { L1 = 0, L0 = -1 };
  Level opt_level = L1;
  bool do_constant_folding = true;
  bool do_common_subexpression_elimination = true;
  bool do_arithmetic_simplification = true;
  // Dead nodes, and Identity and NoOp chains outside loops.
  bool do_dead_node_removal = true;
  // Large tensors crossing processes are sent just before their first
  // consumer needs them (graph/recv_scheduling.h); at least this many bytes.
  bool do_recv_scheduling = true;
  int64_t recv_scheduling_min_bytes = int64_t{1} << 20;
  // Off by default: a tensor used early and again late on one device (a
  // weight in the forward and backward passes) crosses once per use group,
  // trading its bytes again for not keeping it in between. Not part of the
  // text form; ACTORFLOW_RECV_RESEND=1 sets it for ProcessDefault.
  bool recv_scheduling_resend = false;
  int64_t max_folded_constant_in_bytes = int64_t{10} * 1024 * 1024;
  // Lossy 16-bit transfer (whitepaper §5.5), off by default: float32
  // tensors cut between CPU devices of different processes travel as
  // bfloat16 (truncated, half the bytes) and are widened on arrival. A
  // non-empty pattern (an ECMAScript regex over the source's "node:port";
  // a fed tensor's source is its _Arg) limits it to the tensors it matches
  // in full. Not part of the text form below; ACTORFLOW_BFLOAT16_TRANSFER
  // ("1", or a pattern) sets it for ProcessDefault.
  bool bfloat16_transfer = false;
  std::string bfloat16_transfer_pattern;

  bool enabled() const { return opt_level != L0; }
  // "on", "off", or a comma list of passes to turn off ("off:cse,fold");
  // the form ACTORFLOW_OPTIMIZER and `--optimizer` take. Unknown words
  // are INVALID_ARGUMENT.
  static Status Parse(const std::string& text, OptimizerOptions* out);
  // The form Parse reads back (max_folded_constant_in_bytes aside).
  std::string ToString() const;
  // The process's default: ACTORFLOW_OPTIMIZER when set (bad values are
  // logged and ignored), else everything on.
  static OptimizerOptions ProcessDefault();
};

}  // namespace af
