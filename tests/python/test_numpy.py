"""fattn.attention and fattn.attention_backward on numpy arrays, on every compiled CPU backend,
against the float64 reference of reference.py."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CPU_BACKENDS, random_inputs
from reference import (
    BACKWARD_TOLERANCE,
    FORWARD_TOLERANCE,
    attention_backward,
    attention_forward,
    lse_error,
    relative_error,
)

import fattn
from fattn import _fattn

# (batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim, causal, window): the odd shapes
# (N = 1, 17, 1013; D = 1, 72, 129), GQA and MQA, causal with seqlen_q != seqlen_k both ways
# (seqlen_q > seqlen_k leaves fully masked rows), and a sliding window.
CASES = {
    "single-token": (1, 1, 1, 1, 1, 72, False, (-1, -1)),
    "head-dim-1": (1, 5, 7, 2, 2, 1, False, (-1, -1)),
    "n17-d129": (2, 17, 17, 4, 4, 129, False, (-1, -1)),
    "n1013-d72-causal-gqa": (1, 1013, 1013, 4, 2, 72, True, (-1, -1)),
    "causal-q-shorter": (2, 17, 1013, 4, 2, 64, True, (-1, -1)),
    "causal-q-longer": (1, 1013, 17, 2, 2, 32, True, (-1, -1)),
    "window-mqa-d256": (1, 128, 160, 3, 1, 256, False, (16, 8)),
}


def _case(name):
    return pytest.param(*CASES[name], id=name)


CASE_PARAMS = [_case(name) for name in CASES]


@pytest.mark.parametrize("backend", CPU_BACKENDS)
@pytest.mark.parametrize("batch,seqlen_q,seqlen_k,heads_q,heads_kv,head_dim,causal,window",
                         CASE_PARAMS)
def test_forward_matches_reference(rng, backend, batch, seqlen_q, seqlen_k, heads_q, heads_kv,
                                   head_dim, causal, window):
    q, k, v = random_inputs(rng, batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim)
    out, lse = fattn.attention(q, k, v, causal=causal, window_size=window, backend=backend)
    expected_out, expected_lse = attention_forward(q, k, v, causal=causal, window=window)
    assert out.shape == q.shape and out.dtype == q.dtype
    assert lse.shape == (batch, heads_q, seqlen_q) and lse.dtype == np.float32
    assert relative_error(out, expected_out) < FORWARD_TOLERANCE["float32"]
    assert lse_error(lse, expected_lse) < FORWARD_TOLERANCE["float32"]


@pytest.mark.parametrize("backend", CPU_BACKENDS)
@pytest.mark.parametrize("batch,seqlen_q,seqlen_k,heads_q,heads_kv,head_dim,causal,window",
                         CASE_PARAMS)
def test_backward_matches_reference(rng, backend, batch, seqlen_q, seqlen_k, heads_q, heads_kv,
                                    head_dim, causal, window):
    q, k, v = random_inputs(rng, batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim)
    dout = rng.standard_normal(q.shape).astype(np.float32)
    out, lse = fattn.attention(q, k, v, causal=causal, window_size=window, backend=backend)
    dq, dk, dv = fattn.attention_backward(dout, q, k, v, out, lse, causal=causal,
                                          window_size=window, backend=backend)
    expected = attention_backward(dout, q, k, v, causal=causal, window=window)
    for name, actual, reference in zip(("dq", "dk", "dv"), (dq, dk, dv), expected):
        assert actual.shape == reference.shape, name
        assert relative_error(actual, reference) < BACKWARD_TOLERANCE["float32"], name


@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_float16_inputs(rng, backend):
    q, k, v = random_inputs(rng, 2, 33, 47, 4, 2, 80, dtype=np.float16)
    out, lse = fattn.attention(q, k, v, causal=True, backend=backend)
    expected_out, expected_lse = attention_forward(q, k, v, causal=True)
    assert out.dtype == np.float16
    assert relative_error(out, expected_out) < FORWARD_TOLERANCE["float16"]
    assert lse_error(lse, expected_lse) < FORWARD_TOLERANCE["float32"]


@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_every_output_element_is_written(rng, backend):
    q, k, v = random_inputs(rng, 2, 17, 29, 4, 2, 72)
    out = np.full(q.shape, np.nan, dtype=np.float32)
    lse = np.full((2, 4, 17), np.nan, dtype=np.float32)
    ran = _fattn.forward(q, k, v, out, lse, backend=backend)
    assert ran == backend
    assert not np.isnan(out).any() and not np.isnan(lse).any()
    dq, dk, dv = (np.full(t.shape, np.nan, dtype=np.float32) for t in (q, k, v))
    _fattn.backward(q, k, v, out, np.ones_like(out), lse, dq, dk, dv, backend=backend)
    assert not any(np.isnan(t).any() for t in (dq, dk, dv))


@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_strided_views_are_read_in_place(rng, backend):
    # q, k, v as views into one packed buffer (batch, seqlen, 3, heads, head_dim), and a k with
    # padded rows: no copy is made, and the result equals that of contiguous inputs.
    packed = rng.standard_normal((2, 40, 3, 4, 72)).astype(np.float32)
    q, k, v = packed[:, :, 0], packed[:, :, 1], packed[:, :, 2]
    assert not q.flags.c_contiguous
    out, lse = fattn.attention(q, k, v, backend=backend)
    expected_out, expected_lse = attention_forward(q, k, v)
    assert relative_error(out, expected_out) < FORWARD_TOLERANCE["float32"]
    assert lse_error(lse, expected_lse) < FORWARD_TOLERANCE["float32"]


@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_read_only_inputs_are_accepted(rng, backend):
    q, k, v = random_inputs(rng, 1, 9, 9, 2, 2, 16)
    for t in (q, k, v):
        t.setflags(write=False)
    out, _ = fattn.attention(q, k, v, backend=backend)
    assert relative_error(out, attention_forward(q, k, v)[0]) < FORWARD_TOLERANCE["float32"]


@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_no_keys_gives_zero_output_and_minus_infinity(rng, backend):
    q = rng.standard_normal((1, 5, 2, 32)).astype(np.float32)
    k = np.empty((1, 0, 2, 32), dtype=np.float32)
    out, lse = fattn.attention(q, k, k, backend=backend)
    assert np.all(out == 0) and np.all(np.isneginf(lse))
    dq, dk, dv = fattn.attention_backward(np.ones_like(out), q, k, k, out, lse, backend=backend)
    assert np.all(dq == 0) and dk.shape == k.shape and dv.shape == k.shape


@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_fully_masked_rows_give_zeros_not_nan(rng, backend):
    # Causal with seqlen_q = 8 > seqlen_k = 3: rows 0..4 see no key (bottom-right alignment).
    q, k, v = random_inputs(rng, 1, 8, 3, 2, 1, 16)
    out, lse = fattn.attention(q, k, v, causal=True, backend=backend)
    assert np.all(out[:, :5] == 0) and np.all(np.isneginf(lse[:, :, :5]))
    assert np.all(np.isfinite(lse[:, :, 5:]))
    dq, _, _ = fattn.attention_backward(np.ones_like(out), q, k, v, out, lse, causal=True,
                                        backend=backend)
    assert np.all(dq[:, :5] == 0) and not np.isnan(dq).any()


@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_softmax_scale_and_thread_count(rng, backend):
    q, k, v = random_inputs(rng, 1, 33, 33, 2, 2, 40)
    expected, _ = attention_forward(q, k, v, softmax_scale=0.3)
    for threads in (1, 2):
        out, _ = fattn.attention(q, k, v, softmax_scale=0.3, backend=backend,
                                 num_threads=threads)
        assert relative_error(out, expected) < FORWARD_TOLERANCE["float32"]


def test_auto_runs_the_backend_supports_names(rng):
    q, k, v = random_inputs(rng, 1, 17, 17, 2, 2, 64)
    selection = fattn.supports(q, k)
    assert selection.ok and selection.backend in fattn.backends()
    out = np.empty_like(q)
    lse = np.empty((1, 2, 17), dtype=np.float32)
    assert _fattn.forward(q, k, v, out, lse) == selection.backend


@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_deterministic_backward_repeats_bit_for_bit(rng, backend):
    q, k, v = random_inputs(rng, 1, 200, 300, 4, 2, 64)
    dout = rng.standard_normal(q.shape).astype(np.float32)
    out, lse = fattn.attention(q, k, v, causal=True, backend=backend)
    runs = [fattn.attention_backward(dout, q, k, v, out, lse, causal=True, backend=backend,
                                     deterministic=True, num_threads=2) for _ in range(2)]
    for first, second in zip(*runs):
        np.testing.assert_array_equal(first, second)
