// How many bytes attention moves through main memory, by algorithm: the minimum (every input
// read once, every output written once) and what each implementation's tiling implies. A model,
// written down so that it can be checked: the standard path writes and re-reads the N×N scores
// and probabilities; flash re-reads K and V once per query tile (and, in the backward, Q and dO
// once per key tile) and never stores a score. Flash's re-reads are tile traffic, not main-memory
// traffic: the query tiles that share a K/V head run at about the same time, so most re-reads
// hit L2 (one head's K and V are far smaller than it), and its DRAM traffic is close to the
// compulsory bytes. The standard path's N×N matrices are larger than any cache, so they count
// as DRAM traffic.
#pragma once

#include <string>

#include "cli_problem.hpp"

namespace fattn::cli {

// Tile sizes the model assumes for a flash backend (overridable on the command line): the
// query rows that share one pass over K/V, and the keys that share one pass over Q/dO.
struct FlashTiles {
  std::int64_t query_rows = 0;
  std::int64_t key_columns = 0;
};
// The backends' own tiles for head_dim <= 128: cpu_flash kQueryBlock × kKeyTile (64 × 64,
// src/cpu/packing.hpp); cuda_simt 64 × 64; cuda_sm80 kBlockM × kBlockN = 128 × 64; cuda_sm90
// 128 × 128 (src/cuda/*/tile_config.hpp).
FlashTiles default_flash_tiles(Backend backend);

bool materializes_scores(Backend backend);  // cpu_reference, cpu_standard, cuda_standard

struct Traffic {
  double minimal_bytes = 0;  // compulsory: inputs once, outputs once
  double moved_bytes = 0;    // what the algorithm's tiling implies, L2 and DRAM together
  double dram_bytes = 0;     // what the model charges to main memory: the roofline's x axis
  std::string model;         // one line saying what was counted
};

Traffic attention_traffic(const ProblemSpec& spec, Backend backend, const FlashTiles& tiles);

}  // namespace fattn::cli
