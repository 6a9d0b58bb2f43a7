// The subcommands of the `actorflow` command line. Each takes the arguments
// after its name and returns the process exit code.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace af::tools {

using Args = std::vector<std::string>;

struct Subcommand {
  std::string_view name;
  std::string_view summary;  // one line for `actorflow help`
  std::string_view usage;    // full text for `actorflow help NAME`
  int (*run)(const Args& args, std::ostream& out, std::ostream& err);
};

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;  // the work failed; the Status was printed
inline constexpr int kExitUsage = 2;  // the command line was wrong

extern const Subcommand kInspectCommand;
extern const Subcommand kServerCommand;  // tools/server_command.cc
extern const Subcommand kRunCommand;     // tools/run_command.cc
extern const Subcommand kCheckpointCommand;  // tools/checkpoint_command.cc
extern const Subcommand kEventsCommand;      // tools/events_command.cc
extern const Subcommand kClusterCommand;     // tools/cluster_command.cc
extern const Subcommand kSavedModelCommand;  // tools/saved_model_command.cc

}  // namespace af::tools
