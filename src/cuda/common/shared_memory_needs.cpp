#include "cuda/common/shared_memory_needs.hpp"

#include "cuda/common/instances.hpp"
#include "cuda/simt/tile_config.hpp"
#include "cuda/sm80/backward_small_tile_config.hpp"
#include "cuda/sm80/tile_config.hpp"

namespace fattn::detail {
namespace {

// cuda_sm90's tiles (TMA rings, wgmma operands and the output stage) are sized for Hopper's
// opt-in limit; no smaller table exists, since every sm_90 device has it.
constexpr int kSm90TilesSharedBytes = kHopperSharedBytesPerBlock;

// The least shared memory per block that `family`'s smallest tiles of `bucket` need in
// `direction` (tile_config.hpp of each family).
int smallest_shared_bytes(KernelFamily family, Direction direction, int bucket) {
  switch (family) {
    case KernelFamily::sm80:
      return direction == Direction::forward ? sm80::smallest_forward_shared_bytes(bucket)
                                             : sm80::smallest_backward_shared_bytes(bucket);
    case KernelFamily::simt:
      return simt::smallest_shared_bytes(direction, bucket);
    case KernelFamily::sm90:
      return kSm90TilesSharedBytes;
  }
  return 0;
}

}  // namespace

std::optional<std::string> why_shared_memory_is_short(Backend backend, const Problem& problem,
                                                      const DeviceInfo& device) {
  const std::optional<KernelFamily> family = family_of(backend);
  if (!family) return std::nullopt;
  const KernelInstance* instance =
      find_instance(*family, problem.direction, problem.head_dim, problem.dtype);
  if (instance == nullptr) return std::nullopt;
  const int needed =
      smallest_shared_bytes(*family, problem.direction, instance->head_dim_bucket);
  if (needed <= device.shared_bytes_per_block) return std::nullopt;
  return std::string(to_string(backend)) + "'s smallest " +
         (problem.direction == Direction::forward ? "forward" : "backward") +
         " tiles for head_dim " + std::to_string(problem.head_dim) + " need " +
         std::to_string(needed) + " bytes of shared memory per block, but device " +
         std::to_string(problem.device.index) + " (" + device.name + ") allows " +
         std::to_string(device.shared_bytes_per_block);
}

}  // namespace fattn::detail
