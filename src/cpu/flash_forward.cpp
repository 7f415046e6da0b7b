// cpu_flash forward: FlashAttention-2 on the CPU.
//
// Work is split into tasks of one (batch, query head, block of kQueryBlock query rows). A task
// keeps its Q block, running row max m and row sum l, and an unnormalized output accumulator in
// thread-private tiles, streams the key/value tiles its mask lets it see (S = Q·Kᵀ, online
// softmax, O += P·V), and divides by l once at the end. The N×N score matrix never exists:
// extra memory is the per-thread tiles plus K and V of the heads in flight, packed to float32
// once (transposed Kᵀ tiles for S = Q·Kᵀ) and shared by every query block that reads them.
//
// Heads are processed in chunks just large enough to keep every thread busy, so the packed
// K/V of a chunk stay small (4 MiB per kv head at N = 4096, D = 128) and warm in cache.
#include <algorithm>
#include <cmath>
#include <limits>

#include "api/backends.hpp"
#include "cpu/packing.hpp"
#include "cpu/phase_trace.hpp"
#include "cpu/threading.hpp"
#include "cpu/workspace.hpp"

namespace fattn::detail {
namespace {

constexpr float kLn2 = 0.6931471805599453f;
constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();
// Query blocks per thread a chunk of heads should provide. Dynamic scheduling evens out causal
// blocks of unequal length, but each chunk ends in a barrier where threads idle for up to one
// block: 32 blocks per thread bounds that loss to ~3% while a chunk's packed K/V stays small.
constexpr std::int64_t kTasksPerThread = 32;

struct ForwardShape : TileShape {
  explicit ForwardShape(const AttentionArgs& a)
      : TileShape(a, kQueryBlock) {}

  // Packed Kᵀ tiles and V rows of one kv head.
  std::int64_t key_floats() const { return std::int64_t{key_tiles} * dim * kKeyTile; }
  std::int64_t value_floats() const { return std::int64_t{key_tiles} * kKeyTile * padded; }
};

// Thread-private tiles of one query block.
struct ForwardTiles {
  float* q;        // kQueryBlock × padded
  float* scores;   // kQueryBlock × kKeyTile
  float* out;      // kQueryBlock × padded, unnormalized
  float* row_max;  // log2 domain
  float* row_sum;
  float* scratch;  // padded (one row being transposed)

  static std::int64_t floats(int padded) {
    return 2 * std::int64_t{kQueryBlock} * padded + kQueryBlock * kKeyTile + 2 * kQueryBlock + padded;
  }
  ForwardTiles(float* base, int padded)
      : q(base),
        scores(q + kQueryBlock * padded),
        out(scores + kQueryBlock * kKeyTile),
        row_max(out + kQueryBlock * padded),
        row_sum(row_max + kQueryBlock),
        scratch(row_sum + kQueryBlock) {}
};

void pack_key_value_tile(const AttentionArgs& a, const ForwardShape& shape, std::int64_t b,
                         std::int64_t h_kv, int tile, float* keys_t, float* values, float* scratch) {
  const std::int64_t key0 = std::int64_t{tile} * kKeyTile;
  const int count = static_cast<int>(std::min<std::int64_t>(kKeyTile, shape.seqlen_k - key0));
  load_tile_transposed(a.k, b, h_kv, key0, count, shape.dim, keys_t + tile * shape.dim * kKeyTile, scratch);
  float* value_rows = values + key0 * shape.padded;
  load_rows(a.v, b, h_kv, key0, count, shape.dim, value_rows, shape.padded);
  std::fill(value_rows + std::int64_t{count} * shape.padded,
            value_rows + std::int64_t{kKeyTile} * shape.padded, 0.0f);
}

template <class Mask>
void forward_query_block(const AttentionArgs& a, const Mask& mask, const ForwardShape& shape,
                         std::int64_t b, std::int64_t h, int block, const float* keys_t,
                         const float* values, ForwardTiles& t) {
  const int row0 = block * kQueryBlock;
  const int rows = static_cast<int>(std::min<std::int64_t>(kQueryBlock, shape.seqlen_q - row0));
  const int padded = shape.padded;
  load_rows(a.q, b, h, row0, rows, shape.dim, t.q, padded);
  std::fill(t.out, t.out + std::int64_t{rows} * padded, 0.0f);
  std::fill(t.row_max, t.row_max + rows, kMinusInfinity);
  std::fill(t.row_sum, t.row_sum + rows, 0.0f);

  int visible_begin[kQueryBlock], visible_end[kQueryBlock];
  const int key_begin = mask.key_begin(row0), key_end = mask.key_end(row0 + rows);
  for (int key0 = key_begin / kKeyTile * kKeyTile; key0 < key_end; key0 += kKeyTile) {
    const int tile = key0 / kKeyTile;
    const int cols = static_cast<int>(std::min<std::int64_t>(kKeyTile, shape.seqlen_k - key0));
    simd::GemmOperands s;  // S = Q · Kᵀ
    s.m = rows, s.n = kKeyTile, s.k = shape.dim;
    s.a = t.q, s.a_row_stride = padded, s.a_k_stride = 1;
    s.b = keys_t + std::int64_t{tile} * shape.dim * kKeyTile, s.ldb = kKeyTile;
    s.c = t.scores, s.ldc = kKeyTile, s.accumulate = false;
    simd::gemm(s);

    visible_columns(mask, row0, rows, key0, cols, visible_begin, visible_end);
    simd::ScoreTile tile_view{t.scores, kKeyTile, rows, kKeyTile, visible_begin, visible_end,
                              shape.scale_log2};
    simd::online_softmax_step(tile_view, t.row_max, t.row_sum, t.out, padded, padded);

    simd::GemmOperands pv;  // O += P · V
    pv.m = rows, pv.n = padded, pv.k = cols;
    pv.a = t.scores, pv.a_row_stride = kKeyTile, pv.a_k_stride = 1;
    pv.b = values + std::int64_t{key0} * padded, pv.ldb = padded;
    pv.c = t.out, pv.ldc = padded, pv.accumulate = true;
    simd::gemm(pv);
  }

  float* lse = static_cast<float*>(a.lse.data) + lse_offset(a.lse, b, h) + row0;
  for (int r = 0; r < rows; ++r) {
    const float sum = t.row_sum[r];
    // A row that saw no key: out = 0, lse = -inf (sum = 0 only then: the max term is 1).
    const float inverse = sum > 0.0f ? 1.0f / sum : 0.0f;
    store_row(t.out + std::int64_t{r} * padded, inverse, shape.dim, a.out, b, row0 + r, h);
    lse[r] = sum > 0.0f ? (t.row_max[r] + std::log2(sum)) * kLn2 : kMinusInfinity;
  }
}

}  // namespace

Status cpu_flash_forward(const AttentionArgs& args) {
  const ForwardShape shape(args);
  const int threads = resolve_threads(args.context);
  const std::int64_t batch = args.problem.batch, heads_kv = args.problem.heads_kv;
  const std::int64_t pairs = batch * heads_kv;  // (batch, kv head)
  const std::int64_t blocks_per_pair = std::int64_t{shape.group} * shape.query_blocks;
  const std::int64_t pairs_per_chunk = std::clamp<std::int64_t>(
      ceil_div(kTasksPerThread * threads, std::max<std::int64_t>(blocks_per_pair, 1)), 1, pairs);

  WorkspaceMeter meter;
  const std::int64_t packed_floats = pairs_per_chunk * (shape.key_floats() + shape.value_floats());
  FloatBuffer packed(packed_floats, meter);
  if (!packed.ok(packed_floats)) return allocation_failure("cpu_flash", "packed keys and values", packed_floats);
  const std::int64_t tile_floats = ForwardTiles::floats(shape.padded);
  FloatBuffer tiles(tile_floats * threads, meter);
  if (!tiles.ok(tile_floats * threads)) return allocation_failure("cpu_flash", "per-thread tiles", tile_floats * threads);
  float* const keys_t = packed.data();
  float* const values = keys_t + pairs_per_chunk * shape.key_floats();

  with_mask(args, [&](const auto& mask) {
    for (std::int64_t chunk0 = 0; chunk0 < pairs; chunk0 += pairs_per_chunk) {
      const std::int64_t chunk_pairs = std::min(pairs_per_chunk, pairs - chunk0);
#pragma omp parallel num_threads(threads)
      {
        ForwardTiles t(tiles.data() + tile_floats * omp_get_thread_num(), shape.padded);
#pragma omp for schedule(static)
        for (std::int64_t item = 0; item < chunk_pairs * shape.key_tiles; ++item) {
          const PhaseScope phase("pack K, V tile");
          const std::int64_t local = item / shape.key_tiles, pair = chunk0 + local;
          pack_key_value_tile(args, shape, pair / heads_kv, pair % heads_kv,
                              static_cast<int>(item % shape.key_tiles),
                              keys_t + local * shape.key_floats(), values + local * shape.value_floats(),
                              t.scratch);
        }
        // Last query blocks first: under a causal mask they see the most keys, so handing them
        // out early leaves the short ones to fill the gaps at the end.
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t task = 0; task < chunk_pairs * blocks_per_pair; ++task) {
          const PhaseScope phase("query block");
          const std::int64_t heads_in_chunk = chunk_pairs * shape.group;
          const int block = shape.query_blocks - 1 - static_cast<int>(task / heads_in_chunk);
          const std::int64_t head_in_chunk = task % heads_in_chunk;
          const std::int64_t local = head_in_chunk / shape.group, pair = chunk0 + local;
          const std::int64_t b = pair / heads_kv, h_kv = pair % heads_kv;
          forward_query_block(args, mask, shape, b, h_kv * shape.group + head_in_chunk % shape.group,
                              block, keys_t + local * shape.key_floats(),
                              values + local * shape.value_floats(), t);
        }
      }
    }
  });

  if (args.context.stats) {
    args.context.stats->workspace_bytes = meter.peak();
    args.context.stats->kernel_launches = 1;
  }
  return Status::Ok();
}

}  // namespace fattn::detail
