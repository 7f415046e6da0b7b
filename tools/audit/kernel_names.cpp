#include "kernel_names.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <string_view>

namespace fattn::audit {
namespace {

// The demangler writes "(anonymous namespace)": parentheses that are not a parameter list.
constexpr std::string_view kAnonymousNamespace = "(anonymous namespace)";
constexpr std::string_view kAnonymousPlaceholder = "{anonymous}";

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

}  // namespace

std::string demangle(const std::string& mangled_name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(mangled_name.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || demangled == nullptr) return mangled_name;
  return demangled.get();
}

std::string qualified_name(const std::string& demangled_name) {
  std::string text = demangled_name;
  replace_all(text, kAnonymousNamespace, kAnonymousPlaceholder);
  // The name ends at the first '(' outside template arguments (the parameter list) and starts
  // after the last space before it outside template arguments (a template's return type).
  int angle_depth = 0;
  std::size_t begin = 0;
  std::size_t end = text.size();
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') ++angle_depth;
    else if (c == '>' && angle_depth > 0) --angle_depth;
    else if (angle_depth == 0 && c == ' ') begin = i + 1;
    else if (angle_depth == 0 && c == '(') {
      end = i;
      break;
    }
  }
  if (begin > end) begin = 0;
  std::string name = text.substr(begin, end - begin);
  replace_all(name, kAnonymousPlaceholder, kAnonymousNamespace);
  return name;
}

std::vector<std::string> name_components(const std::string& qualified) {
  std::vector<std::string> components;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < qualified.size(); ++i) {
    const char c = qualified[i];
    if (c == '<' || c == '(') ++depth;
    else if ((c == '>' || c == ')') && depth > 0) --depth;
    else if (depth == 0 && c == ':' && i + 1 < qualified.size() && qualified[i + 1] == ':') {
      components.push_back(qualified.substr(start, i - start));
      start = i + 2;
      ++i;
    }
  }
  components.push_back(qualified.substr(start));
  return components;
}

std::string short_name(const std::string& qualified) {
  std::string name = qualified;
  replace_all(name, "fattn::detail::", "");
  replace_all(name, "fattn::", "");
  return name;
}

}  // namespace fattn::audit
