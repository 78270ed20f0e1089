"""Shared fixtures: small parameter sets of both schemes, on every device this build can use
(the CPU always; the first GPU when the extension has CUDA and a device exists: the GPU cases
are skipped, and counted as skipped, elsewhere)."""

import numpy as np
import pytest

import hegpu

NO_GPU = pytest.mark.skipif(hegpu.gpu_count() == 0, reason="no CUDA device (or hegpu built without CUDA)")


def cases(schemes=("bfv", "bgv")):
    """(scheme, device) for every scheme on the CPU and the GPU; the GPU cases skip without one."""
    out = []
    for scheme in schemes:
        out.append(pytest.param((scheme, "cpu"), id=f"{scheme}-cpu"))
        out.append(pytest.param((scheme, "gpu"), id=f"{scheme}-gpu", marks=NO_GPU))
    return out


def params_of(scheme):
    return hegpu.Parameters.preset(scheme, "secure", log_degree=12)


class Setup:
    """A context with its keys bound, and the plaintext modulus."""

    def __init__(self, scheme, device):
        self.params = params_of(scheme)
        self.ctx = hegpu.Context(self.params, device=device)
        self.t = self.params.plaintext_modulus
        self.sk = self.ctx.secret_key(seed=bytes(range(32)))
        self.pk = self.ctx.public_key(self.sk)
        self.rk = self.ctx.relin_key(self.sk)
        self.gk = self.ctx.rotation_keys(self.sk)
        self.ctx.bind(relin_key=self.rk, galois_keys=self.gk)
        self.n = self.ctx.slot_count

    def random(self, rng):
        return rng.integers(0, self.t, self.n, dtype=np.uint64)

    def slots(self, ct):
        return self.ctx.decode(self.ctx.decrypt(ct, self.sk, checked=True)).astype(object)


_CACHE = {}


@pytest.fixture(params=cases())
def setup(request):
    scheme, device = request.param
    key = (scheme, device)
    if key not in _CACHE:
        _CACHE[key] = Setup(scheme, device)
    return _CACHE[key]


@pytest.fixture
def rng():
    return np.random.default_rng(2026)
