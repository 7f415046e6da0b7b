"""torch integration: the custom ops ``fattn::fwd`` and ``fattn::bwd``.

Registered through ``torch.library`` with fake (meta) implementations, so torch.compile can
trace through them without running them, and with autograd wired from fwd to bwd, so training
loops get fattn's own backward pass. The ops run on the caller's current CUDA stream and, on
the CPU, with torch's thread count unless told otherwise. Eager calls take a lighter path to
the same library calls (an autograd.Function, no torch.library wrapper per call).

Every step of a call costs host time that, at small sequence lengths, the GPU waits on
(bench/host_overhead.py --breakdown; bench/results/host-overhead-h100-2026-11-23-s11): the
library reads the torch tensors itself, and the streams, allocations and autograd bookkeeping
here take the cheapest torch calls that do the job.
"""

from __future__ import annotations

from typing import Optional, Tuple

import torch
from torch import Tensor

from . import _fattn

_ATTENTION_RANK = 4
# The non-tensor arguments of both ops: softmax_scale, causal, window_left, window_right,
# backend, deterministic, num_threads (they get no gradient).
_OPTION_COUNT = 7


def _check_rank(t: Tensor, name: str) -> None:
    # Mirrors the library's first check, for the fake implementations that never reach it.
    if t.dim() != _ATTENTION_RANK:
        raise ValueError(
            f"{name}: expected a rank-4 tensor (batch, seqlen, heads, head_dim), got rank "
            f"{t.dim()} with shape {tuple(t.shape)}"
        )


def _lse_shape(q: Tensor) -> Tuple[int, int, int]:
    if q.dim() != _ATTENTION_RANK:
        return (0, 0, 0)  # the library then reports q's rank with its own message
    batch, seqlen_q, heads_q, _ = q.shape
    return (batch, heads_q, seqlen_q)


def _last_dim_contiguous(t: Tensor) -> Tensor:
    # Gradients from autograd are often expanded views (stride 0 everywhere, e.g. after
    # .sum()); the library needs a contiguous last dimension and takes any other strides.
    return t if t.dim() == 0 or t.stride(-1) == 1 or t.shape[-1] <= 1 else t.contiguous()


# The current stream's cudaStream_t as an int, without building a torch.cuda.Stream object
# (torch.cuda.current_stream(...).cuda_stream cost the host 6.9 us a call on an H100 machine,
# this 0.2; bench/results/host-overhead-h100-2026-11-23-s11). It is what torch's own compiler
# emits into generated code for the same purpose; the public call stands in where a build
# lacks it.
_current_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _execution(t: Tensor, num_threads: int) -> Tuple[int, int]:
    """(CUDA stream pointer, CPU thread count) for running on t's device.

    No device context is entered: the library makes the tensors' device current around every
    CUDA launch itself (ScopedDevice in each CUDA backend's entry point)."""
    if t.is_cuda:
        index = t.get_device()
        if _current_raw_stream is not None:
            return _current_raw_stream(index), 0
        return torch.cuda.current_stream(index).cuda_stream, 0
    return 0, (num_threads if num_threads > 0 else torch.get_num_threads())


# The library calls take the torch tensors themselves (_fattn.forward_torch reads their
# pointers, shapes and strides through their attributes): no detach() and no DLPack export,
# which cost the host ~5 us per tensor, 14 tensors per fwd+bwd.
# Outputs are allocated like their model tensor (empty_like, contiguous): torch parses a shape,
# dtype and device on every torch.empty(shape, dtype=..., device=...) call, several times the
# cost of empty_like on the same tensor.
def _contiguous_like(t: Tensor) -> Tensor:
    return torch.empty_like(t, memory_format=torch.contiguous_format)


def _run_forward(q, k, v, softmax_scale, causal, window_left, window_right, backend,
                 deterministic, num_threads):
    out = _contiguous_like(q)
    lse = q.new_empty(_lse_shape(q), dtype=torch.float32)
    stream, threads = _execution(q, num_threads)
    _fattn.forward_torch(q, k, v, out, lse, softmax_scale, causal, (window_left, window_right),
                         backend, deterministic, stream, threads)
    return out, lse


@torch.library.custom_op("fattn::fwd", mutates_args=())
def fwd(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    softmax_scale: Optional[float],
    causal: bool,
    window_left: int,
    window_right: int,
    backend: str,
    deterministic: bool,
    num_threads: int,
) -> Tuple[Tensor, Tensor]:
    return _run_forward(q, k, v, softmax_scale, causal, window_left, window_right, backend,
                        deterministic, num_threads)


@fwd.register_fake
def _fwd_fake(q, k, v, softmax_scale, causal, window_left, window_right, backend,
              deterministic, num_threads):
    _check_rank(q, "q")
    return torch.empty_like(q, memory_format=torch.contiguous_format), q.new_empty(
        _lse_shape(q), dtype=torch.float32
    )


def _run_backward(dout, q, k, v, out, lse, softmax_scale, causal, window_left, window_right,
                  backend, deterministic, num_threads):
    dq, dk, dv = _contiguous_like(q), _contiguous_like(k), _contiguous_like(v)
    stream, threads = _execution(q, num_threads)
    _fattn.backward_torch(q, k, v, out, dout, lse, dq, dk, dv, softmax_scale, causal,
                          (window_left, window_right), backend, deterministic, stream, threads)
    return dq, dk, dv


@torch.library.custom_op("fattn::bwd", mutates_args=())
def bwd(
    dout: Tensor,
    q: Tensor,
    k: Tensor,
    v: Tensor,
    out: Tensor,
    lse: Tensor,
    softmax_scale: Optional[float],
    causal: bool,
    window_left: int,
    window_right: int,
    backend: str,
    deterministic: bool,
    num_threads: int,
) -> Tuple[Tensor, Tensor, Tensor]:
    return _run_backward(dout, q, k, v, out, lse, softmax_scale, causal, window_left,
                         window_right, backend, deterministic, num_threads)


@bwd.register_fake
def _bwd_fake(dout, q, k, v, out, lse, softmax_scale, causal, window_left, window_right,
              backend, deterministic, num_threads):
    _check_rank(q, "q")
    _check_rank(k, "k")
    return (
        torch.empty_like(q, memory_format=torch.contiguous_format),
        torch.empty_like(k, memory_format=torch.contiguous_format),
        torch.empty_like(v, memory_format=torch.contiguous_format),
    )


def _setup_context(ctx, inputs, output):
    q, k, v, *options = inputs
    out, lse = output
    ctx.save_for_backward(q, k, v, out, lse)
    ctx.options = options
    # The backward pass computes dq, dk, dv from dout alone; a gradient flowing into lse would
    # be dropped, so lse is declared non-differentiable instead of silently ignored.
    ctx.mark_non_differentiable(lse)


def _gradients(ctx, dout, run_backward):
    """(dq, dk, dv) from the saved tensors and options."""
    q, k, v, out, lse = ctx.saved_tensors
    return tuple(run_backward(_last_dim_contiguous(dout), q, k, v, out, lse, *ctx.options))


def _backward(ctx, dout, _dlse):
    return _gradients(ctx, dout, torch.ops.fattn.bwd) + (None,) * _OPTION_COUNT


torch.library.register_autograd("fattn::fwd", _backward, setup_context=_setup_context)


class _EagerAttention(torch.autograd.Function):
    """The same forward and backward as the custom ops, without torch.library's Python wrapper
    around each call: measured on an H100 (bench/host_overhead.py, docs/perf-notes.md "Tenth
    integrated run"), a fwd+bwd through the ops cost the host 0.6-0.7 ms against SDPA's
    0.25-0.34, enough to leave the GPU waiting at N = 512. Eager calls take this path;
    torch.compile traces the custom ops (attention() below)."""

    # The _OPTION_COUNT options travel as one tuple argument: Function.apply inspects every
    # argument on each call, and they are no tensors. backward() therefore returns one gradient
    # per forward() argument: dq, dk, dv and None for the options tuple.
    @staticmethod
    def forward(ctx, q, k, v, options):
        output = _run_forward(q, k, v, *options)
        _setup_context(ctx, (q, k, v, *options), output)
        # lse never has a gradient (non-differentiable); without this autograd would still
        # allocate and zero-fill one for it on every backward, only for it to be ignored.
        ctx.set_materialize_grads(False)
        return output

    @staticmethod
    def backward(ctx, dout, _dlse):
        if dout is None:  # no gradient reached out: zero gradients, which autograd spells None
            return None, None, None, None  # dq, dk, dv, options
        return _gradients(ctx, dout, _run_backward) + (None,)  # no gradient for the options


# Eager calls run _EagerAttention / _run_backward; inside torch.compile the custom ops, which
# the compiler traces through their fake implementations.
def attention(q, k, v, softmax_scale, causal, window, backend, deterministic, num_threads):
    options = (softmax_scale, causal, window[0], window[1], backend, deterministic, num_threads)
    if torch.compiler.is_compiling():
        return torch.ops.fattn.fwd(q, k, v, *options)
    return _EagerAttention.apply(q, k, v, options)


def attention_backward(dout, q, k, v, out, lse, softmax_scale, causal, window, backend,
                       deterministic, num_threads):
    run_backward = torch.ops.fattn.bwd if torch.compiler.is_compiling() else _run_backward
    return run_backward(
        _last_dim_contiguous(dout), q, k, v, out, lse, softmax_scale, causal, window[0],
        window[1], backend, deterministic, num_threads,
    )
