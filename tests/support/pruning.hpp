// GPU suites run in builds pruned with FATTN_CUDA_HEAD_DIMS & co. (a quick device check builds
// only the buckets it needs): a case whose kernel the pruning left out skips with the library's
// reason instead of failing, while a case fattn cannot run at all still fails.
#pragma once

#include <optional>
#include <string>

#include "cuda/common/instances.hpp"
#include "fattn/fattn.hpp"

namespace fattn::testing {

inline std::optional<std::string> pruned_from_build(Backend backend, const Problem& problem) {
  std::optional<std::string> why = detail::why_no_compiled_instance(backend, problem);
  if (why && why->find(detail::kPrunedFromBuild) != std::string::npos) return why;
  return std::nullopt;
}

}  // namespace fattn::testing
