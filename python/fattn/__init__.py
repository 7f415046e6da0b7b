"""fattn: exact attention computed the IO-aware way (FlashAttention).

* flash_attn's interface: ``flash_attn_func``, ``flash_attn_qkvpacked_func``,
  ``flash_attn_kvpacked_func`` (same names, signatures and layouts).
* fattn's own: ``attention`` (backend choice, returns LSE), ``attention_backward``,
  ``supports`` (what would run a problem, or why nothing can) and ``backends``.

Tensors can be torch tensors (CPU or CUDA; differentiable, torch.compile-able through the
``torch.ops.fattn.fwd``/``bwd`` custom ops) or numpy arrays; nothing is copied.
"""

import importlib.util

# With torch installed, torch is imported before the extension: torch loads its own CUDA
# libraries (cuBLAS), and libfattn then binds to those copies instead of loading a second,
# possibly older cuBLAS from the toolkit.
_HAS_TORCH = importlib.util.find_spec("torch") is not None
if _HAS_TORCH:
    import torch  # noqa: F401

from ._api import Selection, attention, attention_backward, backends, supports  # noqa: E402
from ._fattn import __version__  # noqa: E402
from .flash_attn_interface import (  # noqa: E402
    flash_attn_func,
    flash_attn_kvpacked_func,
    flash_attn_qkvpacked_func,
)

# The torch ops are registered at import, so torch.compile finds them before it traces
# anything; without torch, fattn works on numpy arrays alone.
if _HAS_TORCH:
    from . import _torch_ops  # noqa: F401,E402  (registers torch.ops.fattn.*)

__all__ = [
    "Selection",
    "__version__",
    "attention",
    "attention_backward",
    "backends",
    "flash_attn_func",
    "flash_attn_kvpacked_func",
    "flash_attn_qkvpacked_func",
    "supports",
]
