"""fattn's own Python entry points: attention, its backward, and the selector's answers.

They take torch tensors and any DLPack tensor: torch tensors go through an autograd.Function in
eager mode and the `fattn::fwd` / `fattn::bwd` custom ops under torch.compile (so autograd and
the compiler see them), and the C++ library reads them through their attributes; numpy arrays,
and other array-API libraries with writable arrays (cupy), are passed to it through DLPack.
Outputs are allocated with the same library as the inputs, and inputs are never copied.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Optional, Sequence, Tuple

from . import _fattn

# Rank of q, k, v, out: (batch, seqlen, heads, head_dim).
_ATTENTION_RANK = 4


def _is_torch_tensor(x: Any) -> bool:
    # torch is looked up, never imported, here: a torch tensor can only exist once torch is.
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _window_pair(window_size: Sequence[int]) -> Tuple[int, int]:
    try:
        left, right = window_size
        return int(left), int(right)
    except (TypeError, ValueError):
        raise ValueError(
            f"window_size: expected a pair (left, right) of ints, -1 meaning unbounded, "
            f"got {window_size!r}"
        ) from None


def _lse_shape(q: Any) -> Tuple[int, int, int]:
    # A q of the wrong rank gets an empty lse: the C++ validation then reports q's rank, with
    # the library's own message, before it looks at lse.
    if len(q.shape) != _ATTENTION_RANK:
        return (0, 0, 0)
    batch, seqlen_q, heads_q, _ = q.shape
    return (batch, heads_q, seqlen_q)


class _ArrayLibrary:
    """Allocates outputs with the library that made the inputs (numpy, cupy, ...)."""

    def __init__(self, like: Any):
        namespace = getattr(like, "__array_namespace__", None)
        if namespace is not None:
            self._xp = namespace()
            self._device = getattr(like, "device", None)
        elif type(like).__module__ == "numpy":
            import numpy  # numpy < 2 has no __array_namespace__

            self._xp, self._device = numpy, None
        else:
            raise TypeError(
                f"expected a torch tensor, a numpy array or another array-API array, "
                f"got {type(like).__name__}"
            )

    def empty(self, shape: Sequence[int], dtype: Any) -> Any:
        if self._device is None:
            return self._xp.empty(tuple(shape), dtype=dtype)
        return self._xp.empty(tuple(shape), dtype=dtype, device=self._device)

    @property
    def float32(self) -> Any:
        return self._xp.float32

    def current_cuda_stream(self) -> int:
        # cupy exposes its current stream; other libraries run on the legacy default stream.
        cuda = getattr(self._xp, "cuda", None)
        get_stream = getattr(cuda, "get_current_stream", None)
        return int(get_stream().ptr) if get_stream is not None else 0


def attention(
    q: Any,
    k: Any,
    v: Any,
    *,
    softmax_scale: Optional[float] = None,
    causal: bool = False,
    window_size: Sequence[int] = (-1, -1),
    backend: str = "auto",
    deterministic: bool = False,
    num_threads: int = 0,
) -> Tuple[Any, Any]:
    """Exact attention; returns ``(out, lse)``.

    q: (batch, seqlen_q, heads_q, head_dim); k, v: (batch, seqlen_k, heads_kv, head_dim) with
    heads_q a multiple of heads_kv (GQA/MQA). Any strides, last dimension contiguous.
    out is shaped like q; lse is (batch, heads_q, seqlen_q) float32, the natural-log
    log-sum-exp of each row of scores (-inf for a row that sees no key).
    causal / window_size follow flash_attn: masks are aligned to the bottom-right corner.
    backend: "auto" or one of ``fattn.backends()``. num_threads: CPU threads, 0 = all (for
    torch CPU tensors, 0 = ``torch.get_num_threads()``).
    With torch tensors the call is differentiable in q, k, v (lse is not).
    """
    window = _window_pair(window_size)
    if _is_torch_tensor(q):
        from . import _torch_ops

        return _torch_ops.attention(
            q, k, v, softmax_scale, causal, window, backend, deterministic, num_threads
        )
    library = _ArrayLibrary(q)
    out = library.empty(q.shape, q.dtype)
    lse = library.empty(_lse_shape(q), library.float32)
    _fattn.forward(
        q, k, v, out, lse, softmax_scale, causal, window, backend, deterministic,
        library.current_cuda_stream(), num_threads,
    )
    return out, lse


def attention_backward(
    dout: Any,
    q: Any,
    k: Any,
    v: Any,
    out: Any,
    lse: Any,
    *,
    softmax_scale: Optional[float] = None,
    causal: bool = False,
    window_size: Sequence[int] = (-1, -1),
    backend: str = "auto",
    deterministic: bool = False,
    num_threads: int = 0,
) -> Tuple[Any, Any, Any]:
    """Gradients ``(dq, dk, dv)`` of :func:`attention`, given its ``out`` and ``lse``.

    dk and dv are shaped like k and v: under GQA each sums the query heads of its group.
    """
    window = _window_pair(window_size)
    if _is_torch_tensor(q):
        from . import _torch_ops

        return _torch_ops.attention_backward(
            dout, q, k, v, out, lse, softmax_scale, causal, window, backend, deterministic,
            num_threads,
        )
    library = _ArrayLibrary(q)
    dq = library.empty(q.shape, q.dtype)
    dk = library.empty(k.shape, k.dtype)
    dv = library.empty(v.shape, v.dtype)
    _fattn.backward(
        q, k, v, out, dout, lse, dq, dk, dv, softmax_scale, causal, window, backend,
        deterministic, library.current_cuda_stream(), num_threads,
    )
    return dq, dk, dv


@dataclass(frozen=True)
class Selection:
    """The selector's answer: which backend would run a problem, or why none can."""

    backend: Optional[str]
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.backend is not None

    def __bool__(self) -> bool:
        return self.ok


def supports(
    q: Any,
    k: Any,
    *,
    softmax_scale: Optional[float] = None,
    causal: bool = False,
    window_size: Sequence[int] = (-1, -1),
    backend: str = "auto",
    deterministic: bool = False,
    backward: bool = False,
) -> Selection:
    """Asks the same selector that :func:`attention` uses what would run this problem.

    Only q and k are needed (shapes, dtype, device and alignment are read from them).
    """
    if _is_torch_tensor(q):
        q, k = q.detach(), k.detach()  # DLPack refuses tensors that require grad
    name, reason = _fattn.supports(
        q, k, softmax_scale, causal, _window_pair(window_size), backend, deterministic, backward
    )
    return Selection(name, reason)


def backends(compiled_only: bool = True) -> list:
    """Names of the backends in this build (all that fattn knows with compiled_only=False)."""
    return list(_fattn.backends(compiled_only))
