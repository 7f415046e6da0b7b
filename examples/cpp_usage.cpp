// The C++ usage example of the README, built and run by the tests so it cannot rot.
// Forward and backward attention on host buffers, letting the selector pick the backend.
#include <cmath>
#include <cstdio>
#include <vector>

#include "fattn/fattn.hpp"

int main() {
  constexpr std::int64_t batch = 2, seqlen = 128, heads = 8, heads_kv = 2, head_dim = 64;
  std::vector<float> q(batch * seqlen * heads * head_dim), k(batch * seqlen * heads_kv * head_dim);
  std::vector<float> v(k.size()), out(q.size()), lse(batch * heads * seqlen);
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = std::sin(0.37f * static_cast<float>(i));
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = std::cos(0.11f * static_cast<float>(i));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.05f * static_cast<float>(i));

  // Views in flash_attn's layout (batch, seqlen, heads, head_dim); lse is (batch, heads, seqlen).
  using fattn::DType, fattn::Device, fattn::TensorView;
  const Device cpu = Device::cpu();
  const TensorView q_view = TensorView::contiguous(q.data(), DType::float32, cpu, {batch, seqlen, heads, head_dim});
  const TensorView k_view = TensorView::contiguous(k.data(), DType::float32, cpu, {batch, seqlen, heads_kv, head_dim});
  const TensorView v_view = TensorView::contiguous(v.data(), DType::float32, cpu, {batch, seqlen, heads_kv, head_dim});
  const TensorView out_view = TensorView::contiguous(out.data(), DType::float32, cpu, {batch, seqlen, heads, head_dim});
  const TensorView lse_view = TensorView::contiguous(lse.data(), DType::float32, cpu, {batch, heads, seqlen});

  fattn::Options options;
  options.causal = true;  // GQA: 8 query heads share 2 key/value heads

  // Which backend would run this? The same selector forward() uses.
  const fattn::Selection selection =
      fattn::supports(fattn::Problem::describe(q_view, k_view, options, fattn::Direction::forward));
  if (!selection.ok()) {
    std::fprintf(stderr, "no backend: %s\n", selection.reason.c_str());
    return 1;
  }
  std::printf("backend: %s\n", fattn::to_string(*selection.backend));

  fattn::RunStats stats;
  fattn::ExecutionContext context;
  context.stats = &stats;
  if (fattn::Status s = fattn::forward(q_view, k_view, v_view, out_view, lse_view, options, context); !s.ok()) {
    std::fprintf(stderr, "forward failed (%s): %s\n", fattn::to_string(s.code()), s.message().c_str());
    return 1;
  }
  std::printf("forward ran on %s with %zu bytes of workspace; out[0] = %f, lse[0] = %f\n",
              fattn::to_string(stats.backend), stats.workspace_bytes, out[0], lse[0]);

  // Gradients: dq like q, dk/dv like k/v (summed over the query heads of each group).
  std::vector<float> dout(q.size(), 1.0f), dq(q.size()), dk(k.size()), dv(v.size());
  const TensorView dout_view = TensorView::contiguous(dout.data(), DType::float32, cpu, {batch, seqlen, heads, head_dim});
  const TensorView dq_view = TensorView::contiguous(dq.data(), DType::float32, cpu, {batch, seqlen, heads, head_dim});
  const TensorView dk_view = TensorView::contiguous(dk.data(), DType::float32, cpu, {batch, seqlen, heads_kv, head_dim});
  const TensorView dv_view = TensorView::contiguous(dv.data(), DType::float32, cpu, {batch, seqlen, heads_kv, head_dim});
  const fattn::Status s = fattn::backward(q_view, k_view, v_view, out_view, dout_view, lse_view, dq_view, dk_view,
                                          dv_view, options);
  if (!s.ok()) {
    std::fprintf(stderr, "backward failed: %s\n", s.message().c_str());
    return 1;
  }
  std::printf("backward: dv[0] = %f\n", dv[0]);

  // A bad call is refused before anything runs, with a message naming the argument.
  const TensorView wrong = TensorView::contiguous(out.data(), DType::float32, cpu, {batch, seqlen, heads + 1, head_dim});
  const fattn::Status refused = fattn::forward(q_view, k_view, v_view, wrong, lse_view, options);
  std::printf("a wrong out shape: %s\n", refused.message().c_str());
  return refused.ok() ? 1 : 0;
}
