"""The float64 oracle the Python tests compare against, written in numpy.

Independent of the C++ reference on purpose: a shared misunderstanding of the semantics
(bottom-right masks, GQA head mapping, fully masked rows) would otherwise pass unnoticed.
"""

from __future__ import annotations

import numpy as np


def visible_keys(seqlen_q: int, seqlen_k: int, causal: bool, window=(-1, -1)) -> np.ndarray:
    """(seqlen_q, seqlen_k) booleans: row i sees column j (flash_attn >= 2.1 alignment)."""
    left, right = window
    if causal:
        right = 0
    i = np.arange(seqlen_q)[:, None]
    j = np.arange(seqlen_k)[None, :]
    shift = seqlen_k - seqlen_q
    visible = np.ones((seqlen_q, seqlen_k), dtype=bool)
    if right >= 0:
        visible &= j <= i + shift + right
    if left >= 0:
        visible &= j >= i + shift - left
    return visible


def _expand_kv(x: np.ndarray, group: int) -> np.ndarray:
    # Query head h reads kv head h // group.
    return np.repeat(x.astype(np.float64), group, axis=2)


def _probabilities(q, k, scale, causal, window):
    group = q.shape[2] // k.shape[2]
    scores = np.einsum("bqhd,bkhd->bhqk", q.astype(np.float64), _expand_kv(k, group)) * scale
    visible = visible_keys(q.shape[1], k.shape[1], causal, window)
    scores = np.where(visible, scores, -np.inf)
    row_max = scores.max(axis=-1, keepdims=True, initial=-np.inf)
    safe_max = np.where(np.isfinite(row_max), row_max, 0.0)
    weights = np.exp(scores - safe_max)
    row_sum = weights.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        probs = np.where(row_sum > 0, weights / row_sum, 0.0)
        lse = np.where(row_sum > 0, np.log(row_sum) + safe_max, -np.inf)[..., 0]
    return probs, lse


def default_scale(head_dim: int) -> float:
    return 1.0 / np.sqrt(head_dim)


def attention_forward(q, k, v, softmax_scale=None, causal=False, window=(-1, -1)):
    """(out, lse) in float64: out (B, Nq, Hq, D), lse (B, Hq, Nq); empty rows give 0 and -inf."""
    scale = default_scale(q.shape[-1]) if softmax_scale is None else softmax_scale
    group = q.shape[2] // k.shape[2]
    probs, lse = _probabilities(q, k, scale, causal, window)
    out = np.einsum("bhqk,bkhd->bqhd", probs, _expand_kv(v, group))
    return out, lse


def attention_backward(dout, q, k, v, softmax_scale=None, causal=False, window=(-1, -1)):
    """(dq, dk, dv) in float64; dk and dv sum the query heads of each GQA group."""
    scale = default_scale(q.shape[-1]) if softmax_scale is None else softmax_scale
    batch, seqlen_k, heads_kv, head_dim = k.shape
    group = q.shape[2] // heads_kv
    probs, _ = _probabilities(q, k, scale, causal, window)
    dout = dout.astype(np.float64)
    k_full, v_full = _expand_kv(k, group), _expand_kv(v, group)
    dv_full = np.einsum("bhqk,bqhd->bkhd", probs, dout)
    dprobs = np.einsum("bqhd,bkhd->bhqk", dout, v_full)
    dscores = probs * (dprobs - (probs * dprobs).sum(axis=-1, keepdims=True))
    dq = np.einsum("bhqk,bkhd->bqhd", dscores, k_full) * scale
    dk_full = np.einsum("bhqk,bqhd->bkhd", dscores, q.astype(np.float64)) * scale

    def fold_groups(x):
        return x.reshape(batch, seqlen_k, heads_kv, group, head_dim).sum(axis=3)

    return dq, fold_groups(dk_full), fold_groups(dv_full)


def relative_error(actual, expected) -> float:
    """||actual - expected|| / ||expected|| (Frobenius), in float64; NaN anywhere gives inf."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    if not np.all(np.isfinite(actual[np.isfinite(expected)])):
        return float("inf")
    finite = np.isfinite(expected)
    if not np.array_equal(np.isfinite(actual), finite) or not np.array_equal(
        actual[~finite], expected[~finite]
    ):
        return float("inf")
    norm = np.linalg.norm(expected[finite])
    diff = np.linalg.norm(actual[finite] - expected[finite])
    return float(diff / norm) if norm > 0 else float(diff)


def lse_error(actual, expected) -> float:
    """relative_error for log-sum-exp values, with each element's scale floored at 1.

    An LSE near 0 (one key whose score q·k·scale nearly cancels, say) carries the absolute
    rounding of the float32 dot product (~sqrt(D)·eps·|q_d·k_d|, a few 1e-7): a large *relative*
    error of a tiny number. Measured against max(|lse|, 1), the check keeps to the precision that
    matters, that of exp(lse), which the softmax divides by.
    """
    if relative_error(actual, expected) == float("inf"):
        return float("inf")  # NaN, or -inf rows that do not match
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    finite = np.isfinite(expected)
    diff = np.linalg.norm(actual[finite] - expected[finite])
    scale = np.linalg.norm(np.maximum(np.abs(expected[finite]), 1.0))
    return float(diff / scale) if scale > 0 else float(diff)


# Relative error allowed against the float64 reference, by the dtype of the inputs: fp32
# arithmetic lands far under 1e-5; 16-bit outputs carry their own rounding (2^-11 / 2^-8).
FORWARD_TOLERANCE = {"float32": 1e-5, "float16": 5e-3, "bfloat16": 1e-2}
# Gradients sum over a whole sequence and go through one more rounding of P or dS.
BACKWARD_TOLERANCE = {"float32": 5e-5, "float16": 1e-2, "bfloat16": 2e-2}
