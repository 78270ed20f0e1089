"""Example 5: a batch spread over every GPU of the machine with hegpu.GpuPool. Each worker (a
stream with a host thread) has a context on its device and loads the evaluation key once; the
requests (bytes, as a client sends them) go to whichever worker is free.

Needs hegpu built with CUDA and a device; without them it says so and exits cleanly.

    python crates/python/examples/05_gpu_pool.py
"""

import time

import numpy as np

import hegpu

if hegpu.gpu_count() == 0:
    print("05_gpu_pool needs a CUDA device (and hegpu built with the `cuda` feature); skipped")
    raise SystemExit(0)

params = hegpu.Parameters.preset("bfv", "secure", log_degree=13)
client = hegpu.Context(params, device="cpu")
secret = client.secret_key()
relin = client.relin_key(secret).to_bytes()
inputs = [np.arange(16, dtype=np.uint64) + 100 * r for r in range(48)]
requests = [client.encrypt(x, secret).to_bytes() for x in inputs]


def setup(ctx):
    ctx.bind(relin_key=ctx.load_relin_key(relin))


def square_plus_one(ctx, state, data):
    x = ctx.load_ciphertext(data)
    return (x * x + 1).to_bytes()


pool = hegpu.GpuPool(params, streams_per_device=2, setup=setup)
print(pool)
start = time.perf_counter()
responses = pool.map(square_plus_one, requests)
print(f"{len(requests)} requests in {time.perf_counter() - start:.3f} s")
t = params.plaintext_modulus
for x, data in zip(inputs, responses):
    got = client.decode(client.decrypt(client.load_ciphertext(data), secret))[:16]
    assert np.array_equal(got, (x * x + 1) % t)
print("ok")
