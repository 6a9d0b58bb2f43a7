#include "graph/optimizer_options.h"

#include <cstdlib>
#include <sstream>

#include "core/logging.h"

namespace af {
namespace {

// The passes by the names the text form uses; "dead" covers dead nodes and
// Identity/NoOp chains.
struct PassSwitch {
  const char* name;
  bool OptimizerOptions::*enabled;
};
const PassSwitch kSwitches[] = {
    {"fold", &OptimizerOptions::do_constant_folding},
    {"cse", &OptimizerOptions::do_common_subexpression_elimination},
    {"arith", &OptimizerOptions::do_arithmetic_simplification},
    {"dead", &OptimizerOptions::do_dead_node_removal},
    {"recv", &OptimizerOptions::do_recv_scheduling},
};

}  // namespace

Status OptimizerOptions::Parse(const std::string& text, OptimizerOptions* out) {
  OptimizerOptions options;
  if (text.empty() || text == "on") {
    *out = options;
    return Status::OK();
  }
  if (text == "off") {
    options.opt_level = L0;
    *out = options;
    return Status::OK();
  }
  const std::string prefix = "off:";
  if (text.rfind(prefix, 0) != 0) {
    return errors::InvalidArgument("optimizer setting '", text,
                                   "': expected on, off, or off:PASS[,PASS...] with passes "
                                   "fold, cse, arith, dead, recv");
  }
  std::stringstream words(text.substr(prefix.size()));
  std::string word;
  while (std::getline(words, word, ',')) {
    bool known = false;
    for (const PassSwitch& pass : kSwitches) {
      if (word != pass.name) continue;
      options.*pass.enabled = false;
      known = true;
    }
    if (!known) {
      return errors::InvalidArgument("optimizer setting '", text, "': unknown pass '", word,
                                     "' (known: fold, cse, arith, dead, recv)");
    }
  }
  *out = options;
  return Status::OK();
}

std::string OptimizerOptions::ToString() const {
  if (!enabled()) return "off";
  std::string off;
  for (const PassSwitch& pass : kSwitches) {
    if (this->*pass.enabled) continue;
    off += off.empty() ? "off:" : ",";
    off += pass.name;
  }
  return off.empty() ? "on" : off;
}

OptimizerOptions OptimizerOptions::ProcessDefault() {
  static const OptimizerOptions options = [] {
    OptimizerOptions parsed;
    const char* value = std::getenv("ACTORFLOW_OPTIMIZER");
    if (value != nullptr) {
      if (Status s = Parse(value, &parsed); !s.ok()) {
        AF_LOG(WARNING) << "ACTORFLOW_OPTIMIZER ignored: " << s.message();
        parsed = OptimizerOptions{};
      }
    }
    if (const char* resend = std::getenv("ACTORFLOW_RECV_RESEND")) {
      const std::string text = resend;
      parsed.recv_scheduling_resend = !text.empty() && text != "0" && text != "off";
    }
    // "1"/"on": every float32 tensor between processes; any other text is
    // the pattern of the tensors to narrow (a program's whole run, e.g. a
    // trainer under `actorflow cluster`, without a flag of its own).
    if (const char* transfer = std::getenv("ACTORFLOW_BFLOAT16_TRANSFER")) {
      const std::string text = transfer;
      if (!text.empty() && text != "0" && text != "off") {
        parsed.bfloat16_transfer = true;
        if (text != "1" && text != "on") parsed.bfloat16_transfer_pattern = text;
      }
    }
    return parsed;
  }();
  return options;
}

}  // namespace af
