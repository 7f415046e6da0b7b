"""The torch integration on CPU tensors: custom ops, autograd, torch.compile, error mapping.

Skipped (with the reason printed) where torch is not installed, as in CI.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CPU_BACKENDS
from reference import (
    BACKWARD_TOLERANCE,
    FORWARD_TOLERANCE,
    attention_backward,
    attention_forward,
    lse_error,
    relative_error,
)

torch = pytest.importorskip("torch", reason="torch is not installed: torch integration untested")

import fattn  # noqa: E402  (after the skip: importing fattn registers the torch ops)
from fattn import flash_attn_func, flash_attn_kvpacked_func, flash_attn_qkvpacked_func  # noqa: E402

ORACLE = "cpu_reference"


def _random(generator, *shape, dtype=torch.float32, requires_grad=False):
    return torch.randn(*shape, generator=generator, dtype=dtype).requires_grad_(requires_grad)


@pytest.fixture
def gen(request):
    return torch.Generator().manual_seed(abs(hash(request.node.nodeid)) % (2**31))


def _numpy(t):
    return t.detach().float().numpy()


@pytest.mark.parametrize("backend", CPU_BACKENDS)
@pytest.mark.parametrize("seqlen_q,seqlen_k,heads_q,heads_kv,head_dim,causal", [
    (17, 17, 4, 4, 72, False),
    (17, 129, 4, 2, 129, True),
    (64, 9, 2, 1, 64, True),  # causal with seqlen_q > seqlen_k: fully masked rows
])
def test_autograd_matches_reference(gen, backend, seqlen_q, seqlen_k, heads_q, heads_kv,
                                    head_dim, causal):
    q = _random(gen, 2, seqlen_q, heads_q, head_dim, requires_grad=True)
    k = _random(gen, 2, seqlen_k, heads_kv, head_dim, requires_grad=True)
    v = _random(gen, 2, seqlen_k, heads_kv, head_dim, requires_grad=True)
    dout = _random(gen, *q.shape)
    out, lse = fattn.attention(q, k, v, causal=causal, backend=backend)
    assert out.requires_grad and not lse.requires_grad
    out.backward(dout)
    expected_out, expected_lse = attention_forward(_numpy(q), _numpy(k), _numpy(v),
                                                   causal=causal)
    assert relative_error(_numpy(out), expected_out) < FORWARD_TOLERANCE["float32"]
    assert lse_error(_numpy(lse), expected_lse) < FORWARD_TOLERANCE["float32"]
    expected_grads = attention_backward(_numpy(dout), _numpy(q), _numpy(k), _numpy(v),
                                        causal=causal)
    for name, tensor, expected in zip("qkv", (q, k, v), expected_grads):
        assert tensor.grad.shape == tensor.shape, name  # GQA: dk, dv shaped like k, v
        assert relative_error(_numpy(tensor.grad), expected) < BACKWARD_TOLERANCE["float32"], name


@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_bfloat16_tensors_cross_dlpack(gen, backend):
    q, k, v = (_random(gen, 1, 33, 2, 64, dtype=torch.bfloat16) for _ in range(3))
    out, _ = fattn.attention(q, k, v, causal=True, backend=backend)
    assert out.dtype == torch.bfloat16
    expected, _ = attention_forward(_numpy(q), _numpy(k), _numpy(v), causal=True)
    assert relative_error(_numpy(out), expected) < FORWARD_TOLERANCE["bfloat16"]


def test_packed_gradients_arrive_packed(gen):
    qkv = _random(gen, 2, 24, 3, 4, 32, requires_grad=True)
    out = flash_attn_qkvpacked_func(qkv, causal=True)
    out.square().sum().backward()
    assert qkv.grad.shape == qkv.shape
    q, k, v = (qkv.detach()[:, :, i].clone().requires_grad_() for i in range(3))
    flash_attn_func(q, k, v, causal=True).square().sum().backward()
    torch.testing.assert_close(qkv.grad, torch.stack([q.grad, k.grad, v.grad], dim=2))

    kv = qkv.detach()[:, :, 1:, :2].clone().requires_grad_()  # GQA: 2 kv heads for 4 q heads
    q = qkv.detach()[:, :, 0].clone().requires_grad_()
    flash_attn_kvpacked_func(q, kv).sum().backward()
    assert kv.grad.shape == kv.shape and q.grad.shape == q.shape


def test_return_attn_probs_with_torch(gen):
    q, k, v = (_random(gen, 1, 10, 2, 16) for _ in range(3))
    out, lse, probs = flash_attn_func(q, k, v, causal=True, return_attn_probs=True)
    assert probs.shape == (1, 2, 10, 10) and lse.shape == (1, 2, 10)
    torch.testing.assert_close(probs.sum(-1), torch.ones(1, 2, 10))
    assert torch.all(probs.triu(diagonal=1) == 0)
    torch.testing.assert_close(torch.einsum("bhqk,bkhd->bqhd", probs, v), out)


def test_sum_gradient_with_zero_strides_is_accepted(gen):
    # out.sum() hands backward an expanded gradient (every stride 0).
    q, k, v = (_random(gen, 1, 8, 2, 16, requires_grad=True) for _ in range(3))
    fattn.attention(q, k, v, backend=ORACLE)[0].sum().backward()
    assert all(t.grad is not None and torch.isfinite(t.grad).all() for t in (q, k, v))


def test_errors_keep_the_library_message(gen):
    q = _random(gen, 1, 8, 4, 16)
    k = _random(gen, 1, 8, 3, 16)
    with pytest.raises(ValueError, match=r"heads_q must be a multiple of heads_kv"):
        fattn.attention(q, k, k)
    with pytest.raises(ValueError, match=r"expected dtype float32, float16 or bfloat16, got "
                                         r"float64"):
        fattn.attention(q.double(), k.double(), k.double())
    with pytest.raises(NotImplementedError, match=r"dropout"):
        flash_attn_func(q, q, q, dropout_p=0.5)


def test_custom_ops_pass_opcheck(gen):
    q = _random(gen, 2, 17, 4, 32)
    k = _random(gen, 2, 23, 2, 32)
    v = _random(gen, 2, 23, 2, 32)
    options = (None, True, -1, -1, ORACLE, False, 0)
    torch.library.opcheck(torch.ops.fattn.fwd.default, (q, k, v, *options))
    out, lse = torch.ops.fattn.fwd(q, k, v, *options)
    dout = _random(gen, *q.shape)
    torch.library.opcheck(torch.ops.fattn.bwd.default, (dout, q, k, v, out, lse, *options))


def test_eager_path_matches_the_custom_ops(gen):
    # Eager calls skip torch.library's wrapper (_torch_ops._EagerAttention); the custom ops, with
    # their registered autograd, are what torch.compile traces. Same library calls: same bits.
    q, k, v = (_random(gen, 2, 33, 2, 40, requires_grad=True) for _ in range(3))
    dout = _random(gen, *q.shape)
    options = (None, True, -1, -1, "cpu_flash", False, 1)
    eager_out, eager_lse = fattn.attention(q, k, v, causal=True, backend="cpu_flash",
                                           num_threads=1)
    eager_grads = torch.autograd.grad(eager_out, (q, k, v), dout)
    op_out, op_lse = torch.ops.fattn.fwd(q, k, v, *options)
    op_grads = torch.autograd.grad(op_out, (q, k, v), dout)
    assert torch.equal(eager_out, op_out) and torch.equal(eager_lse, op_lse)
    assert all(torch.equal(a, b) for a, b in zip(eager_grads, op_grads))
    explicit = fattn.attention_backward(dout, q, k, v, eager_out, eager_lse, causal=True,
                                        backend="cpu_flash", num_threads=1)
    assert all(torch.equal(a, b) for a, b in zip(explicit, op_grads))


def test_torch_compile_forward_and_backward(gen):
    q, k, v = (_random(gen, 1, 32, 2, 64, requires_grad=True) for _ in range(3))

    def loss(a, b, c):
        return fattn.attention(a, b, c, causal=True, backend=ORACLE)[0].square().sum()

    compiled = torch.compile(loss, fullgraph=True, backend="aot_eager")
    expected = loss(q, k, v)
    expected_grads = torch.autograd.grad(expected, (q, k, v))
    actual = compiled(q, k, v)
    actual_grads = torch.autograd.grad(actual, (q, k, v))
    torch.testing.assert_close(actual, expected)
    for a, e in zip(actual_grads, expected_grads):
        torch.testing.assert_close(a, e)


def test_numpy_and_torch_agree(gen):
    q, k, v = (_random(gen, 1, 19, 2, 24) for _ in range(3))
    from_torch, _ = fattn.attention(q, k, v, backend=ORACLE)
    from_numpy, _ = fattn.attention(q.numpy(), k.numpy(), v.numpy(), backend=ORACLE)
    assert isinstance(from_numpy, np.ndarray)
    np.testing.assert_array_equal(from_torch.numpy(), from_numpy)


def test_torch_reader_matches_dlpack_on_strided_views(gen):
    # The torch path reads pointers, shapes and strides through the tensors' attributes
    # (_fattn.forward_torch) instead of DLPack; both must describe the same memory, offsets
    # and strides included: a transposed q and a slice with a storage offset.
    q = _random(gen, 2, 4, 19, 32).transpose(1, 2)
    kv = _random(gen, 2, 23, 6, 32)
    k, v = kv[:, :, 1:3], kv[:, :, 4:6]
    from_torch, lse_torch = fattn.attention(q, k, v, causal=True, backend=ORACLE)
    from_numpy, lse_numpy = fattn.attention(q.numpy(), k.numpy(), v.numpy(), causal=True,
                                            backend=ORACLE)
    np.testing.assert_array_equal(from_torch.numpy(), from_numpy)
    np.testing.assert_array_equal(lse_torch.numpy(), lse_numpy)


@pytest.mark.parametrize("make,message", [
    (lambda t: torch._neg_view(t), r"k: has its negation bit set"),
    (lambda t: t.to_sparse(), r"k: expected a dense \(strided\) tensor, got layout sparse_coo"),
    (lambda t: t.to("meta"), r"k: expected a CPU or CUDA tensor, got one on meta"),
    (lambda t: t[None], r"k: expected at most 4 dimensions, got 5 with shape \(1, 1, 8, 2, 16\)"),
])
def test_torch_reader_refuses_what_dlpack_would_with_the_argument_named(gen, make, message):
    q, k, v = (_random(gen, 1, 8, 2, 16) for _ in range(3))
    with pytest.raises(ValueError, match=message):
        fattn.attention(q, make(k), v, backend=ORACLE)
