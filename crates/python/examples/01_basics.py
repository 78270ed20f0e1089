"""Example 1: BFV basics from Python. A preset, the keys, numpy vectors in the slots, arithmetic
with operators, the noise budget, and decryption checked against numpy.

    python crates/python/examples/01_basics.py
"""

import numpy as np

import hegpu

# 128-bit security, N = 4096 slots, a 20-bit plaintext modulus t (batching needs t = 1 mod 2N).
params = hegpu.Parameters.preset("bfv", "secure", log_degree=12)
t = params.plaintext_modulus
print(params)

# "auto": the first GPU when this build has CUDA and a device exists, else the CPU.
ctx = hegpu.Context(params, device="auto")
print("computing on", ctx.device)

secret = ctx.secret_key()  # decrypts: stays with its owner
public = ctx.public_key(secret)  # encrypts
ctx.bind(relin_key=ctx.relin_key(secret))  # `a * b` relinearizes with the bound key

x = np.arange(ctx.slot_count, dtype=np.int64) % 1000
y = -np.arange(ctx.slot_count, dtype=np.int64) % 7  # negative values are their residues mod t
cx, cy = ctx.encrypt(x, public), ctx.encrypt(y, public)
print(cx, "-", ctx.noise_budget(cx, secret), "bits of noise budget")

z = (cx + cy) * cx - 3 * cy + 7
print(z, "-", ctx.noise_budget(z, secret), "bits left")

# `checked` measures the noise first and raises NoiseError instead of returning garbage.
got = ctx.decode(ctx.decrypt(z, secret, checked=True), signed=True)
expected = ((x + y) * x - 3 * y + 7) % t
expected = np.where(expected > t // 2, expected - t, expected)
assert np.array_equal(got, expected), "mismatch"
print("(x + y) x - 3 y + 7 =", got[:6], "...")
print("ok")
