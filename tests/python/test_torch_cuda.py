"""fattn on CUDA tensors against PyTorch's math SDPA in float64 on upcast inputs.

Every compiled CUDA backend, forward and (where the backend has one) backward, on odd shapes,
GQA/MQA, causal masks with seqlen_q != seqlen_k (bottom-right aligned, given to SDPA as an
explicit mask) and a sliding window; plus flash_attn_func through autograd, torch.compile,
and the caller's CUDA stream. Skipped, with the reason printed, without torch, without a CUDA
device, or with a fattn built without CUDA backends.
"""

from __future__ import annotations

import pytest
from reference import BACKWARD_TOLERANCE, FORWARD_TOLERANCE, lse_error, relative_error, visible_keys

torch = pytest.importorskip("torch", reason="torch is not installed: GPU tests not run")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device: GPU tests not run", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

import fattn  # noqa: E402
from fattn import flash_attn_func  # noqa: E402

CUDA_BACKENDS = [name for name in fattn.backends() if name.startswith("cuda_")]
if not CUDA_BACKENDS:
    pytest.skip("fattn was built without CUDA backends: GPU tests not run",
                allow_module_level=True)

DEVICE = torch.device("cuda")
DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}

# (batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim, causal, window)
CASES = {
    "n1-d64": (2, 1, 1, 4, 4, 64, False, (-1, -1)),
    "n17-d72-causal-gqa": (2, 17, 17, 4, 2, 72, True, (-1, -1)),
    "n1013-d129-causal-mqa": (1, 1013, 1013, 4, 1, 129, True, (-1, -1)),
    "causal-q-shorter-d128": (2, 128, 1013, 8, 2, 128, True, (-1, -1)),
    "causal-q-longer-d64": (1, 1013, 128, 2, 2, 64, True, (-1, -1)),
    "window-d256": (1, 300, 300, 2, 2, 256, False, (64, 0)),
}
CASE_PARAMS = [pytest.param(*case, id=name) for name, case in CASES.items()]
CASE_ARGS = "batch,seqlen_q,seqlen_k,heads_q,heads_kv,head_dim,causal,window"


def _inputs(seed, batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim, dtype):
    gen = torch.Generator(device=DEVICE).manual_seed(seed)

    def make(seqlen, heads):
        return torch.randn(batch, seqlen, heads, head_dim, generator=gen, device=DEVICE,
                           dtype=dtype)

    return make(seqlen_q, heads_q), make(seqlen_k, heads_kv), make(seqlen_k, heads_kv)


def _sdpa_float64(q, k, v, causal, window, dout=None):
    """(out, lse[, dq, dk, dv]) from math SDPA in float64 on upcast copies of q, k, v."""
    q64, k64, v64 = (t.detach().double().requires_grad_(dout is not None) for t in (q, k, v))
    visible = torch.from_numpy(visible_keys(q.shape[1], k.shape[1], causal, window)).to(DEVICE)
    # A row that sees no key is 0 in fattn, with no gradient (flash_attn's convention). SDPA is
    # given such rows unmasked, so nothing in it divides by zero, and their output is then
    # replaced by 0, which also stops their gradient.
    has_key = visible.any(dim=-1, keepdim=True)
    with sdpa_kernel(SDPBackend.MATH):
        out = F.scaled_dot_product_attention(
            q64.transpose(1, 2), k64.transpose(1, 2), v64.transpose(1, 2),
            attn_mask=visible | ~has_key, enable_gqa=True,
        ).transpose(1, 2)
    out = torch.where(has_key[None, :, :, None], out, torch.zeros_like(out))
    group = q.shape[2] // k.shape[2]
    scores = torch.einsum("bqhd,bkhd->bhqk", q64.detach(),
                          k64.detach().repeat_interleave(group, dim=2)) * q.shape[-1] ** -0.5
    lse = torch.logsumexp(scores.masked_fill(~visible, float("-inf")), dim=-1)
    if dout is None:
        return out.detach(), lse
    out.backward(dout.double())
    return out.detach(), lse, q64.grad, k64.grad, v64.grad


def _skip_unless_supported(q, k, backend, causal, window, backward=False):
    selection = fattn.supports(q, k, backend=backend, causal=causal, window_size=window,
                               backward=backward)
    if not selection:
        pytest.skip(f"{backend} does not run this problem: {selection.reason}")


# The selector's words for kernels a pruned build (FATTN_CUDA_FAMILIES / _HEAD_DIMS / _DTYPES,
# e.g. `scripts/gpu-check --head-dims 64`) left out: src/cuda/common/instances.hpp and
# src/api/selector.cpp.
PRUNED_BUILD_WORDS = ("was left out of this build by its pruning options",
                      "is not compiled into this build")


def _skip_if_pruned_build(q, k, causal, window=(-1, -1), backward=False):
    """Skips where this build left out every kernel `auto` could run for the problem; any other
    refusal is left for the test to fail on."""
    selection = fattn.supports(q, k, backend="auto", causal=causal, window_size=window,
                               backward=backward)
    if not selection and any(words in selection.reason for words in PRUNED_BUILD_WORDS):
        pytest.skip(f"this build has no kernel for the problem: {selection.reason}")


def _cpu(t):
    return t.detach().cpu().double().numpy()


@pytest.mark.parametrize("backend", CUDA_BACKENDS)
@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize(CASE_ARGS, CASE_PARAMS)
def test_forward_matches_sdpa_float64(backend, dtype_name, batch, seqlen_q, seqlen_k, heads_q,
                                      heads_kv, head_dim, causal, window):
    q, k, v = _inputs(1, batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim,
                      DTYPES[dtype_name])
    _skip_unless_supported(q, k, backend, causal, window)
    out, lse = fattn.attention(q, k, v, causal=causal, window_size=window, backend=backend)
    torch.cuda.synchronize()
    expected_out, expected_lse = _sdpa_float64(q, k, v, causal, window)
    assert out.dtype == q.dtype and out.device == q.device
    assert relative_error(_cpu(out), _cpu(expected_out)) < FORWARD_TOLERANCE[dtype_name]
    assert lse_error(_cpu(lse), _cpu(expected_lse)) < FORWARD_TOLERANCE["float32"]


@pytest.mark.parametrize("backend", CUDA_BACKENDS)
@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize(CASE_ARGS, CASE_PARAMS)
def test_gradients_match_sdpa_float64(backend, dtype_name, batch, seqlen_q, seqlen_k, heads_q,
                                      heads_kv, head_dim, causal, window):
    q, k, v = _inputs(2, batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim,
                      DTYPES[dtype_name])
    _skip_unless_supported(q, k, backend, causal, window, backward=True)
    _skip_unless_supported(q, k, backend, causal, window)
    dout = torch.randn_like(q)
    leaves = [t.clone().requires_grad_() for t in (q, k, v)]
    out, _ = fattn.attention(*leaves, causal=causal, window_size=window, backend=backend)
    out.backward(dout)
    _, _, *expected = _sdpa_float64(q, k, v, causal, window, dout=dout)
    for name, leaf, reference in zip(("dq", "dk", "dv"), leaves, expected):
        assert leaf.grad.shape == leaf.shape, name
        error = relative_error(_cpu(leaf.grad), _cpu(reference))
        assert error < BACKWARD_TOLERANCE[dtype_name], f"{name}: relative error {error:.2e}"


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_flash_attn_func_trains_like_sdpa(dtype):
    q, k, v = (t.requires_grad_() for t in _inputs(3, 2, 200, 333, 8, 2, 128, dtype))
    _skip_if_pruned_build(q, k, causal=True, backward=True)
    out = flash_attn_func(q, k, v, causal=True)
    dout = torch.randn_like(out)
    out.backward(dout)
    expected_out, _, *expected_grads = _sdpa_float64(q, k, v, True, (-1, -1), dout=dout)
    name = "bfloat16" if dtype == torch.bfloat16 else "float16"
    assert relative_error(_cpu(out), _cpu(expected_out)) < FORWARD_TOLERANCE[name]
    for leaf, reference in zip((q, k, v), expected_grads):
        assert relative_error(_cpu(leaf.grad), _cpu(reference)) < BACKWARD_TOLERANCE[name]


def test_torch_compile_training_step():
    q, k, v = (t.requires_grad_() for t in _inputs(4, 2, 256, 256, 4, 2, 64, torch.bfloat16))
    _skip_if_pruned_build(q, k, causal=True, backward=True)

    def step(a, b, c):
        return flash_attn_func(a, b, c, causal=True).float().square().mean()

    compiled = torch.compile(step, fullgraph=True)
    loss = compiled(q, k, v)
    grads = torch.autograd.grad(loss, (q, k, v))
    expected_loss = step(q, k, v)
    expected_grads = torch.autograd.grad(expected_loss, (q, k, v))
    torch.testing.assert_close(loss, expected_loss)
    for g, e in zip(grads, expected_grads):
        torch.testing.assert_close(g, e)


def test_runs_on_the_callers_stream():
    q, k, v = _inputs(5, 1, 1024, 1024, 8, 8, 128, torch.bfloat16)
    _skip_if_pruned_build(q, k, causal=False)
    expected, _ = fattn.attention(q, k, v)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        # q is rewritten on the side stream just before the call: run elsewhere, fattn would
        # race with this copy.
        q_side = torch.empty_like(q)
        q_side.copy_(q)
        out, _ = fattn.attention(q_side, k, v)
    side.synchronize()
    torch.testing.assert_close(out, expected, rtol=0, atol=0)


def test_mixed_devices_are_reported():
    q, k, v = _inputs(6, 1, 8, 8, 2, 2, 64, torch.float16)
    with pytest.raises(ValueError, match=r"k: expected a tensor on cuda:0 \(where q is\), "
                                         r"got one on cpu"):
        fattn.attention(q, k.cpu(), v)
