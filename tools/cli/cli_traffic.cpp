#include "cli_traffic.hpp"

#include <cmath>

namespace fattn::cli {
namespace {

constexpr double kFloatBytes = 4.0;
constexpr double kDoubleBytes = 8.0;
// Touches of each N×N score element (one touch = one write or one read of the whole matrix):
// forward: S written, S read and P written by the softmax, P read by P·V.
constexpr double kStandardForwardTouches = 4.0;
// backward: S written; S read, P written; dP written; P, dP read and dS written; P and dS read
// by dV += Pᵀ·dO and dK += dSᵀ·Q; dS read by dQ = dS·K.
constexpr double kStandardBackwardTouches = 10.0;
// A float32 dQ accumulator is read and written once per key tile in the flash backward.
constexpr double kAccumulatorTouches = 2.0;

constexpr std::int64_t kCpuFlashQueryRows = 64, kCpuFlashKeyColumns = 64;
constexpr std::int64_t kSimtQueryRows = 64, kSimtKeyColumns = 64;
constexpr std::int64_t kSm80QueryRows = 128, kSm80KeyColumns = 64;
constexpr std::int64_t kSm90QueryRows = 128, kSm90KeyColumns = 128;

double ceil_div(double a, double b) { return std::ceil(a / b); }

}  // namespace

FlashTiles default_flash_tiles(Backend backend) {
  switch (backend) {
    case Backend::cuda_simt:
      return {kSimtQueryRows, kSimtKeyColumns};
    case Backend::cuda_sm80:
      return {kSm80QueryRows, kSm80KeyColumns};
    case Backend::cuda_sm90:
      return {kSm90QueryRows, kSm90KeyColumns};
    default:
      return {kCpuFlashQueryRows, kCpuFlashKeyColumns};
  }
}

bool materializes_scores(Backend backend) {
  return backend == Backend::cpu_reference || backend == Backend::cpu_standard ||
         backend == Backend::cuda_standard;
}

Traffic attention_traffic(const ProblemSpec& spec, Backend backend, const FlashTiles& tiles) {
  const double e = static_cast<double>(size_of(spec.dtype));
  const double b = static_cast<double>(spec.batch), hq = static_cast<double>(spec.heads_q);
  const double hkv = static_cast<double>(spec.heads_kv), d = static_cast<double>(spec.head_dim);
  const double nq = static_cast<double>(spec.seqlen_q), nk = static_cast<double>(spec.seqlen_k);
  const double q_bytes = e * b * nq * hq * d;    // q, out, dout, dq
  const double kv_bytes = e * b * nk * hkv * d;  // each of k, v, dk, dv
  const double lse_bytes = kFloatBytes * b * hq * nq;
  const bool forward = spec.workload != Workload::backward;
  const bool backward = spec.workload != Workload::forward;
  // Fraction of the score matrix the mask leaves: flash skips the tiles outside it.
  const double visible = nq * nk > 0 ? attended_pairs(spec) / (nq * nk) : 0.0;

  Traffic t;
  if (forward) t.minimal_bytes += 2 * q_bytes + 2 * kv_bytes + lse_bytes;  // q, k, v in; out, lse out
  if (backward)
    t.minimal_bytes += 4 * q_bytes + 4 * kv_bytes + lse_bytes;  // q, k, v, out, dout, lse in; dq, dk, dv out
  t.moved_bytes = t.minimal_bytes;

  if (materializes_scores(backend)) {
    const double score_bytes = backend == Backend::cpu_reference ? kDoubleBytes : kFloatBytes;
    const double scores = b * hq * nq * nk;
    if (forward) t.moved_bytes += kStandardForwardTouches * scores * score_bytes;
    if (backward) t.moved_bytes += kStandardBackwardTouches * scores * score_bytes;
    t.dram_bytes = t.moved_bytes;  // the N×N matrices do not fit in any cache
    t.model = "inputs and outputs once, plus the full N×N score matrix (" +
              std::to_string(static_cast<int>(score_bytes)) + "-byte elements) written and read " +
              (forward ? "4×" : "") + (forward && backward ? " + " : "") + (backward ? "10×" : "") +
              " (masks do not shrink it)";
    return t;
  }
  // Flash: every query head streams its kv head's K and V once per query tile (the minimum
  // already counts one pass per kv head); the backward streams Q and dO once per key tile and
  // reads and writes a float32 dQ accumulator as often.
  const double query_tiles = ceil_div(nq, static_cast<double>(tiles.query_rows));
  const double key_tiles = ceil_div(nk, static_cast<double>(tiles.key_columns));
  const double per_query_head_kv = e * b * nk * d;  // one head's K (or V)
  if (forward) {
    t.moved_bytes += 2 * per_query_head_kv * (hq * query_tiles * visible - hkv);
  }
  if (backward) {
    const double accumulator_bytes = kFloatBytes * b * nq * hq * d;
    t.moved_bytes += 2 * q_bytes * (key_tiles * visible - 1) +
                     kAccumulatorTouches * accumulator_bytes * key_tiles * visible;
  }
  t.moved_bytes = std::max(t.moved_bytes, t.minimal_bytes);
  // The re-reads mostly hit L2 (see the header), so only the compulsory bytes are charged to DRAM.
  t.dram_bytes = t.minimal_bytes;
  t.model = "DRAM = compulsory; tile traffic (tiles " + std::to_string(tiles.query_rows) + "×" +
            std::to_string(tiles.key_columns) + "): K, V re-read per query tile" +
            (backward ? "; Q, dO re-read and an fp32 dQ accumulator per key tile" : "") +
            (visible < 1.0 ? "; masked tiles skipped" : "") + ", mostly cache hits";
  return t;
}

}  // namespace fattn::cli
