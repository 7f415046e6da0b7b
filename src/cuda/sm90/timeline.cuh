// A per-phase timeline of the Hopper forward kernel (forward_kernel.cuh), for benches only.
//
// ncu gives stall totals per instruction, not the order in which a CTA's warpgroups pass their
// phases, which is what a tile-boundary cost is made of. Built with FATTN_SM90_TIMELINE (only
// bench/sm90_timeline_build.sh sets it), one thread of each warpgroup — the producer's issuing
// thread, thread 0 of each consumer — stores a (clock, event, argument) record at each phase
// boundary into a device buffer; bench/sm90_timeline.py turns the records into a Chrome trace
// and a summary. Without the macro every FATTN_TIMELINE_* macro expands to nothing and
// ForwardParams has no timeline field, so the library's kernels compile exactly as before.
//
// Stamps are the SM's clock (%clock): the warpgroups of one CTA share it, so phases of the producer
// and the consumers compare cycle for cycle. Each track also records %globaltimer (ns) at its
// start and end, which places CTAs of different SMs on one axis and gives the clock rate.
#pragma once

#include <cstdint>

#ifdef FATTN_SM90_TIMELINE

namespace fattn::detail::sm90::timeline {

// Event codes; bench/sm90_timeline.py mirrors this list. A record's argument is the key step
// within the tile (0 = the first key tile walked; num_tiles = the tile's last P·V alone) unless
// the comment says otherwise.
enum Event : std::uint32_t {
  kTrackStart = 1,  // argument: %globaltimer low 32 bits
  kSmId = 2,        // argument: %smid
  kTrackEnd = 3,    // argument: %globaltimer low 32 bits
  // consumers
  kTileStart = 10,       // argument: the scheduler's tile index
  kQReady = 11,          // q_full waited
  kLoadsReady = 12,      // this step's K (and the previous step's V) waited
  kTurnTaken = 13,       // ping-pong turn taken
  kGemmsIssued = 14,     // Q·Kᵀ (and the previous P·V) issued, turn passed
  kScoresWaited = 15,    // Q·Kᵀ done
  kSoftmaxDone = 16,     // mask and online softmax done
  kPvWaited = 17,        // the previous step's P·V done
  kStepEnd = 18,         // rescale and P conversion done
  kEpilogueDone = 19,    // O and LSE written (TMA stores issued)
  // Kernels without the pinned P·V wait (TileShape::pin_pv_wait_unmasked): a stamp between the
  // softmax and that wait would pin it there (ptxas moves neither across a clock read) and change
  // the schedule, so one stamp after both stands for the two.
  kSoftmaxAndPvWaited = 20,
  // Inside the TMA-store epilogue (before kEpilogueDone): LSE written; the O buffer free (the
  // previous store read it, warpgroup barrier); O staged and fenced for TMA; the warpgroup
  // barrier after staging; the TMA store issued.
  kLseStored = 21,
  kOutputBufferFree = 22,
  kOutputStaged = 23,
  kOutputStagedBarrier = 24,
  kStoreIssued = 25,
  // producer
  kProducerTileStart = 30,  // argument: the scheduler's tile index
  kQEmptyWaited = 31,
  kQIssued = 32,
  kKEmptyWaited = 33,
  kKIssued = 34,
  kVEmptyWaited = 35,
  kVIssued = 36,
};

// Tracks per CTA in the buffer: the producer (0) and up to three consumers.
inline constexpr int kTracksPerCta = 4;
// Records per track, a power of two so that the end of a track is one mask test: a consumer of
// the benched problems writes ~45 records per tile and ~24 tiles (D = 64 N = 1k causal).
inline constexpr int kTrackCapacity = 4096;
static_assert((kTrackCapacity & (kTrackCapacity - 1)) == 0, "one mask test finds a track's end");

// 16 bytes, one vector store. The 32-bit clock wraps in about two seconds, far longer than a
// kernel; the reader unwraps it.
struct Record {
  std::uint32_t clock;
  std::uint32_t event;
  std::uint32_t argument;
  std::uint32_t unused;
};

// Where the records go: track t of CTA c owns records [(c · kTracksPerCta + t) · kTrackCapacity,
// + kTrackCapacity). CTAs from `ctas` on record nothing; a full track stops recording.
struct Buffer {
  Record* records = nullptr;
  int ctas = 0;
};

// Set by the bench shim before a launch; ForwardParams copies it (its default member
// initializer), so that the launch code needs no change.
inline Buffer requested_buffer;

// One register per thread: the index of the next record, or -1 where the thread does not record
// (the D = 64 consumers have 160 registers and spilled with a pointer, a count and a 64-bit
// clock held instead). The buffer is read from the kernel parameters at each mark.
struct Recorder {
  int next = -1;

  static __device__ __forceinline__ std::uint32_t clock() {
    std::uint32_t t;
    asm volatile("mov.u32 %0, %%clock;\n" : "=r"(t)::"memory");
    return t;
  }
  static __device__ __forceinline__ std::uint32_t global_ns() {
    std::uint32_t t;
    asm volatile("mov.u32 %0, %%globaltimer_lo;\n" : "=r"(t)::"memory");
    return t;
  }

  __device__ __forceinline__ Recorder(const Buffer& buffer, int track_index, bool recording) {
    if (recording && static_cast<int>(blockIdx.x) < buffer.ctas && buffer.records != nullptr) {
      next = (static_cast<int>(blockIdx.x) * kTracksPerCta + track_index) * kTrackCapacity;
      std::uint32_t sm;
      asm volatile("mov.u32 %0, %%smid;\n" : "=r"(sm));
      mark(buffer, kTrackStart, global_ns());
      mark(buffer, kSmId, sm);
    }
  }

  __device__ __forceinline__ void mark(const Buffer& buffer, Event event, std::uint32_t argument) {
    if (next >= 0) {
      *reinterpret_cast<uint4*>(buffer.records + next) =
          make_uint4(clock(), event, argument, 0u);
      ++next;
      if ((next & (kTrackCapacity - 1)) == 0) next = -1;
    }
  }
};

}  // namespace fattn::detail::sm90::timeline

// The ForwardParams member that carries the buffer into the kernel.
#define FATTN_TIMELINE_PARAMS_FIELD \
  ::fattn::detail::sm90::timeline::Buffer timeline = ::fattn::detail::sm90::timeline::requested_buffer;
// Declares this thread's recorder for track `track_index`; `recording`: this thread records.
#define FATTN_TIMELINE_TRACK(params, track_index, recording) \
  ::fattn::detail::sm90::timeline::Recorder timeline_recorder((params).timeline, (track_index), (recording))
// Marks use the kernel's `params` (ForwardParams) for the buffer.
#define FATTN_TIMELINE_MARK(event, argument) \
  timeline_recorder.mark(params.timeline, ::fattn::detail::sm90::timeline::event, \
                         static_cast<std::uint32_t>(argument))
#define FATTN_TIMELINE_END() \
  timeline_recorder.mark(params.timeline, ::fattn::detail::sm90::timeline::kTrackEnd, \
                         ::fattn::detail::sm90::timeline::Recorder::global_ns())
// A mark only where the compile-time `condition` holds, else `otherwise` (an event name too).
#define FATTN_TIMELINE_MARK_EITHER(condition, event, otherwise, argument)                        \
  timeline_recorder.mark(params.timeline,                                                        \
                         (condition) ? ::fattn::detail::sm90::timeline::event                    \
                                     : ::fattn::detail::sm90::timeline::otherwise,               \
                         static_cast<std::uint32_t>(argument))
#define FATTN_TIMELINE_MARK_IF(condition, event, argument) \
  if constexpr (condition) FATTN_TIMELINE_MARK(event, argument)

#else

#define FATTN_TIMELINE_PARAMS_FIELD
#define FATTN_TIMELINE_TRACK(params, track_index, recording)
#define FATTN_TIMELINE_MARK(event, argument)
#define FATTN_TIMELINE_END()
#define FATTN_TIMELINE_MARK_EITHER(condition, event, otherwise, argument)
#define FATTN_TIMELINE_MARK_IF(condition, event, argument)

#endif
