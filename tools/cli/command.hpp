// Subcommands of the `fattn` program register themselves here; main() dispatches by name.
// Each subcommand lives in its own file (bench.cpp, check.cpp, audit.cpp, ...).
#pragma once

#include <string>
#include <vector>

namespace fattn::cli {

using CommandMain = int (*)(const std::vector<std::string>& args);

struct Command {
  const char* name;
  const char* summary;
  CommandMain run;
};

bool register_command(const Command& command);
const std::vector<Command>& commands();

}  // namespace fattn::cli

// Registers `function` as `fattn NAME`. Use once per subcommand, at namespace scope.
#define FATTN_CLI_COMMAND(name, summary, function) \
  static const bool fattn_cli_registered_##function = ::fattn::cli::register_command({name, summary, function})
