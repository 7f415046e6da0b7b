"""Shared helpers for the Python tests: random inputs and the backends to run them on."""

from __future__ import annotations

import numpy as np
import pytest

import fattn

CPU_BACKENDS = [name for name in fattn.backends() if name.startswith("cpu_")]


def random_inputs(rng, batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim, dtype=np.float32):
    """Fresh random q, k, v (never zeros, never a reused buffer), as numpy arrays."""

    def make(seqlen, heads):
        return rng.standard_normal((batch, seqlen, heads, head_dim)).astype(dtype)

    return make(seqlen_q, heads_q), make(seqlen_k, heads_kv), make(seqlen_k, heads_kv)


@pytest.fixture
def rng(request):
    # One seed per test, derived from its name: failures reproduce, inputs differ across tests.
    return np.random.default_rng(abs(hash(request.node.nodeid)) % (2**32))
