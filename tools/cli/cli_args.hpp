// Command-line options of the `fattn` subcommands: declared once (name, value, help), parsed
// from `--name value` or `--name=value`, and described by `--help`.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fattn::cli {

// A mistake on the command line; the message is printed with the usage hint, exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ArgParser {
 public:
  ArgParser(std::string command, std::string summary);

  // A boolean switch: `--name`.
  void add_flag(const std::string& name, const std::string& help);
  // An option with a value: `--name VALUE`. `default_text` is only shown in the help.
  void add_option(const std::string& name, const std::string& value_name, const std::string& help,
                  const std::string& default_text = "");

  // Throws UsageError on an unknown option or a missing value. Returns false when --help was
  // asked for (the help has been printed).
  bool parse(const std::vector<std::string>& args);

  bool has(const std::string& name) const;
  std::optional<std::string> value(const std::string& name) const;
  // Typed values; each throws UsageError naming the option when the text does not parse.
  std::int64_t int_value(const std::string& name, std::int64_t fallback) const;
  double double_value(const std::string& name, double fallback) const;
  std::string string_value(const std::string& name, const std::string& fallback) const;
  // A comma-separated list, e.g. `--backend cpu_flash,cpu_standard`; repeated options append.
  std::vector<std::string> list_value(const std::string& name) const;

  void print_help() const;

 private:
  struct Spec {
    std::string name, value_name, help, default_text;
    bool takes_value = false;
  };
  const Spec* find(const std::string& name) const;

  std::string command_, summary_;
  std::vector<Spec> specs_;
  std::map<std::string, std::vector<std::string>> values_;
};

// Parsing helpers that name the option in their error.
std::int64_t parse_int(const std::string& text, const std::string& option);
double parse_double(const std::string& text, const std::string& option);
std::vector<std::string> split(const std::string& text, char separator);

// Runs a subcommand's body and turns what it throws into the exit codes every subcommand shares:
// a UsageError is printed with a pointer to `fattn <command> --help` (exit 2), any other
// exception with its message alone (exit 1).
int run_reporting_errors(const std::string& command, const std::function<int()>& body);

}  // namespace fattn::cli
