"""The GPU from Python: every operation's ciphertext equal, byte for byte, to the CPU's for the
same input bytes; the multi-GPU pool. Skipped (and counted as skipped) without a CUDA device."""

import numpy as np
import pytest

import hegpu

from conftest import NO_GPU, params_of

pytestmark = NO_GPU


@pytest.mark.parametrize("scheme", ["bfv", "bgv"])
def test_gpu_equals_cpu_byte_for_byte(scheme):
    params = params_of(scheme)
    cpu, gpu = hegpu.Context(params, device="cpu"), hegpu.Context(params, device="gpu")
    assert gpu.device == "gpu:0"
    sk = cpu.secret_key(seed=bytes(range(32)))
    keys = {"relin": cpu.relin_key(sk), "galois": cpu.rotation_keys(sk)}
    rng = np.random.default_rng(1)
    xs = [rng.integers(0, params.plaintext_modulus, cpu.slot_count, dtype=np.uint64) for _ in range(2)]
    data = [cpu.encrypt(x, cpu.public_key(sk)).to_bytes() for x in xs]

    def run(ctx):
        ctx.bind(
            relin_key=ctx.load_relin_key(keys["relin"].to_bytes()),
            galois_keys=ctx.load_galois_keys(keys["galois"].to_bytes()),
        )
        a, b = (ctx.load_ciphertext(d) for d in data)
        pt = ctx.encode(xs[1])
        outs = [a + b, a - b, -a, a * b, ctx.multiply(a, b), a * pt, a + pt, a * 7, a + 7,
                ctx.rotate_rows(a, 3), ctx.rotate_columns(a), ctx.sum_slots(a, "all"),
                ctx.mod_switch_to_next(a * b), ctx.mod_switch_to(a, 0)]
        return [c.to_bytes() for c in outs]

    assert run(gpu) == run(cpu)
    # Keys made on the GPU from a seed have the CPU's bytes.
    assert gpu.secret_key(seed=bytes(range(32))).to_bytes() == sk.to_bytes()


def test_gpu_pool_spreads_a_batch():
    params = params_of("bfv")
    client = hegpu.Context(params, device="cpu")
    sk = client.secret_key()
    relin = client.relin_key(sk).to_bytes()
    rng = np.random.default_rng(2)
    xs = [rng.integers(0, 1000, 16, dtype=np.uint64) for _ in range(12)]
    requests = [client.encrypt(x, sk).to_bytes() for x in xs]

    def setup(ctx):
        ctx.bind(relin_key=ctx.load_relin_key(relin))
        return ctx.device

    pool = hegpu.GpuPool(params, streams_per_device=2, setup=setup)
    assert len(pool.workers) == 2 * hegpu.gpu_count()

    def work(ctx, state, data):
        a = ctx.load_ciphertext(data)
        return (state, (a * a + 1).to_bytes())

    results = pool.map(work, requests)
    assert len(results) == len(requests)
    t = params.plaintext_modulus
    for x, (device, data) in zip(xs, results):
        assert device.startswith("gpu:")
        got = client.decode(client.decrypt(client.load_ciphertext(data), sk))[:16]
        assert got.tolist() == [(int(v) * int(v) + 1) % t for v in x]
