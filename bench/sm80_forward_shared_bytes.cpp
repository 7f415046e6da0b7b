// Prints every sm80 forward tile configuration's shared memory per block (kSharedBytes) and
// shape, per head-dim bucket, against the 99 KB of sm_86 / sm_89 (host only):
//   g++ -std=c++20 -Isrc -Iinclude bench/sm80_forward_shared_bytes.cpp -o /tmp/fwd_bytes
//   /tmp/fwd_bytes
#include <cstdio>

#include "cuda/sm80/tile_config.hpp"

namespace sm80 = fattn::detail::sm80;

namespace {

constexpr int kConsumerAmpere = 101376;  // kConsumerAmpereSharedBytesPerBlock

template <class Config>
void print(const char* name, int bucket) {
  std::printf("%4d  %-44s %3d x %3d keys  %d warps x %d row tiles  %7d B%s\n", bucket, name,
              Config::kBlockM, Config::kBlockN, Config::kWarps, Config::kRowTiles,
              Config::kSharedBytes, Config::kSharedBytes > kConsumerAmpere ? "  > 99 KB" : "");
}

template <int kBucket, int kSteps>
void print_wide() {
  char name[64];
  std::snprintf(name, sizeof name, "WideWindowForwardConfig<%d, %d>", kBucket, kSteps);
  print<sm80::WideWindowForwardConfig<kBucket, kSteps>>(name, kBucket);
  if constexpr (kSteps < kBucket / sm80::kMmaK) print_wide<kBucket, kSteps + 1>();
}

template <int kBucket>
void print_bucket() {
  print<sm80::ForwardConfig<kBucket>>("ForwardConfig", kBucket);
  print<sm80::UnmaskedForwardConfig<kBucket>>("UnmaskedForwardConfig", kBucket);
  print<sm80::StagedForwardConfig<kBucket>>("StagedForwardConfig", kBucket);
  print<sm80::LargeSharedMemoryStagedForwardConfig<kBucket>>("LargeSharedMemoryStagedForwardConfig",
                                                             kBucket);
  print<sm80::NarrowForwardConfig<kBucket>>("NarrowForwardConfig", kBucket);
  print<sm80::LargeSharedMemoryNarrowForwardConfig<kBucket>>("LargeSharedMemoryNarrowForwardConfig",
                                                             kBucket);
  print<sm80::UnmaskedNarrowForwardConfig<kBucket>>("UnmaskedNarrowForwardConfig", kBucket);
  print<sm80::HalvedUnmaskedNarrowForwardConfig<kBucket>>("HalvedUnmaskedNarrowForwardConfig",
                                                          kBucket);
  if constexpr (kBucket > 64) {
    using NarrowClasses = typename sm80::NarrowForwardConfig<kBucket>::NarrowStepClassList;
    constexpr int kFirstWide = sm80::largest_step_class(NarrowClasses{}) + 1;
    print_wide<kBucket, kFirstWide>();
  }
  // The roles on a device with 99 KB per block (launch_forward: where some table tile does not
  // fit); NoStagedTile prints 0: 2-byte rows on the table kernels' general copy.
  using Small = sm80::SmallSharedMemoryForwardTiles<kBucket>;
  std::printf("%4d  small roles: table %d, unmasked %d, staged %d, narrow %d, unmasked narrow %d, "
              "halved %d; smallest_forward_shared_bytes %d\n",
              kBucket, Small::Table::kSharedBytes, Small::Unmasked::kSharedBytes,
              Small::Staged::kSharedBytes, Small::Narrow::kSharedBytes,
              Small::UnmaskedNarrow::kSharedBytes, Small::UnmaskedHalved::kSharedBytes,
              sm80::smallest_forward_shared_bytes(kBucket));
}

}  // namespace

int main() {
  print_bucket<64>();
  print_bucket<128>();
  print_bucket<192>();
  print_bucket<256>();
}
