// The ctypes entry points of bench/sm90_timeline.py: the sm90 forward's D = 64, 128 and 256
// bf16 kernels (the launch templates the library runs), and, in a build with
// FATTN_SM90_TIMELINE (bench/sm90_timeline_build.sh), where their phase records go
// (src/cuda/sm90/timeline.cuh). The same file built without the macro is the uninstrumented
// control timed beside it.
#include <cuda_bf16.h>

#include <cstdint>

#include "api/attention_args.hpp"
#include "kernel_shim_common.hpp"
#include "cuda/sm90/launch.hpp"
#include "cuda/sm90/tile_config.hpp"
#include "cuda/sm90/timeline.cuh"

using fattn::detail::AttentionArgs;
using namespace fattn_shim;

// Same arguments as bench/sm90_shim.cu's fattn_sm90_forward; bf16 only, head dims 1..128 and
// 193..256.
extern "C" int fattn_sm90_forward(void* q, void* k, void* v, void* out, void* lse, int dtype,
                                  std::int64_t batch, std::int64_t seqlen_q, std::int64_t seqlen_k,
                                  std::int64_t heads_q, std::int64_t heads_kv, std::int64_t head_dim,
                                  const std::int64_t* q_strides, const std::int64_t* k_strides,
                                  const std::int64_t* v_strides, const std::int64_t* out_strides,
                                  float scale, int causal, int window_left, int window_right,
                                  void* stream, char* error, int error_bytes) {
  const AttentionArgs args = forward_args(q, k, v, out, lse, dtype, batch, seqlen_q, seqlen_k,
                                          heads_q, heads_kv, head_dim, q_strides, k_strides,
                                          v_strides, out_strides, scale, causal, window_left,
                                          window_right, stream);
  fattn::Status status = fattn::Status::Unsupported("the timeline shim has bf16 D <= 128 and 193..256 only");
  if (args.problem.dtype == fattn::DType::bfloat16) {
    switch (fattn::detail::sm90::head_dim_bucket(args.problem.head_dim)) {
      case 64: status = fattn::detail::sm90::launch_forward<64, __nv_bfloat16>(args); break;
      case 128: status = fattn::detail::sm90::launch_forward<128, __nv_bfloat16>(args); break;
      case 256: status = fattn::detail::sm90::launch_forward<256, __nv_bfloat16>(args); break;
      default: break;
    }
  }
  return finish(status, error, error_bytes);
}

// Tracks per CTA in the record buffer and records per track (timeline.cuh), or 0 where this
// build records nothing.
extern "C" int fattn_sm90_timeline_tracks() {
#ifdef FATTN_SM90_TIMELINE
  return fattn::detail::sm90::timeline::kTracksPerCta;
#else
  return 0;
#endif
}
extern "C" int fattn_sm90_timeline_capacity() {
#ifdef FATTN_SM90_TIMELINE
  return fattn::detail::sm90::timeline::kTrackCapacity;
#else
  return 0;
#endif
}

// The record buffer of the following launches (16-byte records, tracks x capacity per CTA, the
// first `ctas` CTAs record); records = null turns recording off. -1 in a build without it.
extern "C" int fattn_sm90_timeline_set(void* records, int ctas) {
#ifdef FATTN_SM90_TIMELINE
  fattn::detail::sm90::timeline::requested_buffer = {
      static_cast<fattn::detail::sm90::timeline::Record*>(records), ctas};
  return 0;
#else
  (void)records;
  (void)ctas;
  return -1;
#endif
}
