// The oracle: exact attention in float64, materializing S and P, written for clarity rather
// than speed. It recomputes everything from q, k, v (and dout): the out and lse passed to the
// backward are not trusted, so a wrong forward cannot hide a wrong backward.
#include <cmath>
#include <limits>
#include <vector>

#include "api/backends.hpp"
#include "common/float_convert.hpp"
#include "cpu/tensor_access.hpp"
#include "cpu/threading.hpp"

namespace fattn::detail {
namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

// Attention probabilities of one (batch, head): P (Nq x Nk, row-major) and per-row lse.
// Rows with no visible key get P = 0 and lse = -inf.
template <class Mask>
void reference_probabilities(const AttentionArgs& a, const Mask& mask, std::int64_t b,
                             std::int64_t h, std::vector<double>& p, std::vector<double>& lse) {
  const std::int64_t nq = a.problem.seqlen_q, nk = a.problem.seqlen_k, dim = a.problem.head_dim;
  const std::int64_t h_kv = h / a.group_size();
  p.assign(static_cast<std::size_t>(nq * nk), 0.0);
  lse.assign(static_cast<std::size_t>(nq), kMinusInfinity);
  std::vector<double> q_row(static_cast<std::size_t>(dim));
  for (std::int64_t i = 0; i < nq; ++i) {
    const std::int64_t q_base = row_offset(a.q, b, i, h);
    for (std::int64_t d = 0; d < dim; ++d) q_row[d] = load_as_float(a.q.data, a.q.dtype, q_base + d);
    double row_max = kMinusInfinity;
    double* p_row = &p[static_cast<std::size_t>(i * nk)];
    for (std::int64_t j = 0; j < nk; ++j) {
      if (mask.is_masked(static_cast<int>(i), static_cast<int>(j))) {
        p_row[j] = kMinusInfinity;
        continue;
      }
      const std::int64_t k_base = row_offset(a.k, b, j, h_kv);
      double dot = 0.0;
      for (std::int64_t d = 0; d < dim; ++d) dot += q_row[d] * load_as_float(a.k.data, a.k.dtype, k_base + d);
      p_row[j] = dot * a.scale;
      row_max = std::max(row_max, p_row[j]);
    }
    if (row_max == kMinusInfinity) {
      for (std::int64_t j = 0; j < nk; ++j) p_row[j] = 0.0;
      continue;
    }
    double sum = 0.0;
    for (std::int64_t j = 0; j < nk; ++j) {
      p_row[j] = p_row[j] == kMinusInfinity ? 0.0 : std::exp(p_row[j] - row_max);
      sum += p_row[j];
    }
    for (std::int64_t j = 0; j < nk; ++j) p_row[j] /= sum;
    lse[i] = row_max + std::log(sum);
  }
}

template <class Mask>
void reference_forward_head(const AttentionArgs& a, const Mask& mask, std::int64_t b, std::int64_t h) {
  const std::int64_t nq = a.problem.seqlen_q, nk = a.problem.seqlen_k, dim = a.problem.head_dim;
  const std::int64_t h_kv = h / a.group_size();
  std::vector<double> p, lse;
  reference_probabilities(a, mask, b, h, p, lse);
  float* lse_out = static_cast<float*>(a.lse.data) + lse_offset(a.lse, b, h);
  std::vector<double> acc(static_cast<std::size_t>(dim));
  for (std::int64_t i = 0; i < nq; ++i) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (std::int64_t j = 0; j < nk; ++j) {
      const double pij = p[static_cast<std::size_t>(i * nk + j)];
      if (pij == 0.0) continue;
      const std::int64_t v_base = row_offset(a.v, b, j, h_kv);
      for (std::int64_t d = 0; d < dim; ++d) acc[d] += pij * load_as_float(a.v.data, a.v.dtype, v_base + d);
    }
    const std::int64_t o_base = row_offset(a.out, b, i, h);
    for (std::int64_t d = 0; d < dim; ++d) {
      store_from_float(a.out.data, a.out.dtype, o_base + d, static_cast<float>(acc[d]));
    }
    lse_out[i] = static_cast<float>(lse[i]);
  }
}

// Gradients of one query head, accumulated into the float64 dk/dv of its kv head.
template <class Mask>
void reference_backward_head(const AttentionArgs& a, const Mask& mask, std::int64_t b, std::int64_t h,
                             std::vector<double>& dk_acc, std::vector<double>& dv_acc) {
  const std::int64_t nq = a.problem.seqlen_q, nk = a.problem.seqlen_k, dim = a.problem.head_dim;
  const std::int64_t h_kv = h / a.group_size();
  std::vector<double> p, lse;
  reference_probabilities(a, mask, b, h, p, lse);
  std::vector<double> dout_row(static_cast<std::size_t>(dim)), dp(static_cast<std::size_t>(nk));
  std::vector<double> dq_row(static_cast<std::size_t>(dim));
  for (std::int64_t i = 0; i < nq; ++i) {
    const std::int64_t do_base = row_offset(a.dout, b, i, h);
    for (std::int64_t d = 0; d < dim; ++d) dout_row[d] = load_as_float(a.dout.data, a.dout.dtype, do_base + d);
    const double* p_row = &p[static_cast<std::size_t>(i * nk)];
    // dP = dO · Vᵀ and D_i = Σ_j P_ij dP_ij (= rowsum(dO ∘ O) with the exact O).
    double row_dot = 0.0;
    for (std::int64_t j = 0; j < nk; ++j) {
      const std::int64_t v_base = row_offset(a.v, b, j, h_kv);
      double dot = 0.0;
      for (std::int64_t d = 0; d < dim; ++d) dot += dout_row[d] * load_as_float(a.v.data, a.v.dtype, v_base + d);
      dp[j] = dot;
      row_dot += p_row[j] * dot;
    }
    std::fill(dq_row.begin(), dq_row.end(), 0.0);
    for (std::int64_t j = 0; j < nk; ++j) {
      if (p_row[j] == 0.0) continue;
      const double ds = p_row[j] * (dp[j] - row_dot) * a.scale;
      const std::int64_t k_base = row_offset(a.k, b, j, h_kv);
      const std::int64_t q_base = row_offset(a.q, b, i, h);
      double* dk_row = &dk_acc[static_cast<std::size_t>(j * dim)];
      double* dv_row = &dv_acc[static_cast<std::size_t>(j * dim)];
      for (std::int64_t d = 0; d < dim; ++d) {
        dq_row[d] += ds * load_as_float(a.k.data, a.k.dtype, k_base + d);
        dk_row[d] += ds * load_as_float(a.q.data, a.q.dtype, q_base + d);
        dv_row[d] += p_row[j] * dout_row[d];
      }
    }
    const std::int64_t dq_base = row_offset(a.dq, b, i, h);
    for (std::int64_t d = 0; d < dim; ++d) {
      store_from_float(a.dq.data, a.dq.dtype, dq_base + d, static_cast<float>(dq_row[d]));
    }
  }
}

}  // namespace

Status cpu_reference_forward(const AttentionArgs& args) {
  const std::int64_t batch = args.problem.batch, heads = args.problem.heads_q;
  with_mask(args, [&](const auto& mask) {
#pragma omp parallel for collapse(2) schedule(dynamic) num_threads(resolve_threads(args.context))
    for (std::int64_t b = 0; b < batch; ++b) {
      for (std::int64_t h = 0; h < heads; ++h) reference_forward_head(args, mask, b, h);
    }
  });
  return Status::Ok();
}

Status cpu_reference_backward(const AttentionArgs& args) {
  const std::int64_t batch = args.problem.batch, heads_kv = args.problem.heads_kv;
  const std::int64_t nk = args.problem.seqlen_k, dim = args.problem.head_dim;
  const int group = args.group_size();
  with_mask(args, [&](const auto& mask) {
    // One task per kv head: it owns dk/dv of that head and the dq rows of its query heads.
#pragma omp parallel for collapse(2) schedule(dynamic) num_threads(resolve_threads(args.context))
    for (std::int64_t b = 0; b < batch; ++b) {
      for (std::int64_t h_kv = 0; h_kv < heads_kv; ++h_kv) {
        std::vector<double> dk_acc(static_cast<std::size_t>(nk * dim), 0.0);
        std::vector<double> dv_acc(static_cast<std::size_t>(nk * dim), 0.0);
        for (int g = 0; g < group; ++g) reference_backward_head(args, mask, b, h_kv * group + g, dk_acc, dv_acc);
        for (std::int64_t j = 0; j < nk; ++j) {
          const std::int64_t dk_base = row_offset(args.dk, b, j, h_kv);
          const std::int64_t dv_base = row_offset(args.dv, b, j, h_kv);
          for (std::int64_t d = 0; d < dim; ++d) {
            store_from_float(args.dk.data, args.dk.dtype, dk_base + d, static_cast<float>(dk_acc[j * dim + d]));
            store_from_float(args.dv.data, args.dv.dtype, dv_base + d, static_cast<float>(dv_acc[j * dim + d]));
          }
        }
      }
    }
  });
  return Status::Ok();
}

}  // namespace fattn::detail
