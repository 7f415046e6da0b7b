// Shared memory filled with NaN before a kernel runs, to show that the kernel reads no shared
// memory it did not write (test_sm90_unaligned.cpp: the columns past a tail box's width).
#pragma once

namespace fattn::testing {

// Fills the largest dynamic shared memory a block may have with kNaNByte on every SM of the
// current device (one block per SM), then checks with a second launch that the bytes are still
// there. True where they were: the next launch on the stream starts on a NaN-filled shared
// memory (CUDA does not clear it between the launches of one context, but does not promise to
// keep it either). False, with nothing to test, where they were not or a launch failed.
bool poison_shared_memory();

}  // namespace fattn::testing
