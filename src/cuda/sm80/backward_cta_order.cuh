// The sm80 backward's walk order (backward_kernel.cuh): which key tile a CTA takes, which query
// tiles it walks, and the deterministic mode's ordered dQ chain (each query tile's partials added
// in a fixed key-tile order, handed from CTA to CTA by an acquire / release counter).
#pragma once

#include <cstdint>

#include "common/mask.hpp"
#include "cuda/common/ptx_sm80.cuh"
#include "cuda/sm80/tile_config.hpp"

namespace fattn::detail::sm80 {

__device__ __forceinline__ int load_acquire(const int* address) {
  int value;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];\n" : "=r"(value) : "l"(address) : "memory");
  return value;
}

// Orders this thread's dQ reductions before the block barrier and thread 0's release store that
// hands the query tile to the next key tile. A release (acq_rel) fence is what that needs;
// __threadfence() is fence.sc (SASS MEMBAR.SC.GPU), which also orders later loads after earlier
// stores and costs more on every hop of the ordered chain of a deterministic backward.
__device__ __forceinline__ void fence_acq_rel_gpu() {
  asm volatile("fence.acq_rel.gpu;\n" ::: "memory");
}

__device__ __forceinline__ void store_release(int* address, int value) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;\n" ::"l"(address), "r"(value) : "memory");
}

// MaskedDqTurnSlot (backward_tile_config.hpp): the current item's counter and turn, written by
// thread 0 at the item's start and read by thread 0's deferred hand-over at the next loop top
// (or after the loop), instead of derived there again from the previous item's (batch, head,
// query tile). One slot per CTA, thread 0's own: it reads item m - 1's values before it writes
// item m's (program order), so the slot needs no barrier.
struct DqTurn {
  int* semaphore;
  int turn;
};
__device__ __forceinline__ DqTurn& dq_turn_slot() {
  __shared__ DqTurn slot;
  return slot;
}

// DqTurnBeforeDqProduct (backward_tile_config.hpp): an mbarrier in shared memory on which warp 0's
// lane 0, once it has acquired the item's turn, arrives, and on whose phase the other warps wait
// before their dQ reductions. One arrival completes a phase, and warp 0 arrives at every item of
// the deterministic mode (without polling where the turn is 0), so item i is phase i and a waiter
// needs only the item's parity. The parity is enough because warp 0 never completes phase i + 1
// before a waiter of item i is through: its arrival of item i + 1 comes after item i + 1's loop-top
// __syncthreads, which every warp reaches only after its wait of item i. So a waiter sees phase i
// pending or completed, never phase i + 1 completed as well (on which test_wait.parity would read
// phase i's parity as pending again and wait for ever). Keep a CTA barrier between the wait of one
// item and warp 0's arrival of the next, or wait on the phase count. mbarrier.arrive releases and
// test_wait acquires at CTA scope: lane 0's acquire of the counter (and, through __syncwarp, warp
// 0's lanes) is ordered before every waiting warp's reductions, as the CTA barrier after the poll
// did. Not a named barrier's bar.arrive: racecheck reports hazards across every later __syncthreads
// of a warp that arrives on one (bench/racecheck_named_barrier.cu, perf-notes "Backward v50").
__device__ __forceinline__ std::uint64_t* dq_turn_mbarrier() {
  __shared__ std::uint64_t barrier;
  return &barrier;
}
// Thread 0, before the item loop (whose first barrier makes the initialised barrier visible).
__device__ __forceinline__ void dq_turn_mbarrier_init() {
  asm volatile("mbarrier.init.shared.b64 [%0], 1;\n" ::"r"(smem_address(dq_turn_mbarrier()))
               : "memory");
}
// Until item `item`'s phase has completed: the other warps before their reductions where the
// turn is not 0, and warp 0 at every item, after its arrival has completed the phase (so at
// once). Warp 0's wait is for synccheck: without it the phases of turn-0 items (which no other
// warp waits on) completed unobserved, and synccheck reported "Missing wait" at warp 0's arrival
// (twenty-seventh session, call 1; bench/racecheck_named_barrier.cu, where every phase has
// waiters, reports nothing in either form). The wait sits in the waiters' code (the caller's
// vote): no extra code path for warp 0.
__device__ __forceinline__ void wait_dq_turn_of_cta(int item) {
  asm volatile(
      "{\n .reg .pred done;\n"
      "DQ_TURN_WAIT_%=:\n"
      " mbarrier.test_wait.parity.shared.b64 done, [%0], %1;\n"
      " @!done bra DQ_TURN_WAIT_%=;\n}\n" ::"r"(smem_address(dq_turn_mbarrier())),
      "r"(static_cast<std::uint32_t>(item) & 1u)
      : "memory");
}
// The same wait, returning `row` through a selp on the wait's predicate (true after the loop, so
// `row` unchanged): ptxas does not move what the caller computes from the result above the wait
// (in the SASS the selp itself is gone, folded, and that math follows the wait loop).
// Unmasked- and MaskedDqTurnBeforeDqProduct pass the reductions' query row through it: without,
// ptxas moved their address and row-count math (after the plain wait) into the dQ product, and
// the 256 NoMask kernel spilled 4-8 bytes on sm_90a (twenty-seventh session, s27-det256).
__device__ __forceinline__ int row_after_dq_turn_of_cta(int item, int row) {
  asm volatile(
      "{\n .reg .pred done;\n"
      "DQ_TURN_WAIT_%=:\n"
      " mbarrier.test_wait.parity.shared.b64 done, [%1], %2;\n"
      " @!done bra DQ_TURN_WAIT_%=;\n"
      " selp.b32 %0, %0, 0, done;\n}\n"
      : "+r"(row)
      : "r"(smem_address(dq_turn_mbarrier())), "r"(static_cast<std::uint32_t>(item) & 1u)
      : "memory");
  return row;
}
// Warp 0's part (the caller's vote picks it, so the call is warp-uniform): lane 0 waits until
// the query tile's counter reads `turn` (not at turn 0, which no other key tile precedes) and
// arrives, and the warp reconverges (__syncwarp orders the acquire before its other lanes'
// reductions). kWriteSlot (UnmaskedDqTurnBeforeDqProduct): lane 0, which is thread 0, also
// writes the counter and turn into dq_turn_slot for its own deferred hand-over (as
// MaskedDqTurnSlot's write at the item's start: thread 0's own slot, read at the next loop top
// or after the loop, before the next item's poll writes it again). kReadSlot (MaskedDqTurnSlot
// with MaskedDqTurnBeforeDqProduct): lane 0 polls the counter and turn that it wrote into the
// slot at the item's start, in place of the caller's.
template <bool kWriteSlot, bool kReadSlot = false>
__device__ __forceinline__ void take_dq_turn_for_cta(int* semaphore, int turn, int lane) {
  if (lane == 0) {
    if constexpr (kReadSlot) {
      semaphore = dq_turn_slot().semaphore;
      turn = dq_turn_slot().turn;
    }
    if (turn != 0) {
      while (load_acquire(semaphore) != turn) {
      }
    }
    asm volatile("mbarrier.arrive.shared.b64 _, [%0];\n" ::"r"(smem_address(dq_turn_mbarrier()))
                 : "memory");
    if constexpr (kWriteSlot) dq_turn_slot() = {semaphore, turn};
  }
  __syncwarp();
}

// Deterministic mode: the position of key tile `n_block` among the key tiles that add into the
// dQ of query rows [row0, row_end). CTAs walk their query tiles in ascending order, so the order
// that costs the least waiting is the one in which the CTAs reach a query tile: under a causal
// (right-bounded) mask a query tile is the first tile of the diagonal key tile's CTA and a later
// tile of every CTA to its left, so the key tiles add in descending order (ascending would make
// every CTA wait for all the tiles to its left: a wavefront); otherwise every CTA starts at the
// same query tile and ascending order is as good as any. With QueryTilesDescending
// (backward_tile_config.hpp) the CTAs walk down from their last query tile instead, and
// ascending order is the one for every mask.
__device__ __forceinline__ bool mask_is_right_bounded(const NoMask&) { return false; }
__device__ __forceinline__ bool mask_is_right_bounded(const CausalMask&) { return true; }
__device__ __forceinline__ bool mask_is_right_bounded(const WindowMask& mask) {
  return mask.right >= 0;
}

// This CTA's (key tile, KV head, batch) with KeyTilesSlowestInHeadGroups: the grid's linear
// index walks groups of `group_pairs` (KV head, batch) pairs, the key tile slowest inside a group
// (the last group may hold fewer pairs).
struct CtaTile {
  int n_block;
  int kv_head;
  int batch;
};
__device__ __forceinline__ CtaTile key_tile_slowest_in_group(int group_pairs) {
  const int n_blocks = static_cast<int>(gridDim.x);
  const int kv_heads = static_cast<int>(gridDim.y);
  const int pairs = kv_heads * static_cast<int>(gridDim.z);
  const int linear =
      static_cast<int>(blockIdx.x) +
      n_blocks * (static_cast<int>(blockIdx.y) + kv_heads * static_cast<int>(blockIdx.z));
  const int group = linear / (group_pairs * n_blocks);
  const int first_pair = group * group_pairs;
  const int pairs_here = min(group_pairs, pairs - first_pair);
  const int in_group = linear - first_pair * n_blocks;
  const int pair = first_pair + in_group % pairs_here;
  return {in_group / pairs_here, pair % kv_heads, pair / kv_heads};
}

// The query tiles [first, end) of the first run of `touches` over [0, m_blocks), as the serial
// walk finds them, with each lane testing one tile of 32 per ballot (WarpSearchedQueryRange).
// Warp-uniform: every lane of the warp must call it.
template <class Touches>
__device__ __forceinline__ int2 warp_searched_query_range(int m_blocks, int lane,
                                                          const Touches& touches) {
  constexpr unsigned kAllLanes = 0xffffffffu;
  int first = m_blocks;
  for (int base = 0; base < m_blocks; base += kWarpSize) {
    const int m = base + lane;
    // A lane past the last tile reads as a miss: the run then ends at m_blocks, as in the walk.
    const unsigned hits = __ballot_sync(kAllLanes, m < m_blocks && touches(m));
    unsigned misses = ~hits;
    if (first == m_blocks) {
      if (hits == 0) continue;
      first = base + __ffs(hits) - 1;
      misses &= kAllLanes << (first - base);
    }
    if (misses != 0) return make_int2(first, base + __ffs(misses) - 1);
  }
  return make_int2(first, m_blocks);
}

template <int kBlockN, class Mask>
__device__ __forceinline__ int dq_turn_for(const Mask& mask, int row0, int row_end, int n_block,
                                           bool descending) {
  const int first = mask.key_begin(row0) / kBlockN;
  const int last = (mask.key_end(row_end) + kBlockN - 1) / kBlockN - 1;
  return descending ? last - n_block : n_block - first;
}

}  // namespace fattn::detail::sm80
