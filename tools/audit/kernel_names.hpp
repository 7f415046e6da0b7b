// Kernel names as people read them: demangled, without return type and parameters, and split
// into their namespace path so that a kernel can be matched to the family that declares it.
#pragma once

#include <string>
#include <vector>

namespace fattn::audit {

// The demangled name, or the mangled one unchanged when it is not a C++ name (extern "C").
std::string demangle(const std::string& mangled_name);

// "void fattn::detail::sm80::flash_fwd<Cfg<64> >(Params)" -> "fattn::detail::sm80::flash_fwd<Cfg<64> >"
std::string qualified_name(const std::string& demangled_name);

// The qualified name split at "::" outside template arguments:
// "fattn::detail::sm80::flash_fwd<a::b>" -> {"fattn", "detail", "sm80", "flash_fwd<a::b>"}.
std::vector<std::string> name_components(const std::string& qualified);

// The name shown in the table: the qualified name with "fattn::detail::" and "fattn::" dropped
// wherever they occur (template arguments included), e.g. "sm80::flash_fwd<sm80::Cfg<64> >".
std::string short_name(const std::string& qualified);

}  // namespace fattn::audit
