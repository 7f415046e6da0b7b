#include "cli_args.hpp"

#include <cstdio>
#include <cstdlib>

namespace fattn::cli {

ArgParser::ArgParser(std::string command, std::string summary)
    : command_(std::move(command)), summary_(std::move(summary)) {}

void ArgParser::add_flag(const std::string& name, const std::string& help) {
  specs_.push_back({name, "", help, "", false});
}

void ArgParser::add_option(const std::string& name, const std::string& value_name, const std::string& help,
                           const std::string& default_text) {
  specs_.push_back({name, value_name, help, default_text, true});
}

const ArgParser::Spec* ArgParser::find(const std::string& name) const {
  for (const Spec& s : specs_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

bool ArgParser::parse(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      print_help();
      return false;
    }
    if (arg.rfind("--", 0) != 0) {
      throw UsageError("unexpected argument '" + arg + "' (options start with --)");
    }
    std::string name = arg.substr(2);
    std::optional<std::string> inline_value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const Spec* spec = find(name);
    if (!spec) throw UsageError("unknown option --" + name);
    if (!spec->takes_value) {
      if (inline_value) throw UsageError("--" + name + " takes no value");
      values_[name].push_back("");
      continue;
    }
    if (inline_value) {
      values_[name].push_back(*inline_value);
    } else if (i + 1 < args.size()) {
      values_[name].push_back(args[++i]);
    } else {
      throw UsageError("--" + name + " needs a value (" + spec->value_name + ")");
    }
  }
  return true;
}

bool ArgParser::has(const std::string& name) const { return values_.count(name) != 0; }

std::optional<std::string> ArgParser::value(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second.back();
}

std::int64_t ArgParser::int_value(const std::string& name, std::int64_t fallback) const {
  const auto text = value(name);
  return text ? parse_int(*text, "--" + name) : fallback;
}

double ArgParser::double_value(const std::string& name, double fallback) const {
  const auto text = value(name);
  return text ? parse_double(*text, "--" + name) : fallback;
}

std::string ArgParser::string_value(const std::string& name, const std::string& fallback) const {
  return value(name).value_or(fallback);
}

std::vector<std::string> ArgParser::list_value(const std::string& name) const {
  std::vector<std::string> items;
  const auto it = values_.find(name);
  if (it == values_.end()) return items;
  for (const std::string& text : it->second) {
    for (std::string& item : split(text, ',')) {
      if (!item.empty()) items.push_back(std::move(item));
    }
  }
  return items;
}

void ArgParser::print_help() const {
  std::printf("usage: fattn %s [options]\n\n%s\n\noptions:\n", command_.c_str(), summary_.c_str());
  for (const Spec& s : specs_) {
    std::string left = "--" + s.name + (s.takes_value ? " " + s.value_name : "");
    std::printf("  %-26s %s", left.c_str(), s.help.c_str());
    if (!s.default_text.empty()) std::printf(" [default: %s]", s.default_text.c_str());
    std::printf("\n");
  }
}

std::int64_t parse_int(const std::string& text, const std::string& option) {
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') {
    throw UsageError(option + ": expected an integer, got '" + text + "'");
  }
  return value;
}

double parse_double(const std::string& text, const std::string& option) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') {
    throw UsageError(option + ": expected a number, got '" + text + "'");
  }
  return value;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto next = text.find(separator, start);
    parts.push_back(text.substr(start, next - start));
    if (next == std::string::npos) break;
    start = next + 1;
  }
  return parts;
}

int run_reporting_errors(const std::string& command, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "fattn %s: %s\n(see `fattn %s --help`)\n", command.c_str(), e.what(), command.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fattn %s: %s\n", command.c_str(), e.what());
    return 1;
  }
}

}  // namespace fattn::cli
