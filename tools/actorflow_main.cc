// `actorflow SUBCOMMAND ...`: finds the subcommand and runs it.
#include <algorithm>
#include <array>
#include <iostream>

#include "actors/transport/wire_version.h"
#include "core/flag_spelling.h"
#include "core/logging.h"
#include "tools/subcommands.h"

namespace af::tools {
namespace {

// New subcommands are listed here once they exist.
const std::array<const Subcommand*, 7> kSubcommands = {
    &kCheckpointCommand, &kClusterCommand,    &kEventsCommand, &kInspectCommand,
    &kRunCommand,        &kSavedModelCommand, &kServerCommand};

const Subcommand* FindSubcommand(std::string_view name) {
  for (const Subcommand* c : kSubcommands) {
    if (c->name == name) return c;
  }
  return nullptr;
}

void PrintHelp(std::ostream& os) {
  os << "usage: actorflow <command> [args]\n\ncommands:\n";
  for (const Subcommand* c : kSubcommands) {
    os << "  " << c->name << std::string(12 - std::min<size_t>(c->name.size(), 11), ' ')
       << c->summary << "\n";
  }
  os << "  help        show this list, or `actorflow help <command>` for one command\n";
  os << "  --version   print the library version and the wire protocol version\n";
  os << "\nEvery command takes --log_level debug|info|warning|error (default: info, or\n"
        "ACTORFLOW_LOG_LEVEL); log lines carry the time, the level and the task\n"
        "(ACTORFLOW_TASK_NAME, which `actorflow cluster` sets for each task).\n";
}

bool IsHelpFlag(std::string_view arg) { return arg == "--help" || arg == "-h"; }

int Main(const Args& args) {
  if (args.empty()) {
    PrintHelp(std::cerr);
    return kExitUsage;
  }
  const std::string& name = args[0];
  if (name == "--version" || name == "version") {
    std::cout << "actorflow " << LibraryVersion() << " (wire protocol " << WireProtocolVersion()
              << ")\n";
    return kExitOk;
  }
  if (IsHelpFlag(name) || name == "help") {
    if (args.size() < 2) {
      PrintHelp(std::cout);
      return kExitOk;
    }
    const Subcommand* c = FindSubcommand(args[1]);
    if (c == nullptr) {
      std::cerr << "actorflow: unknown command '" << args[1] << "'\n";
      return kExitUsage;
    }
    std::cout << c->usage;
    return kExitOk;
  }
  const Subcommand* c = FindSubcommand(name);
  if (c == nullptr) {
    std::cerr << "actorflow: unknown command '" << name << "'\n\n";
    PrintHelp(std::cerr);
    return kExitUsage;
  }
  const Args rest(args.begin() + 1, args.end());
  for (const std::string& arg : rest) {
    if (arg == "--") break;  // what follows is another program's (`cluster -- PROGRAM --help`)
    if (IsHelpFlag(arg)) {
      std::cout << c->usage;
      return kExitOk;
    }
  }
  return c->run(rest, std::cout, std::cerr);
}

}  // namespace
}  // namespace af::tools

int main(int argc, char** argv) {
  // Every subcommand takes --log_level (what follows "--" is another
  // program's and is left alone).
  af::SnakeCaseFlags(argc, argv);
  if (std::string error; !af::ConsumeLogLevelFlag(&argc, argv, &error)) {
    std::cerr << "actorflow: " << error << "\n";
    return af::tools::kExitUsage;
  }
  return af::tools::Main(af::tools::Args(argv + 1, argv + argc));
}
