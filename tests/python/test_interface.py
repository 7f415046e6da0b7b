"""flash_attn's interface and fattn's error reporting, on numpy arrays (no torch needed)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from conftest import random_inputs
from reference import FORWARD_TOLERANCE, attention_forward, lse_error, relative_error, visible_keys

import fattn
from fattn import flash_attn_func, flash_attn_kvpacked_func, flash_attn_qkvpacked_func

# The backend every interface test runs on: the fp64 oracle is in every build.
ORACLE = "cpu_reference"


def test_signatures_match_flash_attn():
    expected_tail = ["dropout_p", "softmax_scale", "causal", "window_size", "softcap",
                     "alibi_slopes", "deterministic", "return_attn_probs"]
    defaults = {"dropout_p": 0.0, "softmax_scale": None, "causal": False,
                "window_size": (-1, -1), "softcap": 0.0, "alibi_slopes": None,
                "deterministic": False, "return_attn_probs": False}
    for func, leading in ((flash_attn_func, ["q", "k", "v"]),
                          (flash_attn_qkvpacked_func, ["qkv"]),
                          (flash_attn_kvpacked_func, ["q", "kv"])):
        params = inspect.signature(func).parameters
        assert list(params) == leading + expected_tail, func.__name__
        for name, value in defaults.items():
            assert params[name].default == value, (func.__name__, name)


@pytest.mark.parametrize("kwargs,feature", [
    ({"dropout_p": 0.1}, "dropout"),
    ({"softcap": 30.0}, "softcapping"),
    ({"alibi_slopes": np.ones(4, dtype=np.float32)}, "ALiBi"),
])
def test_unimplemented_features_raise_naming_them(rng, kwargs, feature):
    q, k, v = random_inputs(rng, 1, 8, 8, 4, 4, 32)
    with pytest.raises(NotImplementedError, match=feature):
        flash_attn_func(q, k, v, **kwargs)
    with pytest.raises(NotImplementedError, match=feature):
        flash_attn_qkvpacked_func(np.stack([q, k, v], axis=2), **kwargs)
    with pytest.raises(NotImplementedError, match=feature):
        flash_attn_kvpacked_func(q, np.stack([k, v], axis=2), **kwargs)


def test_flash_attn_func_matches_reference(rng):
    q, k, v = random_inputs(rng, 2, 17, 40, 4, 2, 72)
    out = flash_attn_func(q, k, v, causal=True, softmax_scale=0.2)
    expected, _ = attention_forward(q, k, v, softmax_scale=0.2, causal=True)
    assert relative_error(out, expected) < FORWARD_TOLERANCE["float32"]


def test_return_attn_probs_gives_out_lse_and_true_probabilities(rng):
    q, k, v = random_inputs(rng, 1, 12, 20, 2, 1, 16)
    window = (5, 2)
    out, lse, probs = flash_attn_func(q, k, v, window_size=window, return_attn_probs=True)
    expected_out, expected_lse = attention_forward(q, k, v, window=window)
    assert relative_error(out, expected_out) < FORWARD_TOLERANCE["float32"]
    assert lse_error(lse, expected_lse) < FORWARD_TOLERANCE["float32"]
    assert probs.shape == (1, 2, 12, 20)
    hidden = ~visible_keys(12, 20, False, window)
    assert np.all(probs[..., hidden] == 0)
    np.testing.assert_allclose(probs.sum(axis=-1), 1.0, rtol=1e-5)
    recomposed = np.einsum("bhqk,bkhd->bqhd", probs.astype(np.float64),
                           np.repeat(v.astype(np.float64), 2, axis=2))
    assert relative_error(recomposed, expected_out) < FORWARD_TOLERANCE["float32"]


def test_packed_variants_equal_unpacked(rng):
    qkv = rng.standard_normal((2, 33, 3, 4, 64)).astype(np.float32)
    q, k, v = (np.ascontiguousarray(qkv[:, :, i]) for i in range(3))
    unpacked = flash_attn_func(q, k, v, causal=True)
    np.testing.assert_array_equal(flash_attn_qkvpacked_func(qkv, causal=True), unpacked)
    kv = np.stack([k[:, :, :2], v[:, :, :2]], axis=2)  # GQA: 4 query heads, 2 kv heads
    np.testing.assert_array_equal(
        flash_attn_kvpacked_func(q, kv, causal=True),
        flash_attn_func(q, k[:, :, :2], v[:, :, :2], causal=True),
    )


@pytest.mark.parametrize("func,shape,message", [
    (flash_attn_qkvpacked_func, (2, 8, 2, 4, 16), r"qkv: expected a rank-5 tensor"),
    (flash_attn_qkvpacked_func, (2, 8, 4, 16), r"qkv: expected a rank-5 tensor"),
])
def test_packed_shapes_are_checked(func, shape, message):
    with pytest.raises(ValueError, match=message):
        func(np.ones(shape, dtype=np.float32))


def test_kvpacked_shape_is_checked(rng):
    q, _, _ = random_inputs(rng, 1, 8, 8, 2, 2, 16)
    with pytest.raises(ValueError, match=r"kv: expected a rank-5 tensor"):
        flash_attn_kvpacked_func(q, np.ones((1, 8, 3, 2, 16), dtype=np.float32))


def test_flash_attn_func_copies_only_a_strided_last_dimension(rng):
    base = rng.standard_normal((1, 16, 2, 64)).astype(np.float32)
    q = base[..., ::2]  # last dimension strided: flash_attn copies it, so does fattn
    out = flash_attn_func(q, q, q)
    assert relative_error(out, attention_forward(q, q, q)[0]) < FORWARD_TOLERANCE["float32"]
    with pytest.raises(ValueError, match=r"q: the last dimension must be contiguous"):
        fattn.attention(q, q, q)  # fattn.attention never copies


# Each case: (what to change, the start of the library's message). The messages are the C++
# validation's own, arriving unchanged as ValueError.
@pytest.mark.parametrize("make,message", [
    (lambda q, k, v: (q[0], k, v),
     r"q: expected a rank-4 tensor \(batch, seqlen, heads, head_dim\), got rank 3"),
    (lambda q, k, v: (q, np.concatenate([k, k[:, :, :1]], axis=2),
                      np.concatenate([v, v[:, :, :1]], axis=2)),
     r"k: heads_q must be a multiple of heads_kv \(GQA/MQA\): q has 4 heads, k has 3"),
    (lambda q, k, v: (q, k[:, :5], v), r"v: expected shape \(1, 5, 2, 16\) \(that of k\)"),
    (lambda q, k, v: (q, k.astype(np.float16), v),
     r"k: expected dtype float32 \(that of q\), got float16"),
    (lambda q, k, v: (q.astype(np.float64), k, v),
     r"q: expected dtype float32, float16 or bfloat16, got float64"),
    (lambda q, k, v: (q[None], k, v), r"q: expected at most 4 dimensions, got 5"),
])
def test_invalid_arguments_raise_value_error_with_library_message(rng, make, message):
    q, k, v = random_inputs(rng, 1, 8, 9, 4, 2, 16)
    q, k, v = make(q, k, v)
    with pytest.raises(ValueError, match=message):
        fattn.attention(q, k, v, backend=ORACLE)


def test_head_dim_over_the_limit_is_reported(rng):
    q, k, v = random_inputs(rng, 1, 2, 2, 1, 1, 257)
    with pytest.raises(ValueError, match=r"q: unsupported head_dim: expected 1 to 256, got 257"):
        fattn.attention(q, k, v)


def test_option_errors(rng):
    q, k, v = random_inputs(rng, 1, 4, 4, 1, 1, 8)
    with pytest.raises(ValueError, match=r"backend: unknown name 'cuda_magic'"):
        fattn.attention(q, k, v, backend="cuda_magic")
    with pytest.raises(ValueError, match=r"window_size: expected a pair"):
        fattn.attention(q, k, v, window_size=3)
    with pytest.raises(ValueError, match=r"window: expected each side >= 0, or -1"):
        fattn.attention(q, k, v, window_size=(-2, 0))
    with pytest.raises(ValueError, match=r"softmax_scale: expected a finite number"):
        fattn.attention(q, k, v, softmax_scale=float("inf"))
    with pytest.raises(TypeError, match=r"expected a torch tensor, a numpy array"):
        fattn.attention([[1.0]], k, v)


def test_backward_validation_reaches_python(rng):
    q, k, v = random_inputs(rng, 1, 6, 6, 2, 2, 8)
    out, lse = fattn.attention(q, k, v, backend=ORACLE)
    with pytest.raises(ValueError, match=r"dout: expected shape \(1, 6, 2, 8\) \(that of q\)"):
        fattn.attention_backward(out[:, :3], q, k, v, out, lse, backend=ORACLE)


def test_a_backend_that_cannot_run_raises_not_implemented_with_the_selector_reason(rng):
    q, k, v = random_inputs(rng, 1, 4, 4, 1, 1, 8)
    selection = fattn.supports(q, k, backend="cuda_sm90")
    assert not selection and selection.backend is None
    assert "cuda_sm90" in selection.reason
    with pytest.raises(NotImplementedError) as raised:
        fattn.attention(q, k, v, backend="cuda_sm90")
    assert str(raised.value) == selection.reason


def test_backends_and_version():
    compiled = fattn.backends()
    assert {"cpu_reference", "cpu_standard", "cpu_flash"} <= set(compiled)
    assert set(compiled) <= set(fattn.backends(compiled_only=False))
    assert fattn.__version__.count(".") == 2


def test_supports_names_a_backend_for_cpu_inputs(rng):
    q, k, _ = random_inputs(rng, 1, 4, 4, 2, 1, 8)
    selection = fattn.supports(q, k, causal=True, backward=True)
    assert selection.ok and selection.backend.startswith("cpu_") and selection.reason == ""
    assert fattn.supports(q, k, backend=ORACLE).backend == ORACLE
    with pytest.raises(ValueError, match=r"q: expected a rank-4 tensor"):
        fattn.supports(q[0], k)
