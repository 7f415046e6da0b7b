"""fattn: exact attention computed the IO-aware way (FlashAttention).

* flash_attn's interface: ``flash_attn_func``, ``flash_attn_qkvpacked_func``,
  ``flash_attn_kvpacked_func`` (same names, signatures and layouts).
* fattn's own: ``attention`` (backend choice, returns LSE), ``attention_backward``,
  ``supports`` (what would run a problem, or why nothing can) and ``backends``.

Tensors can be torch tensors (CPU or CUDA; differentiable, torch.compile-able through the
``torch.ops.fattn.fwd``/``bwd`` custom ops) or numpy arrays; nothing is copied.
"""

import importlib.util

from ._api import Selection, attention, attention_backward, backends, supports
from ._fattn import __version__
from .flash_attn_interface import (
    flash_attn_func,
    flash_attn_kvpacked_func,
    flash_attn_qkvpacked_func,
)

# The torch ops are registered at import when torch is installed, so torch.compile finds them
# before it traces anything; without torch, fattn works on numpy arrays alone.
if importlib.util.find_spec("torch") is not None:
    from . import _torch_ops  # noqa: F401  (registers torch.ops.fattn.*)

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
