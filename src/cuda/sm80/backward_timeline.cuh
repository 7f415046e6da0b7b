// A per-phase timeline of the sm80 backward main kernel (backward_kernel.cuh), for benches only.
//
// ncu's per-instruction samples say how many cycles each phase of a query step costs in total,
// not in which order the 8 warps of a CTA pass the phases, nor which warp the two block barriers
// of a step wait for. Built with FATTN_SM80_BWD_TIMELINE (only bench/sm80_bwd_timeline_build.sh
// sets it), lane 0 of every warp of the first `ctas` CTAs stores the SM's %clock at each phase
// boundary of each query step (item) into a device buffer; bench/sm80_bwd_timeline.py turns the
// stamps into a Chrome trace and a summary. Without the macro every FATTN_SM80_BWD_TIMELINE_*
// macro expands to nothing and BackwardParams has no timeline field, so the library's kernels
// compile exactly as before (SASS identical).
//
// The table's kernels at 128 and 256 hold 255 registers, so a recorder must not keep a register
// across the main loop: each mark reads the clock, then recomputes its slot from special
// registers (lane, thread, CTA index: volatile reads that ptxas neither merges nor hoists), the
// loop's item counter (live anyway) and the buffer in the kernel parameters. A clock read is a
// scheduling barrier for ptxas (nothing moves across it), so the instrumented kernel's
// instruction order differs from the plain one's; bench/sm80_bwd_timeline.py times both.
#pragma once

#include <cstdint>

#ifdef FATTN_SM80_BWD_TIMELINE

namespace fattn::detail::sm80::backward_timeline {

// Per item (query step of one query head), in program order of the table's kernels at 128 and
// 256 (phase B before the dQ product); bench/sm80_bwd_timeline.py mirrors this list. The phase
// that a stamp closes is the span since the previous stamp of the same warp.
enum ItemEvent : int {
  kCopiesWaited = 0,         // this item's Q/dO/LSE/D_i copies waited (cp.async.wait_all)
  kTopBarrier = 1,           // the loop-top block barrier passed
  kNextCopiesIssued = 2,     // the next item's copies issued (right after the barrier if none)
  kScoresIssued = 3,         // Sᵀ = K·Qᵀ issued (its HMMAs may still run)
  kProbabilitiesStored = 4,  // Pᵀ = 2^(Sᵀ·c - LSE) computed, packed and stored (packed tiles)
  kDpIssued = 5,             // dPᵀ = V·dOᵀ issued
  kDsStored = 6,             // dSᵀ = Pᵀ∘(dPᵀ - D) computed and stored
  kScoreBarrier = 7,         // the Pᵀ/dSᵀ block barrier passed
  kPhaseBIssued = 8,         // dV += Pᵀ·dO, dK += dSᵀ·Q issued
  kDqProductIssued = 9,      // the dQ partial dS·K issued
  kReductionsIssued = 10,    // the partial's REDGs issued (accepted by the LSU queue)
  kItemEvents = 11,
};

// Per warp, before the items: where and when the warp ran.
enum HeaderSlot : int {
  kSmPlusOne = 0,       // %smid + 1 (0: the warp recorded nothing)
  kStartNs = 1,         // %globaltimer (low 32 bits) at the kernel's start
  kEndNs = 2,           // the same after the epilogue
  kStartClock = 3,      // %clock at the kernel's start
  kKeyTileIssued = 4,   // K and V copies issued
  kLoopEndClock = 5,    // after the last item
  kEndClock = 6,        // after the epilogue (dK, dV stored)
  kItems = 7,           // items walked by the CTA
  kHeaderSlots = 8,
};
// Slots per item: a power of two above kItemEvents, so an item's slots are one shift away.
inline constexpr int kItemStride = 16;
static_assert(kItemStride >= kItemEvents, "every event of an item has a slot");

// Where the stamps go (32-bit words): the track of warp w of CTA c (linear block index) starts
// at (c · warps + w) · (kHeaderSlots + max_items · kItemStride). CTAs from `ctas` on and items
// from `max_items` on record nothing; stamps == nullptr turns recording off.
struct Buffer {
  std::uint32_t* stamps = nullptr;
  int ctas = 0;
  int max_items = 0;
};

// Set by the bench shim before a launch; BackwardParams copies it (its default member
// initializer), so the launch code needs no change.
inline Buffer requested_buffer;

__device__ __forceinline__ std::uint32_t clock32() {
  std::uint32_t t;
  asm volatile("mov.u32 %0, %%clock;\n" : "=r"(t)::"memory");
  return t;
}
__device__ __forceinline__ std::uint32_t global_ns() {
  std::uint32_t t;
  asm volatile("mov.u32 %0, %%globaltimer_lo;\n" : "=r"(t)::"memory");
  return t;
}
__device__ __forceinline__ std::uint32_t special(int which) {
  std::uint32_t v;
  switch (which) {
    case 0: asm volatile("mov.u32 %0, %%laneid;\n" : "=r"(v)); break;
    case 1: asm volatile("mov.u32 %0, %%tid.x;\n" : "=r"(v)); break;
    case 2: asm volatile("mov.u32 %0, %%ntid.x;\n" : "=r"(v)); break;
    case 3: asm volatile("mov.u32 %0, %%ctaid.x;\n" : "=r"(v)); break;
    case 4: asm volatile("mov.u32 %0, %%ctaid.y;\n" : "=r"(v)); break;
    case 5: asm volatile("mov.u32 %0, %%ctaid.z;\n" : "=r"(v)); break;
    case 6: asm volatile("mov.u32 %0, %%nctaid.x;\n" : "=r"(v)); break;
    default: asm volatile("mov.u32 %0, %%nctaid.y;\n" : "=r"(v)); break;
  }
  return v;
}
enum Special : int { kLane, kThread, kThreads, kCtaX, kCtaY, kCtaZ, kCtasX, kCtasY };

// This warp's track, or nullptr where this thread does not record.
__device__ __forceinline__ std::uint32_t* track(const Buffer& buffer) {
  if (buffer.stamps == nullptr || special(kLane) != 0) return nullptr;
  constexpr unsigned kLanes = 32;
  const unsigned cta =
      special(kCtaX) + special(kCtasX) * (special(kCtaY) + special(kCtasY) * special(kCtaZ));
  if (cta >= static_cast<unsigned>(buffer.ctas)) return nullptr;
  const unsigned warps = special(kThreads) / kLanes;
  const unsigned warp = special(kThread) / kLanes;
  const std::size_t track_slots = kHeaderSlots + static_cast<std::size_t>(buffer.max_items) * kItemStride;
  return buffer.stamps + (static_cast<std::size_t>(cta) * warps + warp) * track_slots;
}

__device__ __forceinline__ void mark_item(const Buffer& buffer, int item, ItemEvent event) {
  const std::uint32_t now = clock32();
  if (item >= buffer.max_items) return;
  if (std::uint32_t* slots = track(buffer)) {
    slots[kHeaderSlots + item * kItemStride + event] = now;
  }
}

__device__ __forceinline__ void mark_header(const Buffer& buffer, HeaderSlot slot,
                                            std::uint32_t value) {
  if (std::uint32_t* slots = track(buffer)) slots[slot] = value;
}

__device__ __forceinline__ void mark_start(const Buffer& buffer) {
  const std::uint32_t now = clock32();
  const std::uint32_t ns = global_ns();
  if (std::uint32_t* slots = track(buffer)) {
    std::uint32_t sm;
    asm volatile("mov.u32 %0, %%smid;\n" : "=r"(sm));
    slots[kSmPlusOne] = sm + 1;
    slots[kStartNs] = ns;
    slots[kStartClock] = now;
  }
}

__device__ __forceinline__ void mark_end(const Buffer& buffer) {
  const std::uint32_t now = clock32();
  const std::uint32_t ns = global_ns();
  if (std::uint32_t* slots = track(buffer)) {
    slots[kEndClock] = now;
    slots[kEndNs] = ns;
  }
}

}  // namespace fattn::detail::sm80::backward_timeline

// The BackwardParams member that carries the buffer into the kernel.
#define FATTN_SM80_BWD_TIMELINE_FIELD                   \
  ::fattn::detail::sm80::backward_timeline::Buffer timeline = \
      ::fattn::detail::sm80::backward_timeline::requested_buffer;
// Marks use the kernel's `params` (BackwardParams) for the buffer.
#define FATTN_SM80_BWD_TIMELINE_MARK(item, event)                      \
  ::fattn::detail::sm80::backward_timeline::mark_item(params.timeline, (item), \
                                                     ::fattn::detail::sm80::backward_timeline::event)
#define FATTN_SM80_BWD_TIMELINE_HEADER(slot, value)                                   \
  ::fattn::detail::sm80::backward_timeline::mark_header(                              \
      params.timeline, ::fattn::detail::sm80::backward_timeline::slot, (value))
// A header slot stamped with the clock now.
#define FATTN_SM80_BWD_TIMELINE_HEADER_CLOCK(slot) \
  FATTN_SM80_BWD_TIMELINE_HEADER(slot, ::fattn::detail::sm80::backward_timeline::clock32())
#define FATTN_SM80_BWD_TIMELINE_START() \
  ::fattn::detail::sm80::backward_timeline::mark_start(params.timeline)
#define FATTN_SM80_BWD_TIMELINE_END() \
  ::fattn::detail::sm80::backward_timeline::mark_end(params.timeline)

#else

#define FATTN_SM80_BWD_TIMELINE_FIELD
#define FATTN_SM80_BWD_TIMELINE_MARK(item, event)
#define FATTN_SM80_BWD_TIMELINE_HEADER(slot, value)
#define FATTN_SM80_BWD_TIMELINE_HEADER_CLOCK(slot)
#define FATTN_SM80_BWD_TIMELINE_START()
#define FATTN_SM80_BWD_TIMELINE_END()

#endif
