#include "support/test_tensors.hpp"

namespace fattn::testing {

AttentionTensors::AttentionTensors(DType dtype, std::int64_t batch, std::int64_t seqlen_q,
                                   std::int64_t seqlen_k, std::int64_t heads_q, std::int64_t heads_kv,
                                   std::int64_t head_dim, std::uint64_t seed, std::int64_t row_padding)
    : q(make_tensor(dtype, {batch, seqlen_q, heads_q, head_dim}, row_padding)),
      k(make_tensor(dtype, {batch, seqlen_k, heads_kv, head_dim}, row_padding)),
      v(make_tensor(dtype, {batch, seqlen_k, heads_kv, head_dim}, row_padding)),
      out(make_tensor(dtype, {batch, seqlen_q, heads_q, head_dim}, row_padding)),
      lse(make_tensor(DType::float32, {batch, heads_q, seqlen_q})) {
  std::mt19937_64 rng(seed);
  fill_random(q, rng);
  fill_random(k, rng);
  fill_random(v, rng);
  poison(out);
  poison(lse);
}

HostTensor poisoned_like(const HostTensor& t, std::int64_t row_padding) {
  const auto& s = t.view.shape;
  HostTensor copy = t.view.rank == 4 ? make_tensor(t.view.dtype, {s[0], s[1], s[2], s[3]}, row_padding)
                                     : make_tensor(t.view.dtype, {s[0], s[1], s[2]});
  poison(copy);
  return copy;
}

}  // namespace fattn::testing
