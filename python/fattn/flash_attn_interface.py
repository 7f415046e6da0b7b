"""flash_attn's public functions, with its names, signatures, layouts and return conventions.

``from fattn import flash_attn_func`` replaces ``from flash_attn import flash_attn_func``.
Features fattn does not implement (dropout, ALiBi, softcapping) raise NotImplementedError
naming the feature; they are never silently ignored.

Differences from flash_attn, all on the side of saying more:
* the functions also accept numpy arrays (forward only) and run on the CPU;
* ``return_attn_probs=True`` returns the real attention probabilities
  softmax(Q·Kᵀ·scale + mask), shape (batch, heads_q, seqlen_q, seqlen_k), materialized from
  q, k and the LSE for inspection (O(N²) memory, not differentiable). flash_attn returns an
  empty tensor there unless dropout is on, and a padded, dropout-encoded matrix when it is.
"""

from __future__ import annotations

import importlib
from typing import Any, Optional, Sequence

from ._api import _is_torch_tensor, _window_pair, attention

_QKV_PACKED_RANK = 5


def _refuse_unimplemented(dropout_p: float, softcap: float, alibi_slopes: Any) -> None:
    if dropout_p != 0.0:
        raise NotImplementedError(
            f"fattn does not implement attention dropout: got dropout_p={dropout_p}, "
            f"pass dropout_p=0.0"
        )
    if softcap != 0.0:
        raise NotImplementedError(
            f"fattn does not implement softcapping of the scores: got softcap={softcap}, "
            f"pass softcap=0.0"
        )
    if alibi_slopes is not None:
        raise NotImplementedError(
            "fattn does not implement ALiBi position biases: alibi_slopes must be None"
        )


def _last_dim_contiguous(x: Any) -> Any:
    # flash_attn copies a tensor whose last dimension is strided; so does fattn, and only then.
    if _is_torch_tensor(x):
        return x if x.dim() == 0 or x.stride(-1) == 1 or x.shape[-1] <= 1 else x.contiguous()
    strides = getattr(x, "strides", None)
    if strides and x.shape[-1] > 1 and strides[-1] != x.itemsize:
        # numpy and cupy both name it ascontiguousarray; copy with the array's own library.
        library = importlib.import_module(type(x).__module__.split(".")[0])
        return library.ascontiguousarray(x)
    return x


def _visible_keys(seqlen_q: int, seqlen_k: int, causal: bool, window, arange):
    """Boolean (seqlen_q, seqlen_k): which keys each query row sees (bottom-right aligned)."""
    left, right = window
    if causal:
        right = 0
    diagonal = arange(seqlen_q)[:, None] + (seqlen_k - seqlen_q)  # bottom-right alignment
    cols = arange(seqlen_k)[None, :]
    unbounded = seqlen_q + seqlen_k  # farther than any key can be from the diagonal
    right_extent = right if right >= 0 else unbounded
    left_extent = left if left >= 0 else unbounded
    return (cols <= diagonal + right_extent) & (cols >= diagonal - left_extent)


def _attention_probabilities(q, k, lse, softmax_scale, causal, window_size):
    """softmax(Q·Kᵀ·scale + mask) per head, (batch, heads_q, seqlen_q, seqlen_k), from the LSE."""
    window = _window_pair(window_size)
    head_dim = q.shape[-1]
    scale = softmax_scale if softmax_scale is not None else head_dim ** -0.5
    group = q.shape[2] // k.shape[2]
    if _is_torch_tensor(q):
        import torch

        with torch.no_grad():
            keys = k.float().repeat_interleave(group, dim=2)
            scores = torch.einsum("bqhd,bkhd->bhqk", q.float(), keys) * scale
            visible = _visible_keys(q.shape[1], k.shape[1], causal, window,
                                    lambda n: torch.arange(n, device=q.device))
            probs = torch.exp(scores - lse[..., None])
            keep = visible & torch.isfinite(lse)[..., None]
            return torch.where(keep, probs, torch.zeros_like(probs)).to(q.dtype)
    import numpy

    keys = numpy.repeat(numpy.asarray(k, dtype=numpy.float64), group, axis=2)
    scores = numpy.einsum("bqhd,bkhd->bhqk", numpy.asarray(q, dtype=numpy.float64), keys) * scale
    visible = _visible_keys(q.shape[1], k.shape[1], causal, window, numpy.arange)
    keep = visible & numpy.isfinite(lse)[..., None]
    with numpy.errstate(invalid="ignore", over="ignore"):
        probs = numpy.exp(scores - numpy.asarray(lse, dtype=numpy.float64)[..., None])
    return numpy.where(keep, probs, 0.0).astype(q.dtype)


def flash_attn_func(
    q: Any,
    k: Any,
    v: Any,
    dropout_p: float = 0.0,
    softmax_scale: Optional[float] = None,
    causal: bool = False,
    window_size: Sequence[int] = (-1, -1),
    softcap: float = 0.0,
    alibi_slopes: Any = None,
    deterministic: bool = False,
    return_attn_probs: bool = False,
):
    """Attention over q (batch, seqlen_q, heads_q, head_dim) and k, v (batch, seqlen_k,
    heads_kv, head_dim), heads_q a multiple of heads_kv (MQA/GQA).

    causal: bottom-right aligned mask; window_size (left, right), -1 = unbounded.
    Returns out (batch, seqlen_q, heads_q, head_dim); with return_attn_probs also
    softmax_lse (batch, heads_q, seqlen_q) and the attention probabilities (see module doc).
    """
    _refuse_unimplemented(dropout_p, softcap, alibi_slopes)
    q, k, v = (_last_dim_contiguous(x) for x in (q, k, v))
    out, lse = attention(
        q, k, v, softmax_scale=softmax_scale, causal=causal, window_size=window_size,
        deterministic=deterministic,
    )
    if not return_attn_probs:
        return out
    return out, lse, _attention_probabilities(q, k, lse, softmax_scale, causal, window_size)


def flash_attn_qkvpacked_func(
    qkv: Any,
    dropout_p: float = 0.0,
    softmax_scale: Optional[float] = None,
    causal: bool = False,
    window_size: Sequence[int] = (-1, -1),
    softcap: float = 0.0,
    alibi_slopes: Any = None,
    deterministic: bool = False,
    return_attn_probs: bool = False,
):
    """flash_attn_func with q, k, v packed as qkv (batch, seqlen, 3, heads, head_dim).

    q, k, v are strided views of qkv (no copies); the gradient arrives packed the same way.
    """
    _check_packed(qkv, "qkv", 3, "(batch, seqlen, 3, heads, head_dim)")
    return flash_attn_func(
        qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2], dropout_p, softmax_scale, causal,
        window_size, softcap, alibi_slopes, deterministic, return_attn_probs,
    )


def flash_attn_kvpacked_func(
    q: Any,
    kv: Any,
    dropout_p: float = 0.0,
    softmax_scale: Optional[float] = None,
    causal: bool = False,
    window_size: Sequence[int] = (-1, -1),
    softcap: float = 0.0,
    alibi_slopes: Any = None,
    deterministic: bool = False,
    return_attn_probs: bool = False,
):
    """flash_attn_func with k, v packed as kv (batch, seqlen_k, 2, heads_kv, head_dim)."""
    _check_packed(kv, "kv", 2, "(batch, seqlen_k, 2, heads_kv, head_dim)")
    return flash_attn_func(
        q, kv[:, :, 0], kv[:, :, 1], dropout_p, softmax_scale, causal, window_size, softcap,
        alibi_slopes, deterministic, return_attn_probs,
    )


def _check_packed(packed: Any, name: str, count: int, layout: str) -> None:
    shape = tuple(packed.shape)
    if len(shape) != _QKV_PACKED_RANK or shape[2] != count:
        raise ValueError(f"{name}: expected a rank-5 tensor {layout}, got shape {shape}")
