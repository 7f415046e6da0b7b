// How many CPU threads a call may use.
#pragma once

#include <omp.h>

#include "fattn/fattn.hpp"

namespace fattn::detail {

// ExecutionContext::num_threads, or every hardware thread OpenMP offers when it is 0.
inline int resolve_threads(const ExecutionContext& context) {
  return context.num_threads > 0 ? context.num_threads : omp_get_max_threads();
}

}  // namespace fattn::detail
