// The `fattn` program: `fattn <command> [options]`; `fattn` alone runs `fattn bench`.
#include <cstdio>
#include <string>
#include <vector>

#include "command.hpp"
#include "fattn/fattn.hpp"

namespace fattn::cli {

std::vector<Command>& registry() {
  static std::vector<Command> all;
  return all;
}

bool register_command(const Command& command) {
  registry().push_back(command);
  return true;
}

const std::vector<Command>& commands() { return registry(); }

namespace {

constexpr const char* kDefaultCommand = "bench";

void print_usage() {
  std::printf("fattn %s — exact attention, the IO-aware way\n\nusage: fattn <command> [options]\n\n",
              fattn::version());
  for (const Command& c : commands()) std::printf("  %-10s %s\n", c.name, c.summary);
  std::printf("\n`fattn <command> --help` describes a command's options; with no command, "
              "fattn runs `%s`.\n", kDefaultCommand);
}

}  // namespace
}  // namespace fattn::cli

int main(int argc, char** argv) {
  using namespace fattn::cli;
  std::string name = argc > 1 ? argv[1] : kDefaultCommand;
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage();
    return 0;
  }
  if (name == "--version") {
    std::printf("%s\n", fattn::version());
    return 0;
  }
  std::vector<std::string> args(argv + (argc > 1 ? 2 : 1), argv + argc);
  for (const Command& c : commands()) {
    if (name == c.name) return c.run(args);
  }
  std::fprintf(stderr, "fattn: unknown command '%s'\n\n", name.c_str());
  print_usage();
  return 2;
}
